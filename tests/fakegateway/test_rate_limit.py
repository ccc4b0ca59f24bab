"""The fake gateway's rate limit without sockets: the token bucket driven by a made-up clock.

Every time is passed in, so each expectation follows from the bucket's arithmetic alone (rate R
tokens a second, at most `burst` saved, a new bucket full) and nothing here sleeps or times.
"""

from __future__ import annotations

import sys

import pytest

from lobrec.errors import ConfigError
from lobrec.fakegateway import FakeGateway
from lobrec.fakegateway.completions import FakeReply
from lobrec.fakegateway.process import fake_gateway_command_line
from lobrec.fakegateway.ratelimit import (
    Bucket,
    RateLimit,
    RateLimiter,
    checked_limit,
    rate_limited_reply,
    retry_after,
    take_token,
)
from tests.support.gateway import build_small_suite

TWO = RateLimit(rate=2, burst=2)


def _waits(limit: RateLimit, times: list[float]) -> list[float]:
    """The wait each request at these times gets from one bucket (0.0: served)."""
    bucket: Bucket | None = None
    waits = []
    for now in times:
        bucket, wait = take_token(bucket, limit, now)
        waits.append(wait)
    return waits


# --- the bucket -----------------------------------------------------------------------------------


def test_a_new_bucket_is_full_and_a_burst_beyond_it_waits_for_the_next_token() -> None:
    assert _waits(TWO, [0, 0, 0, 0]) == [0.0, 0.0, 0.5, 0.5]


def test_a_token_comes_back_every_one_over_rate_seconds() -> None:
    assert _waits(TWO, [0, 0, 0.25, 0.5, 0.5, 1.0, 1.25]) == [0.0, 0.0, 0.25, 0.0, 0.5, 0.0, 0.25]


def test_a_refused_request_takes_nothing() -> None:
    bucket, _ = take_token(None, RateLimit(rate=1, burst=1), 10.0)
    for now in (10.0, 10.5, 10.75):
        refused, wait = take_token(bucket, RateLimit(rate=1, burst=1), now)
        assert (refused.tokens, wait) == (now - 10.0, 1 - (now - 10.0))
    assert take_token(bucket, RateLimit(rate=1, burst=1), 11.0) == (Bucket(tokens=0.0, stamp=11.0), 0.0)


def test_saved_tokens_never_exceed_the_burst() -> None:
    assert _waits(TWO, [0, 1000, 1000, 1000]) == [0.0, 0.0, 0.0, 0.5]


def test_a_slow_rate_waits_seconds_per_token() -> None:
    half = RateLimit(rate=0.5, burst=1)
    assert _waits(half, [0, 0, 1, 2, 2]) == [0.0, 2.0, 1.0, 0.0, 2.0]


def test_a_third_of_a_second_at_three_per_second_is_a_whole_token() -> None:
    three = RateLimit(rate=3, burst=1)
    assert _waits(three, [0, 1 / 3, 2 / 3, 1.0]) == [0.0, 0.0, 0.0, 0.0]


def test_a_clock_that_goes_back_refills_nothing() -> None:
    one = RateLimit(rate=1, burst=1)
    assert _waits(one, [5, 4, 4.5]) == [0.0, 1.0, 1.0]


def test_n_requests_at_once_serve_the_whole_part_of_the_burst() -> None:
    limit = RateLimit(rate=0.001, burst=3.5)
    assert sum(wait == 0 for wait in _waits(limit, [0] * 10)) == 3


# --- the limiter's buckets ------------------------------------------------------------------------


def test_one_bucket_serves_every_model_by_default() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1))
    assert [limiter.take(model, 0) for model in ("a", "b", "a")] == [0.0, 1.0, 1.0]


def test_per_model_each_model_has_its_own_bucket() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1, per_model=True))
    assert [limiter.take(model, 0) for model in ("a", "b", "a", "b")] == [0.0, 0.0, 1.0, 1.0]


def test_clearing_refills_every_bucket() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1, per_model=True))
    assert [limiter.take("a", 0), limiter.take("a", 0)] == [0.0, 1.0]
    limiter.clear()
    assert limiter.take("a", 0) == 0.0


# --- the limit's settings -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "burst", "expected"),
    [
        (2, None, RateLimit(rate=2, burst=2)),
        (0.5, None, RateLimit(rate=0.5, burst=1)),
        (7.5, None, RateLimit(rate=7.5, burst=7.5)),
        (0.001, 3, RateLimit(rate=0.001, burst=3)),
        (100, 1, RateLimit(rate=100, burst=1)),
    ],
)
def test_the_burst_defaults_to_the_rate_and_at_least_one(
    rate: float, burst: float | None, expected: RateLimit
) -> None:
    assert checked_limit(rate, burst) == expected


@pytest.mark.parametrize("rate", [0, -1, float("nan"), float("inf")])
def test_a_rate_must_be_a_positive_number(rate: float) -> None:
    with pytest.raises(
        ConfigError, match=r"^--rate-limit .*: must be a positive number of requests per second$"
    ):
        checked_limit(rate)


@pytest.mark.parametrize("burst", [0, 0.5, -2, float("nan")])
def test_a_burst_must_hold_a_whole_token(burst: float) -> None:
    with pytest.raises(ConfigError, match=r"^--rate-limit-burst .*: must be at least 1"):
        checked_limit(10, burst)


@pytest.mark.parametrize(("burst", "per_model"), [(2.0, False), (None, True)])
def test_burst_and_per_model_need_a_rate(burst: float | None, per_model: bool) -> None:
    with pytest.raises(ConfigError, match=r"^--rate-limit-burst and --rate-limit-per-model need"):
        FakeGateway(build_small_suite(), rate_limit_burst=burst, rate_limit_per_model=per_model)


def test_the_gateway_keeps_its_checked_limit() -> None:
    gateway = FakeGateway(build_small_suite(), rate_limit=0.5, rate_limit_per_model=True)
    assert (gateway.rate_limit, FakeGateway(build_small_suite()).rate_limit) == (
        RateLimit(rate=0.5, burst=1, per_model=True),
        None,
    )


# --- the reply ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("wait", "seconds"), [(0.001, 1), (0.5, 1), (1.0, 1), (1.2, 2), (999.9, 1000)])
def test_retry_after_is_the_wait_rounded_up_and_at_least_one_second(wait: float, seconds: int) -> None:
    assert retry_after(wait) == seconds


def test_the_429_is_in_openais_error_shape_with_retry_after() -> None:
    assert rate_limited_reply(TWO, "fixture/oracle", 0.5) == FakeReply(
        status=429,
        headers={"content-type": "application/json", "retry-after": "1"},
        body=b'{"error":{"message":"Rate limit reached: 2 requests per second (burst 2); '
        b'retry after 1 second.","type":"rate_limit_error","code":"rate_limit_exceeded"}}',
    )


def test_a_per_model_429_names_the_model_and_the_seconds() -> None:
    limit = RateLimit(rate=0.25, burst=1, per_model=True)
    reply = rate_limited_reply(limit, "auto", 3.5)
    assert (reply.headers["retry-after"], reply.body) == (
        "4",
        b'{"error":{"message":"Rate limit reached for auto: 0.25 requests per second (burst 1); '
        b'retry after 4 seconds.","type":"rate_limit_error","code":"rate_limit_exceeded"}}',
    )


# --- the process's command line -------------------------------------------------------------------

BASE = [sys.executable, "-m", "lobrec.fakegateway", "--suite", "s.json", "--host", "127.0.0.1"]


def test_the_command_line_has_no_rate_options_unless_asked() -> None:
    assert fake_gateway_command_line("s.json", 5, extra_args=["--allow-remote"]) == [
        *BASE,
        "--port",
        "0",
        "--latency-ms",
        "5",
        "--allow-remote",
    ]


def test_the_command_line_passes_the_rate_options() -> None:
    command = fake_gateway_command_line("s.json", rate_limit=2, rate_limit_burst=5, rate_limit_per_model=True)
    assert command == [
        *BASE,
        "--port",
        "0",
        "--latency-ms",
        "0",
        "--rate-limit",
        "2.0",
        "--rate-limit-burst",
        "5.0",
        "--rate-limit-per-model",
    ]

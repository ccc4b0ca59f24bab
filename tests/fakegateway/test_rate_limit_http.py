"""The fake gateway's rate limit over HTTP: an in-process `FakeGateway` and real sockets.

The limiter's clock is a made-up one that only moves when a test moves it, so every count of 429s
follows from the bucket (rate R a second, `burst` at once) and nothing depends on how fast the
machine is. One test uses the real clock at a rate so low that no token can come back during it.
The process test waits for `lobrec fake-gateway --rate-limit` (the CLI wires the option).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from lobrec.cli.fake import fake_gateway_command
from lobrec.core.judge.wire import request_body
from lobrec.core.suite.format import Suite
from lobrec.fakegateway import (
    FLAKY,
    FakeGateway,
    FaultRule,
    LogEntry,
    answer,
    start_fake_gateway_process,
    stop_fake_gateway_process,
)
from lobrec.suite_file import load_suite
from tests.support.gateway import build_small_suite

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
SMALL = build_small_suite()
TIMEOUT = httpx.Timeout(10.0)


class Clock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _body(suite: Suite, model: str, case_id: str) -> bytes:
    case = suite.case(case_id)
    assert case is not None
    return request_body(model, list(case.messages), suite.offered_tools(case))


def _statuses(client: httpx.Client, gateway: FakeGateway, bodies: list[bytes]) -> list[int]:
    return [client.post(f"{gateway.url}/chat/completions", content=body).status_code for body in bodies]


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=TIMEOUT) as http:
        yield http


ORACLE_SEL = _body(SMALL, "fixture/oracle", "sel-01")
SILENT_SEL = _body(SMALL, "fixture/silent", "sel-01")


def test_beyond_the_burst_is_429_until_a_token_comes_back(client: httpx.Client) -> None:
    clock = Clock()
    with FakeGateway(SMALL, rate_limit=2, clock=clock) as gateway:
        assert _statuses(client, gateway, [ORACLE_SEL] * 5) == [200, 200, 429, 429, 429]
        clock.now += 0.5
        assert _statuses(client, gateway, [ORACLE_SEL] * 2) == [200, 429]
        clock.now += 10
        assert _statuses(client, gateway, [ORACLE_SEL] * 3) == [200, 200, 429]


def test_the_429_is_openais_rate_limit_error_and_is_logged(client: httpx.Client) -> None:
    clock = Clock()
    with FakeGateway(SMALL, rate_limit=0.25, clock=clock) as gateway:
        client.post(f"{gateway.url}/chat/completions", content=ORACLE_SEL)
        clock.now += 1
        response = client.post(f"{gateway.url}/chat/completions", content=ORACLE_SEL)
        log = gateway.log()
    assert (response.status_code, response.headers["retry-after"], response.json()) == (
        429,
        "3",
        {
            "error": {
                "message": "Rate limit reached: 0.25 requests per second (burst 1); retry after 3 seconds.",
                "type": "rate_limit_error",
                "code": "rate_limit_exceeded",
            }
        },
    )
    assert log == [
        LogEntry(model="fixture/oracle", case="sel-01", step=0, fault=None, status=200),
        LogEntry(model="fixture/oracle", case="sel-01", step=0, fault="rate_limit", status=429),
    ]


def test_one_bucket_is_shared_by_every_model_by_default(client: httpx.Client) -> None:
    with FakeGateway(SMALL, rate_limit=1, clock=Clock()) as gateway:
        assert _statuses(client, gateway, [ORACLE_SEL, SILENT_SEL, SILENT_SEL]) == [200, 429, 429]


def test_per_model_each_model_has_its_own_bucket(client: httpx.Client) -> None:
    with FakeGateway(SMALL, rate_limit=1, rate_limit_per_model=True, clock=Clock()) as gateway:
        bodies = [ORACLE_SEL, ORACLE_SEL, SILENT_SEL, SILENT_SEL, ORACLE_SEL]
        assert _statuses(client, gateway, bodies) == [200, 429, 200, 429, 429]
        response = client.post(f"{gateway.url}/chat/completions", content=SILENT_SEL)
    assert response.json()["error"]["message"].startswith("Rate limit reached for fixture/silent: ")


def test_a_reset_refills_the_buckets(client: httpx.Client) -> None:
    with FakeGateway(SMALL, rate_limit=1, clock=Clock()) as gateway:
        before = _statuses(client, gateway, [ORACLE_SEL] * 2)
        gateway.reset()
        assert (before, _statuses(client, gateway, [ORACLE_SEL] * 2)) == ([200, 429], [200, 429])


def test_only_chat_requests_with_a_valid_body_take_a_token(client: httpx.Client) -> None:
    with FakeGateway(SMALL, rate_limit=1, clock=Clock()) as gateway:
        invalid = client.post(f"{gateway.url}/chat/completions", content=b"{not json").status_code
        models = client.get(f"{gateway.url}/models").status_code
        assert (invalid, models, _statuses(client, gateway, [ORACLE_SEL] * 2)) == (400, 200, [200, 429])


def test_a_refused_request_uses_up_no_fault_and_no_flaky_run(client: httpx.Client) -> None:
    suite = load_suite(ROOT / "suite" / "suite.json")
    other = _body(suite, "fixture/oracle", "sel-01")
    faulted, flaky = _body(suite, "fixture/oracle", "near-03"), _body(suite, FLAKY, "near-03")
    clock = Clock()
    with FakeGateway(suite, rate_limit=1, clock=clock) as gateway:
        gateway.add_faults([FaultRule(case="near-03", model="fixture/oracle", faults=["503"])])
        got = []
        for body in (faulted, faulted, flaky, flaky):
            # the other request takes the token, so this one is refused; a second later it goes
            assert _statuses(client, gateway, [other, body]) == [200, 429]
            clock.now += 1
            got.append(client.post(f"{gateway.url}/chat/completions", content=body))
            clock.now += 1
    assert [response.status_code for response in got] == [503, 200, 200, 200]
    assert [response.content for response in got[2:]] == [
        answer(suite, flaky, run=run).body for run in (1, 2)
    ]


def test_concurrent_requests_are_served_up_to_the_burst(client: httpx.Client) -> None:
    with (
        FakeGateway(SMALL, rate_limit=0.5, rate_limit_burst=3, clock=Clock()) as gateway,
        ThreadPoolExecutor(8) as pool,
    ):
        statuses = list(pool.map(lambda _: _statuses(client, gateway, [ORACLE_SEL])[0], range(8)))
    assert sorted(statuses) == [200] * 3 + [429] * 5


def test_with_the_real_clock_a_slow_rate_serves_the_burst_and_refuses_the_rest(client: httpx.Client) -> None:
    # A token every 1000 s: none can come back during the test, however slow the machine.
    with FakeGateway(SMALL, rate_limit=0.001, rate_limit_burst=3) as gateway:
        responses = [client.post(f"{gateway.url}/chat/completions", content=ORACLE_SEL) for _ in range(10)]
    assert [response.status_code for response in responses] == [200] * 3 + [429] * 7
    assert all(1 <= int(response.headers["retry-after"]) <= 1000 for response in responses[3:])


@pytest.mark.skipif(
    "rate_limit" not in inspect.signature(fake_gateway_command).parameters,
    reason="lobrec fake-gateway has no --rate-limit yet (the CLI wires it)",
)
def test_the_process_takes_the_rate_options(small_suite_path: Path) -> None:
    body = _body(load_suite(small_suite_path), "fixture/oracle", "sel-01")
    process, url = start_fake_gateway_process(small_suite_path, rate_limit=0.001, rate_limit_burst=2)
    try:
        with httpx.Client(timeout=TIMEOUT) as http:
            statuses = [http.post(f"{url}/chat/completions", content=body).status_code for _ in range(5)]
    finally:
        stop_fake_gateway_process(process)
    assert statuses == [200, 200, 429, 429, 429]

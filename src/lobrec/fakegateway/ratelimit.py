"""The fake gateway's rate limit: a token bucket, with the time passed in rather than read.

A real gateway answers 429 once a client sends faster than its quota, and a token bucket (R tokens
a second, at most `burst` saved up) is the usual shape of such a quota. The arithmetic is pure and
takes `now` as an argument, so tests drive it with a made-up clock instead of sleeping.
"""

from __future__ import annotations

import math

import msgspec

from lobrec.errors import ConfigError
from lobrec.fakegateway.completions import FakeReply, error_reply

EPSILON = 1e-9
"""Slack for float refills: 1/3 s at 3 per second must make a whole token, not 0.999..."""


class RateLimit(msgspec.Struct, frozen=True, kw_only=True):
    """`rate` requests per second, `burst` at once; one bucket per model when `per_model`."""

    rate: float
    burst: float
    per_model: bool = False


class Bucket(msgspec.Struct, frozen=True, kw_only=True):
    """The tokens left at time `stamp` (seconds on the caller's clock)."""

    tokens: float
    stamp: float


def checked_limit(rate: float, burst: float | None = None, *, per_model: bool = False) -> RateLimit:
    """A checked limit; `burst` defaults to max(1, rate). Raises ConfigError for values that never serve."""
    if not (math.isfinite(rate) and rate > 0):
        raise ConfigError(f"--rate-limit {rate:g}: must be a positive number of requests per second")
    chosen = max(1.0, rate) if burst is None else burst
    if not (math.isfinite(chosen) and chosen >= 1):
        raise ConfigError(
            f"--rate-limit-burst {chosen:g}: must be at least 1 (a request needs a whole token)"
        )
    return RateLimit(rate=rate, burst=chosen, per_model=per_model)


def take_token(bucket: Bucket | None, limit: RateLimit, now: float) -> tuple[Bucket, float]:
    """The bucket after a request at `now`, and 0.0 if the request may go, else seconds to wait.

    A bucket not seen before starts full; a refused request takes nothing, so a client that keeps
    retrying is served as soon as a token is back. A clock that steps back refills nothing.
    """
    if bucket is None:
        tokens = limit.burst
    else:
        now = max(now, bucket.stamp)
        tokens = min(limit.burst, bucket.tokens + (now - bucket.stamp) * limit.rate)
    if tokens >= 1 - EPSILON:
        return Bucket(tokens=max(0.0, tokens - 1), stamp=now), 0.0
    return Bucket(tokens=tokens, stamp=now), (1 - tokens) / limit.rate


def retry_after(wait: float) -> int:
    """The `retry-after` header's whole seconds for a wait: rounded up, at least 1."""
    return max(1, math.ceil(wait - EPSILON))


def rate_limited_reply(limit: RateLimit, model: str, wait: float) -> FakeReply:
    """The 429 the limiter sends, in OpenAI's error shape, naming the limit and the wait."""
    seconds = retry_after(wait)
    whose = f" for {model}" if limit.per_model else ""
    message = (
        f"Rate limit reached{whose}: {limit.rate:g} requests per second (burst {limit.burst:g}); "
        f"retry after {seconds} second{'' if seconds == 1 else 's'}."
    )
    return error_reply(429, message, "rate_limit_error", "rate_limit_exceeded", retry_after=seconds)


class RateLimiter:
    """The buckets of one limit, by model or one for all; not thread-safe (the server locks)."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._buckets: dict[str, Bucket] = {}

    def take(self, model: str, now: float) -> float:
        """Take a token for a request at `now`: 0.0 if it may go, else the seconds to wait."""
        key = model if self.limit.per_model else ""
        bucket, wait = take_token(self._buckets.get(key), self.limit, now)
        self._buckets[key] = bucket
        return wait

    def clear(self) -> None:
        """Forget every bucket: the next request finds its bucket full."""
        self._buckets.clear()

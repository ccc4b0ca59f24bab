"""The seam between the runner and the world: send a request body, get an answer or a failure.

The runner talks only to this seam. Live mode's `Exchange` (`lobrec.running.live.LiveExchange`) sends the
body through httpx and records the exchange into a vcrpy cassette as it passes; replay's `Replayer`
(`lobrec.running.playback.ReplayExchange`) answers straight from the decoded cassette, synchronously, with
no HTTP client at all. Everything above the seam (the retry rule, chains, the judge, the results) is
one code path for both (`runner.case_run`), and both hand it the same `Answer` for the same
recorded exchange.

An exchange raises, and never returns, for an attempt that got no usable answer:
- `TransportFailure`: no response (time-out, reset); the retry rule may try again;
- `GatewayError`: an answer that cannot be used (too large, not text, holding the key); the case errors;
- `CassetteMiss` (replay): nothing recorded for this request; the case is stale;
- `CassetteError` (replay): a recorded answer that cannot be replayed; the case errors.

This module holds what both sides share: the answer, its timing, and how a recorded failure is
raised again. It imports neither httpx nor vcrpy, so a rescore loads neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import NamedTuple, NoReturn, Protocol, assert_never

from lobrec.errors import GatewayError, TransportFailure

REPLY_TOO_LARGE = "ReplyTooLarge"
REPLY_NOT_TEXT = "ReplyNotText"
KEY_IN_REPLY = "KeyInReply"
TIMED_OUT = "Timeout"
_ANSWER_FAILURES = (REPLY_TOO_LARGE, REPLY_NOT_TEXT, KEY_IN_REPLY)
"""Recorded failures that are answers the case cannot use (not retried), not missing answers."""


class Measured(NamedTuple):
    """The wall time of an attempt, network included, in milliseconds."""

    ms: float


class NotTimed(NamedTuple):
    """An attempt lobrec did not time: an answer it refused itself (too large, not text, holding
    the key). Not the same fact as an attempt that took no time."""


Timing = Measured | NotTimed
NOT_TIMED = NotTimed()


def latency_ms(timing: Timing) -> float | None:
    """A timing as the results file writes it: null when not timed."""
    match timing:
        case Measured(ms):
            return ms
        case NotTimed():
            return None
        case _:
            assert_never(timing)


def failure_timing(failure: GatewayError) -> Timing:
    """How long a failed attempt took: a transport failure was timed, a refused answer was not."""
    return Measured(failure.elapsed_ms) if isinstance(failure, TransportFailure) else NOT_TIMED


class Answer(NamedTuple):
    """One gateway answer as the runner reads it, live or replayed."""

    status: int
    headers: Mapping[str, str]
    """Lower-case names; a header sent more than once is its values joined with ", " (as HTTP
    allows, and as httpx's `Headers.get` does)."""
    body: bytes
    elapsed_ms: float

    @property
    def timing(self) -> Timing:
        """An answer is always timed."""
        return Measured(self.elapsed_ms)

    @property
    def reason_phrase(self) -> str:
        """The standard phrase for the status: never the gateway's own, which live mode may have
        had to scrub and replay could not reproduce."""
        try:
            return HTTPStatus(self.status).phrase
        except ValueError:
            return ""


class Exchange(Protocol):
    """Send one request body to the gateway and get its answer (live mode)."""

    async def send(self, body: bytes) -> Answer: ...


class Replayer(Protocol):
    """Get the recorded answer to one request body, at once (replay: nothing to wait for)."""

    def send(self, body: bytes) -> Answer: ...

    def attempts(self, body: bytes) -> int:
        """How many attempts the recording made with this body (not yet played): replay retries
        as the recording did, whatever retry delays it was made with."""
        ...


def failure_kind(error: str) -> str:
    """The kind a recorded failure text begins with: `ConnectError` in `ConnectError: [Errno 111]
    Connection refused` (httpx's exception name, or lobrec's own such as `Timeout`)."""
    return error.partition(": ")[0]


def raise_recorded_failure(error: str, elapsed_ms: float) -> NoReturn:
    """Raise what a recorded failure (the `x-lobrec-error` text) stands for, live and in replay."""
    kind, message = failure_kind(error), error.partition(": ")[2]
    if kind in _ANSWER_FAILURES:
        raise GatewayError(message)
    raise TransportFailure(error, elapsed_ms=elapsed_ms)

"""The seam between the runner and the world: send a request body, get an answer or a failure.

The runner talks only to an `Exchange`. Live mode's exchange (`lobrec.transport.LiveExchange`) sends
the body through httpx and records the exchange into a vcrpy cassette as it passes; replay's
(`lobrec.playback.ReplayExchange`) answers straight from the decoded cassette, with no HTTP client at
all. Everything above the seam (the retry rule, chains, the judge, the results) is one code path for
both, and both hand the runner the same `Answer` for the same recorded exchange.

An exchange raises, and never returns, for an attempt that got no usable answer:
- `TransportFailure`: no response (time-out, reset); the retry rule may try again;
- `GatewayError`: an answer that cannot be used (too large, not text, holding the key); the case errors;
- `CassetteMiss` (replay): nothing recorded for this request; the case is stale;
- `CassetteError` (replay): a recorded answer that cannot be replayed; the case errors.

This module holds what both sides share: the answer, the headers lobrec adds to a recording, and how
a recorded failure is raised again. It imports neither httpx nor vcrpy, so a rescore loads neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import NamedTuple, Protocol

from lobrec.errors import GatewayError, TransportFailure

ELAPSED_HEADER = "x-lobrec-elapsed-ms"
ERROR_HEADER = "x-lobrec-error"
LOBREC_HEADER_PREFIX = "x-lobrec-"
NO_RESPONSE_STATUS = 599
REPLY_TOO_LARGE = "ReplyTooLarge"
REPLY_NOT_TEXT = "ReplyNotText"
KEY_IN_REPLY = "KeyInReply"
TIMED_OUT = "Timeout"
_ANSWER_FAILURES = (REPLY_TOO_LARGE, REPLY_NOT_TEXT, KEY_IN_REPLY)
"""Recorded failures that are answers the case cannot use (not retried), not missing answers."""


class Answer(NamedTuple):
    """One gateway answer as the runner reads it, live or replayed."""

    status: int
    headers: Mapping[str, str]
    """Lower-case names; a header sent more than once is its values joined with ", " (as HTTP
    allows, and as httpx's `Headers.get` does)."""
    body: bytes
    elapsed_ms: float

    @property
    def reason_phrase(self) -> str:
        """The standard phrase for the status: never the gateway's own, which live mode may have
        had to scrub and replay could not reproduce."""
        try:
            return HTTPStatus(self.status).phrase
        except ValueError:
            return ""


class Exchange(Protocol):
    """Send one request body to the gateway (or its recording) and get its answer."""

    async def send(self, body: bytes) -> Answer: ...


def joined_headers(headers: Mapping[str, list[str]]) -> dict[str, str]:
    """Recorded headers (name to values) as the runner reads them: names lower-cased, values joined."""
    merged: dict[str, list[str]] = {}
    for name, values in headers.items():
        merged.setdefault(name.lower(), []).extend(values)
    return {name: ", ".join(values) for name, values in merged.items()}


def is_no_response(status: int, headers: Mapping[str, list[str]]) -> bool:
    """lobrec's pseudo-response for "no answer": status 599 *and* lobrec's error header.

    A gateway may itself answer 599; that is an answer (recorded without the error header, which
    lobrec never copies from a gateway) and replays as one.
    """
    return status == NO_RESPONSE_STATUS and bool(headers.get(ERROR_HEADER))


def failure_kind(error: str) -> str:
    """The kind a recorded failure text begins with: `ConnectError` in `ConnectError: [Errno 111]
    Connection refused` (httpx's exception name, or lobrec's own such as `Timeout`)."""
    return error.partition(": ")[0]


def raise_recorded_failure(error: str, elapsed_ms: float) -> None:
    """Raise what a recorded failure (the `x-lobrec-error` text) stands for, live and in replay."""
    kind, message = failure_kind(error), error.partition(": ")[2]
    if kind in _ANSWER_FAILURES:
        raise GatewayError(message)
    raise TransportFailure(error, elapsed_ms=elapsed_ms)

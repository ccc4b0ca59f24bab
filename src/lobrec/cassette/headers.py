"""The response headers of a cassette: which are kept, which lobrec adds, and how they read back.

vcrpy records neither how long an exchange took nor an attempt that got no response, so lobrec adds
them as headers of the recorded response:

- `x-lobrec-elapsed-ms`: the wall time the runner measured, network included;
- an attempt with no response (time-out, reset, a reply lobrec refused) is a pseudo-response with
  status 599 and the error in `x-lobrec-error`, so replay raises the same failure.

Live mode keeps no other header than `RECORDED_RESPONSE_HEADERS` (a header, its name as much as its
value, could carry the key or a cookie); replay and `lobrec audit` read them with the rules here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from lobrec.cassette.format import Body, RecordedResponse, Status

ELAPSED_HEADER = "x-lobrec-elapsed-ms"
ERROR_HEADER = "x-lobrec-error"
NO_RESPONSE_STATUS = 599
COST_HEADER = "x-lobstack-cost-usd"
DROPPED_PARAMS_HEADER = "x-lobstack-dropped-params"

RECORDED_REQUEST_HEADERS = frozenset({"content-type"})
"""The only request headers a cassette keeps: never Authorization, never anything carrying the key."""

RECORDED_RESPONSE_HEADERS = frozenset({"content-type", "retry-after", COST_HEADER, DROPPED_PARAMS_HEADER})
"""The only gateway response headers a cassette keeps: what replay and the reports read. lobrec's
own `x-lobrec-*` headers are never taken from a gateway: one sending `x-lobrec-error` would pass its
answer off as a transport failure. Older cassettes holding more headers replay as before."""

MAX_CALL_COST_USD = 1000.0
"""A cost header above this for one chat completion is not credible and counts as unpriced."""

MAX_ELAPSED_MS = 24 * 3600 * 1000.0
"""No exchange lobrec records lasts a day (a whole run does not); a larger recorded time is not a
duration but a number planted to overflow the sums built on it (`1e308` twice is `inf`)."""


def recorded_elapsed(headers: Mapping[str, list[str]]) -> float:
    """The recorded wall time (lobrec writes exactly one value; a response without one reads as 0);
    a cassette is untrusted, so anything but one finite number of milliseconds from 0 to a day
    raises ValueError (or IndexError for an empty list)."""
    values = headers.get(ELAPSED_HEADER, ["0"])
    if len(values) != 1:
        raise ValueError(f"{ELAPSED_HEADER} has {len(values)} values, not one")
    elapsed = float(values[0])
    if not math.isfinite(elapsed) or not 0 <= elapsed <= MAX_ELAPSED_MS:
        raise ValueError(f"{ELAPSED_HEADER} is {elapsed}, not a duration")
    return elapsed


def cost_usd(value: str | None) -> float | None:
    """A call's price from its cost header; None when absent or not a credible price."""
    if value is None:
        return None
    try:
        cost = float(value)
    except ValueError:
        return None
    # A price that is not a finite amount a call could cost is no price: `inf` or `1e308` would
    # overflow every sum and plot built on it.
    return cost if math.isfinite(cost) and 0 <= cost <= MAX_CALL_COST_USD else None


def is_no_response(status: int, headers: Mapping[str, list[str]]) -> bool:
    """lobrec's pseudo-response for "no answer": status 599 *and* lobrec's error header.

    A gateway may itself answer 599; that is an answer (recorded without the error header, which
    lobrec never copies from a gateway) and replays as one.
    """
    return status == NO_RESPONSE_STATUS and bool(headers.get(ERROR_HEADER))


def joined_headers(headers: Mapping[str, list[str]]) -> dict[str, str]:
    """Recorded headers (name to values) as the runner reads them: names lower-cased, values joined
    with ", " (as HTTP allows, and as httpx's `Headers.get` does)."""
    merged: dict[str, list[str]] = {}
    for name, values in headers.items():
        merged.setdefault(name.lower(), []).extend(values)
    return {name: ", ".join(values) for name, values in merged.items()}


def answered(
    status: int, message: str, headers: dict[str, list[str]], body: str, elapsed_ms: str
) -> RecordedResponse:
    """A recorded answer: the kept gateway headers, then lobrec's elapsed time."""
    return RecordedResponse(
        status=Status(code=status, message=message),
        headers={**headers, ELAPSED_HEADER: [elapsed_ms]},
        body=Body(string=body),
    )


def no_response(error: str, elapsed_ms: str) -> RecordedResponse:
    """The pseudo-response of an attempt that got no usable answer."""
    return RecordedResponse(
        status=Status(code=NO_RESPONSE_STATUS, message="no response"),
        headers={ELAPSED_HEADER: [elapsed_ms], ERROR_HEADER: [error]},
        body=Body(string=""),
    )

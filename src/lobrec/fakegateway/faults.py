"""Fault injection: which requests get which fault, decided by rules posted to the control API.

The book is plain state with no locking or sockets (the server locks around it and performs the
faults), so rule matching and counting are testable on their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec

from lobrec.fakegateway.completions import FakeReply

Fault = Literal[
    "400",
    "401",
    "403",
    "429",
    "500",
    "502",
    "503",
    "504",
    "hang",
    "reset",
    "truncate",
    "not_json",
    "not_completion",
    "huge",
]
STATUS_FAULTS: dict[str, int] = {
    "400": 400,
    "401": 401,
    "403": 403,
    "429": 429,
    "500": 500,
    "502": 502,
    "503": 503,
    "504": 504,
}


class FaultRule(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Which requests a rule applies to (null matches anything) and what the n-th one gets."""

    model: str | None = None
    case: str | None = None
    step: int | None = None
    faults: list[Fault] = []
    then: Fault | Literal["ok"] = "ok"
    hang_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 30.0
    huge_bytes: Annotated[int, msgspec.Meta(ge=0, le=1024**3)] = 8 * 1024 * 1024


class FaultRules(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    rules: list[FaultRule]


class FaultAction(msgspec.Struct, frozen=True, kw_only=True):
    """A fault chosen for one request, with its rule's parameters."""

    fault: Fault
    hang_seconds: float = 30.0
    huge_bytes: int = 8 * 1024 * 1024


_rules_decoder = msgspec.json.Decoder(FaultRules)


def decode_fault_rules(body: bytes) -> list[FaultRule]:
    """Decode a `POST /__fake__/faults` body; raises ValueError naming the JSON path."""
    try:
        return _rules_decoder.decode(body).rules
    except msgspec.ValidationError as exc:
        raise ValueError(f"fault rules: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ValueError(f"fault rules: not valid JSON: {exc}") from None


class FaultBook:
    """The fault rules and how many requests each has seen; not thread-safe (the server locks).

    For each request the first rule whose non-null fields match applies. Requests are counted per
    rule and per (model, case, step), so a burst replays for every step and model it matches.
    """

    def __init__(self) -> None:
        self._rules: list[FaultRule] = []
        self._seen: dict[tuple[int, str | None, str | None, int | None], int] = {}

    @property
    def rules(self) -> list[FaultRule]:
        return list(self._rules)

    def add(self, rules: Sequence[FaultRule]) -> None:
        self._rules.extend(rules)

    def clear(self) -> None:
        self._rules.clear()
        self._seen.clear()

    def take(self, model: str | None, case: str | None, step: int | None) -> FaultAction | None:
        """The fault for the next request with these coordinates, or None for the normal answer."""
        for index, rule in enumerate(self._rules):
            if rule.model is not None and rule.model != model:
                continue
            if rule.case is not None and rule.case != case:
                continue
            if rule.step is not None and rule.step != step:
                continue
            key = (index, model, case, step)
            count = self._seen.get(key, 0)
            self._seen[key] = count + 1
            chosen = rule.faults[count] if count < len(rule.faults) else rule.then
            if chosen == "ok":
                return None
            return FaultAction(fault=chosen, hang_seconds=rule.hang_seconds, huge_bytes=rule.huge_bytes)
        return None


def planned_status(fault: FaultAction | None, reply: FakeReply) -> int | None:
    """The status line a request gets under a fault (None: the connection is reset)."""
    if fault is None or fault.fault in ("hang", "truncate"):
        return reply.status
    if fault.fault == "reset":
        return None
    if fault.fault in STATUS_FAULTS:
        return STATUS_FAULTS[fault.fault]
    return 200


NOT_JSON_BODY = b"<html><body><h1>Lobstack</h1><p>upstream sent something unexpected</p></body></html>"
NOT_COMPLETION_BODY = b'{"ok":true}'

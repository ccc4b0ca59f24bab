"""Faults during a live run, one row each, through real loopback sockets; every row replays offline.

Rows marked `fake` are faults of the fake gateway process (`/__fake__/faults`); rows marked `raw`
are written by hand by `RawServer` (a reset mid-body, a trickling body, a gzip bomb, a Latin-1
header, a body that is not UTF-8, a redirect). For each row the test checks what the runner saw
(one status per attempt, None when no response), how many attempts the server saw, how long the
runner was told to sleep, the case's status and its whole reason, and that `rescore` of the recorded
cassette gives the identical results file: a fault is recorded, never lost.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lobrec.cassette.format import load_cassette_file
from lobrec.core.metrics.results import CaseResult, encode_results
from lobrec.running.gateway import Gateway
from lobrec.running.live import MAX_REPLY_BYTES
from lobrec.running.recording import RecordOptions, RecordOutcome, record_waiting_with
from lobrec.running.replay import rescore
from lobrec.running.runner import RetryPolicy
from lobrec.suite_file import load_suite
from tests.support.faults import (
    Behaviour,
    RawServer,
    bad_gzip,
    drip,
    gzip_bomb,
    gzip_bomb_body,
    latin1_header,
    not_utf8,
    redirect,
    reset_mid_body,
)

MODEL = "fixture/oracle"
MODEL_DIR = "fixture%2Foracle"
TIMEOUT_S = 0.4
DELAYS = (1.0, 2.0, 4.0)
SCORED = "scored"
ERRORED = "errored"
RETRYABLE = ("429", "502", "503", "504")
MESSAGES = {
    "400": "The request was rejected. (injected fault)",
    "500": "The gateway failed to process the request. (injected fault)",
}


@dataclass(frozen=True)
class Row:
    """One fault: where it comes from, what the runner must see, and how the case must end."""

    id: str
    statuses: list[int | None]
    status: str
    reason: str | None = None
    case: str = "sel-01"
    rule: dict[str, Any] | None = None
    """A fault rule for the fake gateway (its `case` is filled in)."""
    script: list[Behaviour] = field(default_factory=list)
    """Behaviours for RawServer, one per request."""
    sleeps: list[float] | None = None
    """The waits asked for; by default one per retried attempt, from the retry rule."""
    max_reply_bytes: int = MAX_REPLY_BYTES

    def expected_sleeps(self) -> list[float]:
        if self.sleeps is not None:
            return self.sleeps
        waits, attempt = [], 0
        for position, seen in enumerate(self.statuses):
            following = self.statuses[position + 1] if position + 1 < len(self.statuses) else "end"
            retried = (seen is None or seen in (429, 502, 503, 504)) and following != "end"
            waits += [DELAYS[attempt]] if retried else []
            attempt = attempt + 1 if retried else 0
        return waits


def _every(code: str) -> Row:
    return Row(
        id=f"{code} on every call",
        rule={"then": code},
        statuses=[int(code)] * 4,
        status=ERRORED,
        reason=f"step 1: the gateway answered {code} 4 times",
    )


def _some(code: str) -> Row:
    return Row(
        id=f"{code} on some calls (chain step 1 only)",
        case="chain-01",
        rule={"step": 1, "faults": [code]},
        statuses=[200, int(code), 200, 200],
        status=SCORED,
    )


def _burst_within(code: str) -> Row:
    return Row(
        id=f"{code} burst of 3 ends within the retries",
        rule={"faults": [code] * 3},
        statuses=[int(code)] * 3 + [200],
        status=SCORED,
    )


def _burst_beyond(code: str) -> Row:
    return Row(
        id=f"{code} burst of 4 outlasts the retries",
        rule={"faults": [code] * 4},
        statuses=[int(code)] * 4,
        status=ERRORED,
        reason=f"step 1: the gateway answered {code} 4 times",
    )


TIMED_OUT = f"Timeout: no complete answer within {TIMEOUT_S} seconds"

ROWS: list[Row] = [
    *(make(code) for make in (_every, _some, _burst_within, _burst_beyond) for code in RETRYABLE),
    Row(
        id="500 errors at once",
        rule={"faults": ["500"]},
        statuses=[500],
        status=ERRORED,
        reason=f"step 1: the gateway answered 500: {MESSAGES['500']}",
    ),
    Row(
        id="400 errors at once",
        rule={"faults": ["400"]},
        statuses=[400],
        status=ERRORED,
        reason=f"step 1: the gateway answered 400: {MESSAGES['400']}",
    ),
    Row(
        id="hang past the timeout, once",
        rule={"faults": ["hang"], "hang_seconds": 2},
        statuses=[None, 200],
        status=SCORED,
    ),
    Row(
        id="hang past the timeout, every call",
        rule={"then": "hang", "hang_seconds": 2},
        statuses=[None] * 4,
        status=ERRORED,
        reason=f"step 1: the request failed 4 times; last: {TIMED_OUT}",
    ),
    Row(id="reset before the response", rule={"faults": ["reset"]}, statuses=[None, 200], status=SCORED),
    Row(
        id="reset on every call",
        rule={"then": "reset"},
        statuses=[None] * 4,
        status=ERRORED,
        reason="step 1: the request failed 4 times; last: ReadError: no detail",
    ),
    Row(id="reset mid-body", script=[reset_mid_body], statuses=[None, 200], status=SCORED),
    Row(id="truncated body", rule={"faults": ["truncate"]}, statuses=[None, 200], status=SCORED),
    Row(
        id="truncated body on every call",
        rule={"then": "truncate"},
        statuses=[None] * 4,
        status=ERRORED,
        reason="step 1: the request failed 4 times; last: RemoteProtocolError: peer closed connection "
        "without sending complete message body (received 231 bytes, expected 462)",
    ),
    Row(
        id="body trickles in past the timeout",
        script=[drip(0.05)],
        statuses=[None, 200],
        status=SCORED,
    ),
    Row(
        id="200 body not JSON",
        rule={"faults": ["not_json"]},
        statuses=[200],
        status=ERRORED,
        reason="step 1: the gateway's 200 body is not JSON (84 bytes)",
    ),
    Row(
        id="200 body not a chat completion",
        rule={"faults": ["not_completion"]},
        statuses=[200],
        status=ERRORED,
        reason="step 1: the gateway's 200 body is not a chat completion (no choices)",
    ),
    Row(
        id="200 body not UTF-8",
        script=[not_utf8],
        statuses=[None],
        status=ERRORED,
        reason="step 1: the gateway's 200 body is not UTF-8 text",
    ),
    Row(
        id="reply over the cap",
        rule={"faults": ["huge"], "huge_bytes": 2 * 1024 * 1024},
        max_reply_bytes=1024 * 1024,
        statuses=[None],
        status=ERRORED,
        reason="step 1: the reply is over the 1048576-byte cap",
    ),
    Row(
        id="gzip bomb inflating over the cap",
        script=[gzip_bomb(2 * 1024 * 1024)],
        max_reply_bytes=1024 * 1024,
        statuses=[None],
        status=ERRORED,
        reason="step 1: the reply is over the 1048576-byte cap",
    ),
    Row(id="gzip body that does not inflate", script=[bad_gzip], statuses=[None, 200], status=SCORED),
    Row(id="Latin-1 response header", script=[latin1_header], statuses=[200], status=SCORED),
    Row(
        id="redirect is not followed",
        script=[redirect],
        statuses=[302],
        status=ERRORED,
        reason="step 1: the gateway answered 302: Found",
    ),
]


def record_one(
    gateway: Gateway, suite_path: Path, cassettes: Path, row: Row
) -> tuple[RecordOutcome, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    options = RecordOptions(
        models=[MODEL],
        cassettes=cassettes,
        case_ids=[row.case],
        policy=RetryPolicy(timeout_s=TIMEOUT_S),
        max_reply_bytes=row.max_reply_bytes,
    )
    return asyncio.run(record_waiting_with(sleep, load_suite(suite_path), gateway, options)), slept


def the_case(outcome: RecordOutcome, case_id: str) -> CaseResult:
    (model,) = outcome.run.models
    return next(case for case in model.cases if case.id == case_id)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_live_fault(fake_gateway: Any, raw_server: RawServer, tmp_path: Path, row: Row) -> None:
    cassettes = tmp_path / "cassettes"
    if row.rule is not None:
        fake_gateway.faults([{"model": MODEL, "case": row.case, **row.rule}])
        url = fake_gateway.url
    else:
        raw_server.script = list(row.script)
        url = raw_server.url
    outcome, slept = record_one(Gateway(base_url=url, api_key=None), fake_gateway.suite_path, cassettes, row)
    result = the_case(outcome, row.case)

    assert (result.status, result.reason) == (row.status, row.reason)
    assert [call.status for call in result.api_calls] == row.statuses
    assert slept == row.expected_sleeps()
    if row.rule is not None:
        seen = [entry for entry in fake_gateway.log() if entry["case"] == row.case]
    else:
        seen = raw_server.requests
    assert len(seen) == len(row.statuses), "the server saw exactly the attempts the runner recorded"

    # Nothing lost: the cassette holds every attempt, and replay gives the identical results file.
    cassette = load_cassette_file(cassettes / MODEL_DIR / f"{row.case}.json")
    assert len(cassette.interactions) == len(row.statuses)
    replayed = asyncio.run(rescore(load_suite(fake_gateway.suite_path), cassettes))
    assert encode_results(replayed.run) == encode_results(outcome.run)


# --- memory stays bounded ------------------------------------------------------------------------

BIG = 48 * 1024 * 1024


@pytest.mark.parametrize("source", ["fake", "gzip"], ids=["plain 48 MiB reply", "48 MiB gzip bomb"])
def test_a_huge_reply_is_errored_with_bounded_memory(
    fake_gateway: Any, raw_server: RawServer, tmp_path: Path, source: str
) -> None:
    """A 48 MiB reply (sent plainly, or as a 48 KiB gzip bomb) against the default 4 MiB cap:
    the case is errored and this process never holds more than twice the cap."""
    reason = f"step 1: the reply is over the {MAX_REPLY_BYTES}-byte cap"
    row = Row(id=source, statuses=[None], status=ERRORED, reason=reason)
    if source == "fake":
        fake_gateway.faults([{"model": MODEL, "case": "sel-01", "faults": ["huge"], "huge_bytes": BIG}])
        url = fake_gateway.url
    else:
        gzip_bomb_body(BIG)  # built (and cached) before measuring
        raw_server.script = [gzip_bomb(BIG)]
        url = raw_server.url
    tracemalloc.start()
    try:
        outcome, _ = record_one(
            Gateway(base_url=url, api_key=None), fake_gateway.suite_path, tmp_path / "c", row
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = the_case(outcome, "sel-01")
    assert (result.status, result.reason) == (ERRORED, reason)
    assert peak < 2 * MAX_REPLY_BYTES, f"peak {peak} bytes for a {BIG}-byte reply"

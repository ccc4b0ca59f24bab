"""The retry rule against a real fake-gateway process, one row per fault, each replayed offline.

Rule: retry only when the request did not complete or the gateway answered 429/502/503/504, at most
3 retries, 1, 2 and 4 seconds apart; any other answer is the model's result; a request that still
fails, or another error status, errors the case. Sleeps are recorded, never waited.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from lobrec.core.metrics.results import CaseResult, encode_results
from lobrec.running.gateway import resolve_gateway
from lobrec.running.recording import RecordOptions, record_waiting_with
from lobrec.running.replay import rescore
from lobrec.running.runner import RetryPolicy
from lobrec.suite_file import load_suite

ERRORED = "errored"
SCORED = "scored"

# (fault rule for case sel-01, statuses seen by the runner, sleeps, status, reason)
ROWS: list[tuple[dict[str, Any], list[int | None], list[float], str, str | None]] = [
    ({"faults": ["429", "429"]}, [429, 429, 200], [1.0, 2.0], SCORED, None),
    ({"faults": ["502", "503", "504"]}, [502, 503, 504, 200], [1.0, 2.0, 4.0], SCORED, None),
    (
        {"faults": [], "then": "429"},
        [429] * 4,
        [1.0, 2.0, 4.0],
        ERRORED,
        "step 1: the gateway answered 429 4 times",
    ),
    (
        {"faults": ["503", "503", "503", "503"]},
        [503] * 4,
        [1.0, 2.0, 4.0],
        ERRORED,
        "step 1: the gateway answered 503 4 times",
    ),
    ({"faults": ["500"]}, [500], [], ERRORED, "step 1: the gateway answered 500: "),
    ({"faults": ["400"]}, [400], [], ERRORED, "step 1: the gateway answered 400: "),
    ({"faults": ["reset"]}, [None, 200], [1.0], SCORED, None),
    ({"faults": ["truncate", "truncate"]}, [None, None, 200], [1.0, 2.0], SCORED, None),
    ({"faults": ["hang"], "hang_seconds": 3}, [None, 200], [1.0], SCORED, None),
    ({"faults": ["not_json"]}, [200], [], ERRORED, "step 1: the gateway's 200 body is not JSON"),
    (
        {"faults": ["not_completion"]},
        [200],
        [],
        ERRORED,
        "step 1: the gateway's 200 body is not a chat completion (no choices)",
    ),
    ({"faults": ["huge"]}, [None], [], ERRORED, "step 1: the reply is over the 1048576-byte cap"),
]


def run_record(gateway_url: str, suite_path: Path, cassettes: Path, sleeps: list[float]) -> Any:
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    options = RecordOptions(
        models=["fixture/oracle"],
        cassettes=cassettes,
        case_ids=["sel-01"],
        concurrency=4,
        policy=RetryPolicy(timeout_s=0.5),
        max_reply_bytes=1024 * 1024,
    )
    gateway = resolve_gateway(gateway_url, {})
    return asyncio.run(record_waiting_with(sleep, load_suite(suite_path), gateway, options))


def case_result(run: Any, case_id: str) -> CaseResult:
    (model,) = run.models
    return next(case for case in model.cases if case.id == case_id)


@pytest.mark.parametrize(
    ("rule", "statuses", "sleeps", "status", "reason"),
    ROWS,
    ids=[str(row[0]["faults"] or row[0].get("then")) for row in ROWS],
)
def test_retry_rule(
    fake_gateway: Any,
    tmp_path: Path,
    rule: dict[str, Any],
    statuses: list[int | None],
    sleeps: list[float],
    status: str,
    reason: str | None,
) -> None:
    fake_gateway.faults([{"model": "fixture/oracle", "case": "sel-01", **rule}])
    slept: list[float] = []
    outcome = run_record(fake_gateway.url, fake_gateway.suite_path, tmp_path / "cassettes", slept)
    result = case_result(outcome.run, "sel-01")

    assert [call.status for call in result.api_calls] == statuses
    assert slept == sleeps
    assert result.status == status
    if reason is None:
        assert result.reason is None
    else:
        assert result.reason is not None and result.reason.startswith(reason)
    seen = [entry for entry in fake_gateway.log() if entry["case"] == "sel-01"]
    assert len(seen) == len(statuses), "the gateway saw exactly the attempts the runner recorded"

    # Replay reproduces the case exactly, offline, without sleeping.
    replayed = asyncio.run(rescore(load_suite(fake_gateway.suite_path), tmp_path / "cassettes"))
    assert encode_results(replayed.run) == encode_results(outcome.run)

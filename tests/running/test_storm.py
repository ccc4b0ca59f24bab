"""A 429 storm across the whole suite at concurrency 16, and what concurrent recording must keep.

Every case gets a burst of retryable statuses on every step (429, 502, 503, 504 in turn), of length
`case index % 6`: bursts of 0 to 3 end within the retries, bursts of 4 and 5 outlast them. The run
must finish with every case scored or errored with its reason, the gateway must have seen exactly
`min(burst + 1, 4)` attempts per step the case reached, the runner must have asked for exactly the
retry rule's waits, and each of the concurrently recorded cassettes must hold its own case's
requests and no other's. Uses the real 80-case suite when `suite/suite.json` has it, else the small
e2e suite.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.manifest import load_manifest
from lobrec.core.metrics.results import CaseResult
from lobrec.core.suite.format import Suite
from lobrec.fakegateway import locate
from lobrec.running.gateway import Gateway
from lobrec.running.recording import RecordOptions, RecordOutcome, record_waiting_with
from lobrec.running.runner import Progress
from tests.support.faults import GatewayProcess

MODEL = "fixture/oracle"
MODEL_DIR = "fixture%2Foracle"
CONCURRENCY = 16
CODES = (429, 502, 503, 504)
DELAYS = (1.0, 2.0, 4.0)


def burst(index: int) -> int:
    return index % 6


def code(index: int) -> int:
    return CODES[index % len(CODES)]


class InFlight(Progress):
    """Counts cases in flight, to show the run really was concurrent."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0

    def started(self, model: str, case_id: str) -> None:
        self.running += 1
        self.peak = max(self.peak, self.running)

    def finished(self, model: str, result: CaseResult) -> None:
        self.running -= 1


@dataclass
class Storm:
    suite: Suite
    cassettes: Path
    outcome: RecordOutcome
    log: list[dict[str, Any]]
    slept: list[float]
    peak: int

    def result(self, case_id: str) -> CaseResult:
        (model,) = self.outcome.run.models
        return next(case for case in model.cases if case.id == case_id)


@pytest.fixture(scope="module")
def storm(whole_suite_gateway: GatewayProcess, tmp_path_factory: pytest.TempPathFactory) -> Storm:
    gateway = whole_suite_gateway
    gateway.reset()
    suite = gateway.suite
    gateway.faults(
        [
            {"model": MODEL, "case": case.id, "faults": [str(code(index))] * burst(index)}
            for index, case in enumerate(suite.cases)
            if burst(index)
        ]
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0.001)  # yield for real, so retries interleave with other cases

    cassettes = tmp_path_factory.mktemp("storm") / "cassettes"
    progress = InFlight()
    options = RecordOptions(models=[MODEL], cassettes=cassettes, concurrency=CONCURRENCY)
    gateway_ = Gateway(base_url=gateway.url, api_key=None)
    outcome = asyncio.run(record_waiting_with(sleep, suite, gateway_, options, progress))
    log = gateway.log()
    gateway.reset()
    return Storm(suite, cassettes, outcome, log, slept, progress.peak)


def test_every_case_is_scored_or_errored_with_its_reason(storm: Storm) -> None:
    (model,) = storm.outcome.run.models
    assert [case.id for case in model.cases] == [case.id for case in storm.suite.cases], "none dropped"
    assert not storm.outcome.interrupted
    for index, case in enumerate(storm.suite.cases):
        result = storm.result(case.id)
        if burst(index) >= 4:
            expected = ("errored", f"step 1: the gateway answered {code(index)} 4 times", False)
        else:
            expected = ("scored", None, True)
        assert (result.status, result.reason, result.passed) == expected, case.id
    errored = sum(1 for index in range(len(storm.suite.cases)) if burst(index) >= 4)
    assert (model.counts.errored, model.counts.scored) == (errored, len(storm.suite.cases) - errored)


def test_the_gateway_saw_exactly_the_retry_rule(storm: Storm) -> None:
    """Per case and step, from the gateway's own log: min(burst + 1, 4) attempts."""
    seen = Counter((entry["case"], entry["step"]) for entry in storm.log)
    expected: Counter[tuple[str, int]] = Counter()
    for index, case in enumerate(storm.suite.cases):
        steps = 1 if burst(index) >= 4 else len(case.steps)
        for step in range(steps):
            expected[(case.id, step)] = min(burst(index) + 1, 4)
    assert seen == expected
    assert all(entry["model"] == MODEL for entry in storm.log)


def test_the_runner_recorded_every_attempt_and_asked_for_the_rule_s_waits(storm: Storm) -> None:
    waits: list[float] = []
    for index, case in enumerate(storm.suite.cases):
        result = storm.result(case.id)
        b = burst(index)
        per_step = [code(index)] * 4 if b >= 4 else [code(index)] * b + [200]
        steps = 1 if b >= 4 else len(case.steps)
        assert [call.status for call in result.api_calls] == per_step * steps, case.id
        assert [call.step for call in result.api_calls] == [s for s in range(steps) for _ in per_step]
        waits += list(DELAYS[: min(b, 3)]) * steps
    assert sorted(storm.slept) == sorted(waits)


def test_concurrent_cases_give_one_correct_cassette_each(storm: Storm) -> None:
    """Recorded 16 at a time, each cassette holds only its own case's requests, one per attempt."""
    assert storm.peak == min(CONCURRENCY, len(storm.suite.cases))
    model_dir = storm.cassettes / MODEL_DIR
    manifest = load_manifest(model_dir)
    assert sorted(manifest.cases) == sorted(case.id for case in storm.suite.cases)
    attempts = Counter(entry["case"] for entry in storm.log)
    for case in storm.suite.cases:
        cassette = load_cassette_file(model_dir / f"{case.id}.json")
        located = [
            locate(storm.suite, json.loads(interaction.request.body or "{}")["messages"])
            for interaction in cassette.interactions
        ]
        assert {(where.case.id if where else None) for where in located} == {case.id}
        assert len(cassette.interactions) == attempts[case.id]
        assert len(cassette.interactions) == len(storm.result(case.id).api_calls)
    assert sorted(p.name for p in model_dir.iterdir()) == sorted(
        ["manifest.json", *(f"{case.id}.json" for case in storm.suite.cases)]
    )

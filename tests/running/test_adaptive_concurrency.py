"""Adaptive concurrency against a rate-limited fake gateway process (issue 15, items 1 and 2).

The gateway allows 40 requests a second (a bucket of 10) and lobrec may put 32 in flight: with a
fixed number in flight, 429s flood in; adapting, the window drops at the first 429s and climbs
back as calls succeed, and no case errors. The retry rule is the methodology's, only shortened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from lobrec.fakegateway import start_fake_gateway_process, stop_fake_gateway_process
from lobrec.running.gateway import resolve_gateway
from lobrec.running.recording import RecordOptions, RecordOutcome, record
from lobrec.running.runner import RetryPolicy
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE_PATH = ROOT / "suite" / "suite.json"
MODELS = ["fixture/oracle", "fixture/sloppy"]


@pytest.fixture(scope="module")
def limited_gateway() -> Iterator[str]:
    process, url = start_fake_gateway_process(SUITE_PATH, 100, rate_limit=40, rate_limit_burst=10)
    try:
        yield url
    finally:
        stop_fake_gateway_process(process)


def _record(url: str, root: Path, *, adaptive: bool) -> RecordOutcome:
    options = RecordOptions(
        models=MODELS,
        cassettes=root,
        concurrency=32,
        adaptive=adaptive,
        policy=RetryPolicy(timeout_s=10, delays_s=(0.5, 1.0, 2.0)),
    )
    return asyncio.run(record(load_suite(SUITE_PATH), resolve_gateway(url, {}), options))


def _errored(outcome: RecordOutcome) -> int:
    return sum(model.counts.errored for model in outcome.run.models)


def _throttled(outcome: RecordOutcome) -> int:
    return sum(
        1
        for model in outcome.run.models
        for case in model.cases
        for call in case.api_calls
        if call.status == 429
    )


@pytest.fixture(scope="module")
def adapted(limited_gateway: str, tmp_path_factory: pytest.TempPathFactory) -> RecordOutcome:
    return _record(limited_gateway, tmp_path_factory.mktemp("adaptive"), adaptive=True)


@pytest.mark.process
def test_adapting_goes_down_on_429_and_back_up_and_no_case_errors(adapted: RecordOutcome) -> None:
    assert _errored(adapted) == 0
    assert adapted.throttle is not None
    run = adapted.throttle.run
    assert _throttled(adapted) > 0, "the limit was reached, so adapting had something to do"
    assert run.cuts >= 1 and run.lowest <= 16, "the first 429s halved the window"
    assert run.size > run.lowest, "successes grew it back"
    for model in MODELS:
        assert adapted.throttle.window(model).cuts >= 1


@pytest.mark.process
def test_fixed_concurrency_takes_more_429s(
    limited_gateway: str, adapted: RecordOutcome, tmp_path: Path
) -> None:
    fixed = _record(limited_gateway, tmp_path, adaptive=False)
    assert fixed.throttle is not None and fixed.throttle.run.cuts == 0
    assert _throttled(fixed) > _throttled(adapted)

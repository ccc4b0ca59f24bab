"""`--max-cost` is a cap that holds: at concurrency 16 through the fake gateway (which prices every
answer), the run's recorded spend ends within one case's cost of the cap, because fewer cases start
as the spend nears it (the first case prices a case; then a case starts only while the spend plus
every case in flight, at the mean so far, stays within the cap)."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from lobrec.core.metrics.results import CaseResult
from lobrec.core.metrics.runs import runs_of
from lobrec.running.gateway import Gateway
from lobrec.running.recording import RecordOptions, record_waiting_with
from lobrec.running.runner import no_sleep
from lobrec.suite_file import load_suite
from tests.support.faults import whole_suite_gateway, whole_suite_path
from tests.support.gateway import FakeGatewayProcess

__all__ = ["whole_suite_gateway", "whole_suite_path"]  # module fixtures, used by name


def cost(case: CaseResult) -> float:
    return math.fsum(call.cost_usd for call in case.api_calls if call.cost_usd is not None)


@pytest.mark.parametrize("cases_worth", [1.5, 4, 10])
def test_the_spend_ends_within_one_case_of_the_cap_at_concurrency_16(
    whole_suite_gateway: FakeGatewayProcess, tmp_path: Path, cases_worth: float
) -> None:
    gateway = whole_suite_gateway
    gateway.reset()
    suite = load_suite(gateway.suite_path)
    # What a case costs here: the first case of the suite recorded alone.
    probe = RecordOptions(
        models=["fixture/oracle"], cassettes=tmp_path / "probe", case_ids=[suite.cases[0].id]
    )
    priced = asyncio.run(
        record_waiting_with(no_sleep, suite, Gateway(base_url=gateway.url, api_key=None), probe)
    )
    cap = cases_worth * priced.spent_usd
    assert cap > 0, "the fake gateway prices its answers"

    options = RecordOptions(
        models=["fixture/oracle"],
        cassettes=tmp_path / "cassettes",
        concurrency=16,
        max_cost_usd=cap,
    )
    outcome = asyncio.run(
        record_waiting_with(no_sleep, suite, Gateway(base_url=gateway.url, api_key=None), options)
    )
    recorded = [
        case
        for model in outcome.run.models
        for run in runs_of(model).runs
        for case in run.cases
        if case.id in outcome.recorded[model.model]
    ]
    dearest = max(cost(case) for case in recorded)
    assert outcome.not_started == len(suite.cases) - len(recorded) > 0
    assert math.isclose(outcome.spent_usd, math.fsum(cost(case) for case in recorded))
    assert cap - dearest <= outcome.spent_usd <= cap + dearest, (outcome.spent_usd, cap, dearest)

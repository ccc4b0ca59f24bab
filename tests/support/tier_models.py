"""Models for the tier and routing tests: a suite of no-call cases, each passed or failed at will."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import ApiCall, CaseResult, ModelResult, StepVerdict
from lobrec.core.suite.format import Case, Message, NoCallStep, Suite


def no_call_suite(size: int) -> Suite:
    cases = [
        Case(
            id=f"c{i:02d}",
            group="no_call",
            tools=[],
            messages=[Message(role="user", content="hi")],
            steps=[NoCallStep(answer="hello")],
        )
        for i in range(size)
    ]
    return Suite(name="tiers", version="1.0.0", system_prompt="", tools=[], cases=cases)


def _case(case_id: str, passed: bool) -> CaseResult:
    verdict = StepVerdict(
        index=0, expects="no_call", passed=passed, names_match=passed, expected_names=[], calls=[]
    )
    return CaseResult(id=case_id, group="no_call", status="scored", steps=[verdict])


def run_of(suite: Suite, name: str, failing: Sequence[int]) -> ModelResult:
    """One run of model `name` on `suite`, failing the cases at the given indexes."""
    cases = [_case(case.id, index not in failing) for index, case in enumerate(suite.cases)]
    return model_result(suite, name, cases, temperature_ignored=False)


def model_of(suite: Suite, name: str, *runs: Sequence[int]) -> ModelResult:
    """A model with one run per `failing` list (repeats when more than one)."""
    return combine_runs(suite, [run_of(suite, name, failing) for failing in runs])


def routed_run(
    suite: Suite,
    name: str,
    failing: Sequence[int],
    *,
    cost: float,
    latency: float,
    answered_by: Sequence[str] | None = None,
) -> ModelResult:
    """One run with one judged, priced call per case; `answered_by[i]` answers case i (default: name)."""
    cases = []
    for index, case in enumerate(suite.cases):
        who = name if answered_by is None else answered_by[index]
        call = ApiCall(
            step=0, attempt=0, status=200, latency_ms=latency, cost_usd=cost, judged=True, answered_by=who
        )
        result = _case(case.id, index not in failing)
        cases.append(msgspec.structs.replace(result, api_calls=[call]))
    return model_result(suite, name, cases, temperature_ignored=False)

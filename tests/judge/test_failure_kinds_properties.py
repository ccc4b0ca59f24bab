"""Failure kinds: every failed step gets exactly one kind of the closed set, passing steps none."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge.failures import FAILURE_KINDS, classify_step
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.results import CaseResult, StepVerdict
from tests.support.strategies import TOOL_NAMES, step_verdicts, suites_and_results


@given(step_verdicts, st.sets(st.sampled_from(TOOL_NAMES)))
def test_a_failed_step_has_one_kind_of_the_set_and_a_passing_one_none(
    verdict: StepVerdict, later: set[str]
) -> None:
    failure = classify_step(verdict, later)
    if verdict.passed:
        assert failure is None
    else:
        assert failure is not None and failure.kind in FAILURE_KINDS
        if failure.kind != "argument_check":
            assert failure.argument is None and failure.check is None


@given(step_verdicts)
def test_premature_needs_a_later_step_and_is_otherwise_extra_or_wrong(verdict: StepVerdict) -> None:
    alone = classify_step(verdict)
    assert alone is None or alone.kind != "premature_chain_call"
    in_chain = classify_step(verdict, set(TOOL_NAMES))
    if in_chain is not None and in_chain.kind == "premature_chain_call":
        assert alone is not None and alone.kind in ("extra_call", "wrong_tool")


@given(suites_and_results())
def test_a_models_failures_count_every_failed_step_of_its_scored_cases(
    drawn: tuple[object, list[CaseResult]],
) -> None:
    suite, cases = drawn
    entry = model_result(suite, "m", cases, temperature_ignored=False)  # type: ignore[arg-type]
    failed = sum(not step.passed for case in entry.cases if case.status == "scored" for step in case.steps)
    assert sum(entry.failures.values()) == failed
    assert list(entry.failures) == [kind for kind in FAILURE_KINDS if kind in entry.failures]
    for case in entry.cases:
        for step in case.steps:
            assert (step.failure_kind is not None) == (case.status == "scored" and not step.passed)

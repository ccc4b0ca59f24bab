"""How the failure kinds moved between two sides of a `diff`: `kind_changes` over random models.

Each side is one model of 1 to 3 runs, judged by `model_result` (which classifies every failed
step) and joined by `combine_runs`, so the counts are checked against the cases themselves.
"""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge.failures import FAILURE_KINDS, UNCLASSIFIED
from lobrec.core.metrics.compare import compare, kind_changes, model_failed_steps
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import CaseResult, ModelResult
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite
from tests.support.examples import costly
from tests.support.strategies import case_result, suites

ORDER = [*FAILURE_KINDS, UNCLASSIFIED]


@st.composite
def sides(draw: st.DrawFn) -> tuple[ModelResult, ModelResult]:
    """Two models on one suite, each recorded 1 to 3 times."""
    suite: Suite = draw(suites())

    def side(name: str) -> ModelResult:
        runs = []
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            chosen = draw(st.lists(st.sampled_from(suite.cases), unique_by=lambda case: case.id))
            cases = [draw(case_result(case)) for case in chosen]
            runs.append(model_result(suite, name, cases, temperature_ignored=False))
        return combine_runs(suite, runs)

    return side("a"), side("b")


def failed_steps(model: ModelResult) -> int:
    """Every failed step of a scored case, over every run: what the kind counts must add up to."""
    return sum(
        not step.passed
        for cases in runs_of(model).run_cases()
        for case in cases
        if case.status == "scored"
        for step in case.steps
    )


def without_kinds(model: ModelResult) -> ModelResult:
    """The model as a results file from before failure kinds holds it: no kind on any step."""

    def bare(case: CaseResult) -> CaseResult:
        steps = [msgspec.structs.replace(step, failure_kind=None) for step in case.steps]
        return msgspec.structs.replace(case, steps=steps)

    repeats = model.repeats
    if repeats is not None:
        per_run = [
            msgspec.structs.replace(entry, cases=[bare(case) for case in entry.cases])
            for entry in repeats.per_run
        ]
        repeats = msgspec.structs.replace(repeats, per_run=per_run)
    return msgspec.structs.replace(
        model, cases=[bare(case) for case in model.cases], repeats=repeats, failures={}
    )


@costly(2)
@given(sides())
def test_each_sides_counts_add_up_to_its_failed_steps(pair: tuple[ModelResult, ModelResult]) -> None:
    a, b = pair
    changes = kind_changes(a, b)
    assert sum(item.a for item in changes) == failed_steps(a)
    assert sum(item.b for item in changes) == failed_steps(b)
    for item in changes:
        assert item.change == item.b - item.a
        assert (item.a, item.b) != (0, 0)
    assert [item.kind for item in changes] == [kind for kind in ORDER if kind in {i.kind for i in changes}]
    # a freshly judged model has every failed step classified: its counts are its `failures`
    assert {item.kind: item.a for item in changes if item.a} == a.failures
    assert compare(a, b).kinds == changes


@costly(2)
@given(sides())
def test_swapping_the_sides_mirrors_the_changes(pair: tuple[ModelResult, ModelResult]) -> None:
    a, b = pair
    forward, backward = kind_changes(a, b), kind_changes(b, a)
    assert [(item.kind, item.a, item.b, -item.change) for item in forward] == [
        (item.kind, item.b, item.a, item.change) for item in backward
    ]


@costly(2)
@given(sides())
def test_a_side_without_kinds_counts_its_failed_steps_as_unclassified(
    pair: tuple[ModelResult, ModelResult],
) -> None:
    a, b = pair
    old = without_kinds(a)
    counts = model_failed_steps(old)
    assert counts == ({UNCLASSIFIED: failed_steps(a)} if failed_steps(a) else {})
    changes = kind_changes(old, b)
    assert sum(item.a for item in changes) == failed_steps(a)
    assert sum(item.b for item in changes) == failed_steps(b)

"""Properties of `lobrec.core.metrics.history` over random histories of random models."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cassette.manifest import suite_fingerprint
from lobrec.core.metrics.compare import SIGNIFICANCE, compare
from lobrec.core.metrics.history import build_history, restrict, step_scope
from lobrec.core.metrics.results import ModelResult, RunResult, SuiteRef
from lobrec.core.suite.format import Suite
from tests.support.strategies import suites
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(8)
REF = SuiteRef(name=SUITE.name, version=SUITE.version)
NAMES = ("a", "b", "c")

failing = st.lists(st.integers(0, 7), max_size=8, unique=True)
runs = st.lists(failing, min_size=1, max_size=3)
"""One model's runs: each the cases it fails (more than one run: repeats)."""


@st.composite
def files(draw: st.DrawFn) -> list[tuple[str, RunResult]]:
    """Two to four results files on one suite, each holding some of three models."""
    count = draw(st.integers(2, 4))
    out = []
    for index in range(count):
        names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
        models = [model_of(SUITE, name, *draw(runs)) for name in names]
        out.append((f"f{index}", RunResult(suite=REF, models=models)))
    return out


def _entry(run: RunResult, name: str) -> ModelResult:
    return next(model for model in run.models if model.model == name)


@given(files())
def test_each_model_steps_from_the_last_file_holding_it_with_compares_test(
    history_files: list[tuple[str, RunResult]],
) -> None:
    history = build_history(history_files)
    holding = {
        name: [
            index + 1
            for index, (_, run) in enumerate(history_files)
            if any(m.model == name for m in run.models)
        ]
        for name in NAMES
    }
    assert sorted(entry.model for entry in history.models) == sorted(name for name in NAMES if holding[name])
    for entry in history.models:
        assert [point.run for point in entry.points] == holding[entry.model]
        assert entry.points[0].step is None
        for previous, point in zip(entry.points, entry.points[1:], strict=False):
            step = point.step
            assert step is not None and step.since == previous.run
            expected = compare(
                _entry(history_files[previous.run - 1][1], entry.model),
                _entry(history_files[point.run - 1][1], entry.model),
            )
            assert (step.worse, step.better, step.cases, step.p_value) == (
                expected.b,
                expected.c,
                expected.paired,
                expected.p_value,
            )
            flagged = expected.paired > 0 and expected.p_value < SIGNIFICANCE
            assert (step.verdict != "none") == flagged
            if flagged:
                assert step.verdict == ("better" if expected.c > expected.b else "worse")


@given(runs, runs)
def test_reversing_two_files_swaps_better_and_worse_and_keeps_p(
    first: list[list[int]], second: list[list[int]]
) -> None:
    one = ("x", RunResult(suite=REF, models=[model_of(SUITE, "m", *first)]))
    two = ("y", RunResult(suite=REF, models=[model_of(SUITE, "m", *second)]))
    (forward,) = build_history([one, two]).models
    (backward,) = build_history([two, one]).models
    ahead, behind = forward.points[1].step, backward.points[1].step
    assert ahead is not None and behind is not None
    assert (ahead.worse, ahead.better, ahead.p_value) == (behind.better, behind.worse, behind.p_value)
    assert {ahead.verdict, behind.verdict} in ({"none"}, {"better", "worse"})


@given(runs)
def test_a_file_given_twice_is_never_a_real_step(model_runs: list[list[int]]) -> None:
    same = ("x", RunResult(suite=REF, models=[model_of(SUITE, "m", *model_runs)]))
    (entry,) = build_history([same, same]).models
    step = entry.points[1].step
    assert step is not None
    assert (step.verdict, step.worse, step.better, step.delta in (None, 0.0)) == ("none", 0, 0, True)


@given(runs, runs)
def test_restricting_to_every_case_changes_no_comparison(
    first: list[list[int]], second: list[list[int]]
) -> None:
    a, b = model_of(SUITE, "m", *first), model_of(SUITE, "m", *second)
    every = frozenset(case.id for case in SUITE.cases)
    assert compare(restrict(a, every), restrict(b, every)) == compare(a, b)


@given(suites(), st.data())
def test_a_step_across_versions_compares_exactly_the_cases_whose_checks_held(
    suite: Suite, data: st.DataObject
) -> None:
    changed = data.draw(st.sets(st.sampled_from([case.id for case in suite.cases])))
    cases = [
        msgspec.structs.replace(case, group="parallel" if case.group != "parallel" else "chains")
        if case.id in changed
        else case
        for case in suite.cases
    ]
    newer = msgspec.structs.replace(suite, version="1.1.0", cases=cases)
    known = [(suite_fingerprint(s), s) for s in (suite, newer)]
    scope = step_scope(
        SuiteRef(name=suite.name, version="1.0.0"), SuiteRef(name=suite.name, version="1.1.0"), known
    )
    every = {case.id for case in suite.cases}
    if changed == every:
        assert not scope.comparable
    else:
        assert scope.comparable and scope.cases == frozenset(every - changed)
        assert scope.left_out == len(changed)

"""Properties of the one view of a model's runs (`lobrec.core.metrics.runs.runs_of`): it agrees with the
top-level fields for a model recorded once, and with `repeats` for a model recorded K times."""

from __future__ import annotations

from pathlib import Path

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.rates import model_result, rate
from lobrec.core.metrics.repeats import combine_runs, run_outcome
from lobrec.core.metrics.results import ModelResult, Repeats, RunResult, decode_results, encode_results
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite
from tests.support.strategies import case_result, suites


@st.composite
def recorded(draw: st.DrawFn, k: st.SearchStrategy[int]) -> tuple[Suite, list[ModelResult], ModelResult]:
    """A suite, a model's runs judged alone, and its entry combined from them (`combine_runs`)."""
    suite = draw(suites())
    count = draw(k)
    runs = []
    for _ in range(count):
        chosen = draw(st.lists(st.sampled_from(suite.cases), unique_by=lambda case: case.id))
        runs.append(model_result(suite, "m", [draw(case_result(case)) for case in chosen], False))
    return suite, runs, combine_runs(suite, runs)


@given(recorded(st.just(1)))
def test_the_view_of_one_run_agrees_with_the_top_level_fields(
    data: tuple[Suite, list[ModelResult], ModelResult],
) -> None:
    _, _, model = data
    view = runs_of(model)
    assert model.repeats is None and view.k == 1 and not view.repeated
    (run,) = view.runs
    assert run.run == 1 and run.cases == model.cases and run.metrics == model.metrics
    assert (run.counts, run.has_scores) == (model.counts, model.has_scores)
    assert run.temperature_ignored == model.temperature_ignored
    assert [case.id for case in view.cases] == [case.id for case in model.cases]
    for entry, case in zip(view.cases, model.cases, strict=True):
        assert entry.outcomes == [run_outcome(case)]
        assert (entry.passes, entry.scored) == (int(case.passed), int(case.status == "scored"))
    scored = [case for case in model.cases if case.status == "scored"]
    assert view.pass_hat_k == view.pass_at_k == rate(sum(case.passed for case in scored), len(scored))
    assert view.flaky == []
    assert view.spread["overall"].mean == (model.metrics.overall.rate if model.has_scores else None)
    assert all(figure.sd is None for figure in view.spread.values())
    assert view.pass_rates() == {case.id: (int(case.passed), 1) for case in scored}
    assert view.by_case() == [(entry, [case]) for entry, case in zip(view.cases, model.cases, strict=True)]


@given(recorded(st.integers(min_value=2, max_value=4)))
def test_the_view_of_k_runs_agrees_with_repeats_and_with_each_run(
    data: tuple[Suite, list[ModelResult], ModelResult],
) -> None:
    _, runs, model = data
    repeats = model.repeats
    assert repeats is not None
    view = runs_of(model)
    assert view.k == repeats.runs == len(runs) and view.repeated
    assert [run.run for run in view.runs] == [entry.run for entry in repeats.per_run]
    assert view.run_cases() == [run.cases for run in runs]
    assert view.runs[0].cases == model.cases
    for mine, per_run, alone in zip(view.runs, repeats.per_run, runs, strict=True):
        assert (mine.metrics, mine.counts, mine.has_scores) == (
            per_run.metrics,
            per_run.counts,
            per_run.has_scores,
        )
        assert mine.metrics == alone.metrics
    assert view.cases == repeats.cases and view.flaky == repeats.flaky
    assert (view.pass_hat_k, view.pass_at_k, view.spread) == (
        repeats.pass_hat_k,
        repeats.pass_at_k,
        repeats.spread,
    )
    assert view.pass_rates() == {case.id: (case.passes, case.scored) for case in repeats.cases if case.scored}
    for entry, results in view.by_case():
        assert len(results) == view.k
        outcomes = [run_outcome(case) if case is not None else "unrecorded" for case in results]
        assert outcomes == entry.outcomes


@given(recorded(st.integers(min_value=1, max_value=3)))
def test_the_view_is_the_same_read_back_from_the_results_file(
    data: tuple[Suite, list[ModelResult], ModelResult],
) -> None:
    _, _, model = data
    run = RunResult(suite=model.suite, models=[model])
    (again,) = decode_results(encode_results(run)).models
    assert runs_of(again) == runs_of(model)


def test_the_committed_results_read_as_their_runs() -> None:
    run = decode_results((Path(__file__).parents[2] / "fixtures" / "expected-results.json").read_bytes())
    repeated = {model.model for model in run.models if model.repeats is not None}
    assert repeated == {"fixture/flaky"}  # the fixture holds both shapes
    for model in run.models:
        view = runs_of(model)
        assert view.repeated == (model.model in repeated) and view.run_cases()[0] == model.cases
        if model.repeats is None:
            assert (view.k, view.flaky) == (1, [])
        else:
            assert (view.k, view.flaky) == (model.repeats.runs, model.repeats.flaky) and view.flaky


def test_a_repeats_section_listing_no_run_reads_as_run_one_alone() -> None:
    suite = Suite(name="s", version="1.0.0", system_prompt="", tools=[], cases=[])
    model = model_result(suite, "m", [], False)
    empty = Repeats(
        runs=2,
        per_run=[],
        spread={},
        pass_hat_k=rate(0, 0),
        pass_at_k=rate(0, 0),
        flaky=[],
        cases=[],
    )
    view = runs_of(msgspec.structs.replace(model, repeats=empty))
    assert view == runs_of(model) and view.k == 1

"""The one verdict of a case over its runs (`lobrec.core.metrics.repeats.case_verdict`): the worst run wins,
flaky when judged runs disagree, and the order of the runs never matters."""

from __future__ import annotations

from typing import get_args

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.repeats import (
    CaseVerdict,
    case_runs,
    case_verdict,
    flaky,
    run_outcome,
    run_verdict,
    scored_verdict,
)
from lobrec.core.metrics.results import CaseResult, RunOutcome, StepVerdict

OUTCOMES: tuple[RunOutcome, ...] = get_args(RunOutcome)

outcome_lists = st.lists(st.sampled_from(OUTCOMES), max_size=8)

WORST_FIRST: tuple[CaseVerdict, ...] = ("flaky", "fail", "errored", "stale", "unrecorded", "pass", "missing")
"""The verdicts from worst to best, as docs/reports.md orders them (flaky and fail come first: a
failed judged run outweighs a run that was not judged)."""

ALONE: dict[RunOutcome, CaseVerdict] = {
    "passed": "pass",
    "failed": "fail",
    "errored": "errored",
    "stale": "stale",
    "unrecorded": "unrecorded",
}
"""One run's outcome as a verdict: the only translation between the two spellings."""


@given(outcome_lists)
def test_the_verdict_is_the_worst_of_the_runs_verdicts(outcomes: list[RunOutcome]) -> None:
    """Written here the slow way: each run's own verdict, the worst of them, and flaky when a
    judged run passed and another failed."""
    verdict = case_verdict(outcomes)
    alone = [ALONE[outcome] for outcome in outcomes]
    if "pass" in alone and "fail" in alone:
        assert verdict == "flaky"
    else:
        assert verdict == min([*alone, "missing"], key=WORST_FIRST.index)


@given(outcome_lists, st.randoms(use_true_random=False))
def test_the_order_of_the_runs_does_not_change_the_verdict(
    outcomes: list[RunOutcome], random: object
) -> None:
    shuffled = list(outcomes)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    assert case_verdict(shuffled) == case_verdict(outcomes)


@given(outcome_lists, st.sampled_from(OUTCOMES))
def test_another_run_never_makes_a_verdict_better(outcomes: list[RunOutcome], more: RunOutcome) -> None:
    """Except that a pass after fails makes a fail flaky: it is still not a pass."""
    before, after = case_verdict(outcomes), case_verdict([*outcomes, more])
    if before == "fail" and after == "flaky":
        return
    assert WORST_FIRST.index(after) <= WORST_FIRST.index(before)


@st.composite
def runs_of_cases(draw: st.DrawFn) -> list[list[CaseResult]]:
    """1..4 runs, each holding some of three cases, each scored (passed or not) or not judged."""
    runs = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        ids = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True))
        runs.append([one_run(case_id, draw(st.sampled_from(OUTCOMES))) for case_id in ids])
    return runs


def one_run(case_id: str, outcome: RunOutcome) -> CaseResult:
    """A case whose one run ends with `outcome`."""
    if outcome not in ("passed", "failed"):
        return CaseResult(id=case_id, group="selection", status=outcome)
    step = StepVerdict(
        index=0, expects="call", passed=outcome == "passed", names_match=True, expected_names=[], calls=[]
    )
    return CaseResult(id=case_id, group="selection", status="scored", steps=[step])


@given(runs_of_cases())
def test_the_flaky_cases_are_those_whose_verdict_is_flaky(runs: list[list[CaseResult]]) -> None:
    per_case = case_runs(runs)
    assert flaky(per_case) == [case.id for case in per_case if case_verdict(case.outcomes) == "flaky"]
    for case in per_case:
        outcome = case_verdict(case.outcomes)
        if case.scored and "failed" in case.outcomes:
            assert outcome == scored_verdict(case.passes, case.scored)


@given(st.sampled_from(OUTCOMES))
def test_one_runs_verdict_is_its_outcome_in_the_verdicts_spelling(outcome: RunOutcome) -> None:
    result = one_run("a", outcome)
    assert run_outcome(result) == outcome
    assert run_verdict(result) == ALONE[outcome]
    assert run_verdict(None) == "missing"


@given(st.integers(min_value=1, max_value=50), st.data())
def test_a_tally_of_judged_runs_gives_pass_fail_or_flaky(scored: int, data: st.DataObject) -> None:
    passes = data.draw(st.integers(min_value=0, max_value=scored))
    outcomes: list[RunOutcome] = ["passed"] * passes + ["failed"] * (scored - passes)
    assert scored_verdict(passes, scored) == case_verdict(outcomes)


def test_every_verdict_is_reachable_and_spelt_once() -> None:
    reached = {
        case_verdict(list(outcomes)) for outcomes in ([], *([o] for o in OUTCOMES), ["passed", "failed"])
    }
    assert reached == set(get_args(CaseVerdict)) == set(WORST_FIRST)

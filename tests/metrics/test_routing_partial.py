"""Routing on partial evidence: a case Nex answered with a candidate the run does not hold is left out
of every figure (Nex, each candidate, direct, oracle), so every row counts the same cases, the oracle
never scores below Nex's own choices, and the run says how many cases it left out."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.results import ModelResult, Routing
from lobrec.core.metrics.routing import routing
from lobrec.reports.insight import routing_rows
from tests.support.tier_models import no_call_suite, routed_run

SIZE = 8
SUITE = no_call_suite(SIZE)
NAMES = ("fake/alpha", "fake/beta")


def _setting(
    choices: list[int], fails: list[set[int]], recorded: list[bool]
) -> tuple[ModelResult, list[ModelResult]]:
    """Nex answers case i with candidate choices[i] and does exactly as that candidate does there."""
    models = [
        routed_run(SUITE, name, sorted(fails[index]), cost=0.001 * (index + 1), latency=100)
        for index, name in enumerate(NAMES)
    ]
    nex_fails = [i for i in range(SIZE) if i in fails[choices[i]]]
    answered = [NAMES[choice] for choice in choices]
    auto = routed_run(SUITE, "auto", nex_fails, cost=0.002, latency=50, answered_by=answered)
    held = [model for model, kept in zip(models, recorded, strict=True) if kept]
    return auto, held


@given(
    choices=st.lists(st.integers(0, 1), min_size=SIZE, max_size=SIZE),
    fails=st.lists(st.sets(st.integers(0, SIZE - 1)), min_size=2, max_size=2),
    recorded=st.sampled_from([[True, False], [False, True], [True, True]]),
)
def test_every_figure_counts_only_cases_answered_by_recorded_candidates(
    choices: list[int], fails: list[set[int]], recorded: list[bool]
) -> None:
    auto, held = _setting(choices, fails, recorded)
    found = routing(SUITE, auto, [auto, *held])
    assert found is not None
    if not found.recorded:  # Nex chose only the candidate not recorded: nothing to compare, no run
        assert found.runs == []
        return
    (run,) = found.runs
    unheld = sum(not recorded[choice] for choice in choices)
    assert (run.cases, run.unrecorded_cases) == (SIZE - unheld, unheld)
    figures = [run.nex, *run.candidates, run.direct, run.oracle]
    assert {figure.overall.total for figure in figures} == {run.cases}
    # Nex does as its choice does, and the oracle may pick that choice: it never scores below Nex.
    assert run.regret is None or run.regret >= 0


def test_an_unrecorded_candidate_makes_the_run_partial_and_says_so() -> None:
    """alpha fails c00, c01, c04 and c05, beta none; Nex sends c00-c03 to alpha, c04-c07 to beta (not
    recorded), so it passes 6/8. Over all eight, the oracle could only pick alpha (4/8): a regret of
    -25 pp, an oracle below Nex. Over the four alpha answered: Nex 2/4, oracle 2/4, four left out."""
    auto, held = _setting([0, 0, 0, 0, 1, 1, 1, 1], [{0, 1, 4, 5}, set()], [True, False])
    found = routing(SUITE, auto, [auto, *held])
    assert found is not None
    (run,) = found.runs
    assert (run.cases, run.unrecorded_cases, run.regret) == (4, 4, 0.0)
    assert (run.nex.overall.passed, run.oracle.overall.passed) == (2, 2)
    ((heading, rows),) = routing_rows(found_model(auto, found))
    assert heading.startswith("run 1, partial: 4 cases scored for Nex and every recorded candidate")
    assert "(4 more cases answered with a candidate not recorded, left out of every figure)" in heading
    assert heading.endswith("routing regret 0.0 pp over those 4")
    assert [row[2] for row in rows] == ["2/4"] * 4  # Nex, alpha, direct, oracle: one denominator


def test_a_complete_run_is_not_called_partial() -> None:
    auto, held = _setting([0, 1] * 4, [{0}, {1}], [True, True])
    found = routing(SUITE, auto, [auto, *held])
    assert found is not None and found.runs[0].unrecorded_cases == 0
    ((heading, _),) = routing_rows(found_model(auto, found))
    assert heading.startswith("run 1: 8 cases scored") and "partial" not in heading


def found_model(auto: ModelResult, found: Routing) -> ModelResult:
    return msgspec.structs.replace(auto, routing=found)

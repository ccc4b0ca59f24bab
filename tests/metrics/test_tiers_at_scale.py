"""Tiers from per-model outcome bitsets equal tiers from a full `compare` of every pair.

`lobrec.core.metrics.tiers` builds each model's outcomes once and reads a pair's discordant counts from two
bitsets; Holm's step runs over the counts of each distinct p-value. The reference here is the
method it replaced, written out: `compare(a, b).p_value` for every pair in rank order, Holm's
step-down over the sorted list, and the leader rule. They must agree exactly on any run: repeats of
any K, cases missing from some runs, errored cases, and models with no score at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.compare import SIGNIFICANCE, compare
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import CaseResult, ModelResult, StepVerdict
from lobrec.core.metrics.tiers import discordant, holm, outcome_vectors, pair_tests, ranked, tiers
from tests.support.tier_models import no_call_suite

SUITE = no_call_suite(10)
OUTCOMES = ("passed", "failed", "errored", "absent")


def _reference_holm(p_values: Sequence[float]) -> list[float]:
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _reference_pairs(models: Sequence[ModelResult]) -> list[tuple[str, str, float, float]]:
    order = ranked(models)
    pairs = [(a.model, b.model, compare(a, b).p_value) for a, b in combinations(order, 2)]
    adjusted = _reference_holm([p for _, _, p in pairs])
    return [(a, b, p, q) for (a, b, p), q in zip(pairs, adjusted, strict=True)]


def _reference_tiers(models: Sequence[ModelResult]) -> dict[str, int]:
    tests = {(a, b): q for a, b, _, q in _reference_pairs(models)}
    found: dict[str, int] = {}
    leader: str | None = None
    tier = 0
    for model in ranked(models):
        if leader is None or tests[leader, model.model] < SIGNIFICANCE:
            tier += 1
            leader = model.model
        found[model.model] = tier
    return found


def _case(case_id: str, outcome: str) -> CaseResult:
    if outcome == "errored":
        return CaseResult(id=case_id, group="no_call", status="errored", reason="HTTP 500")
    passed = outcome == "passed"
    verdict = StepVerdict(
        index=0, expects="no_call", passed=passed, names_match=passed, expected_names=[], calls=[]
    )
    return CaseResult(id=case_id, group="no_call", status="scored", steps=[verdict])


def _model(name: str, runs: list[list[str]]) -> ModelResult:
    judged = []
    for outcomes in runs:
        cases = [
            _case(case.id, outcome)
            for case, outcome in zip(SUITE.cases, outcomes, strict=True)
            if outcome != "absent"
        ]
        judged.append(model_result(SUITE, name, cases, temperature_ignored=False))
    return combine_runs(SUITE, judged)


# Mostly passed and failed (so tests have discordant cases to count), now and then errored or absent.
_outcome = st.sampled_from(OUTCOMES[:2] * 4 + OUTCOMES[2:])
_run = st.lists(_outcome, min_size=len(SUITE.cases), max_size=len(SUITE.cases))
_models = st.lists(st.lists(_run, min_size=1, max_size=3), min_size=1, max_size=7)


@given(_models, st.data())
def test_tiers_from_bitsets_equal_tiers_from_every_full_comparison(
    runs: list[list[list[str]]], data: st.DataObject
) -> None:
    models = [_model(f"m{index}", model_runs) for index, model_runs in enumerate(runs)]
    copy = data.draw(st.sampled_from(runs))  # a copy under another name: equal p-values, ties in Holm
    models.append(_model("copy", copy))
    found = [(test.a, test.b, test.p_value, test.adjusted) for test in pair_tests(models)]
    assert found == _reference_pairs(models)
    assert tiers(models) == _reference_tiers(models)


@given(_models)
def test_a_pairs_discordant_counts_are_compares(runs: list[list[list[str]]]) -> None:
    models = [_model(f"m{index}", model_runs) for index, model_runs in enumerate(runs)]
    vectors = outcome_vectors(models)
    for (a, va), (b, vb) in combinations(zip(models, vectors, strict=True), 2):
        comparison = compare(a, b)
        assert discordant(va, vb) == (comparison.b, comparison.c)


@given(st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.03125, 0.5, 1.0]) | st.floats(0, 1), max_size=40))
def test_holm_by_distinct_value_equals_the_sorted_step_down(p_values: list[float]) -> None:
    assert holm(p_values) == _reference_holm(p_values)


def test_a_case_missing_from_run_1_is_not_paired_even_when_later_runs_score_it() -> None:
    # compare pairs run 1's cases only: case 0 is absent from B's run 1, so B's pass of it in run 2
    # is not counted, and A-B has one discordant case (case 1), not two.
    a = _model("A", [["failed", "failed"] + ["passed"] * 8])
    b = _model("B", [["absent", "passed"] + ["passed"] * 8, ["passed", "passed"] + ["passed"] * 8])
    (va, vb) = outcome_vectors([a, b])
    assert discordant(va, vb) == (0, 1) == (compare(a, b).b, compare(a, b).c)

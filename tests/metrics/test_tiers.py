"""Tiers and resolution on examples worked out by hand (docs/metrics.md, "Tiers")."""

from __future__ import annotations

import math

import pytest

from lobrec.core.metrics.tiers import holm, min_difference, pair_tests, power, run_resolution, tiers
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(20)


def test_the_worked_example_of_docs_metrics() -> None:
    # A passes all 20, B fails 2, C fails 8, D fails 9 (each failing a prefix of the cases).
    models = [
        model_of(SUITE, "A", []),
        model_of(SUITE, "B", range(2)),
        model_of(SUITE, "C", range(8)),
        model_of(SUITE, "D", range(9)),
    ]
    # Raw exact McNemar: all discordance one way, so p = 2 / 2^d.
    # A-B d=2: 0.5; A-C d=8: 2/256; A-D d=9: 2/512; B-C d=6: 2/64; B-D d=7: 2/128; C-D d=1: 1.
    # Holm over 6 pairs, smallest first: A-D x6, A-C x5, B-D x4, B-C x3, A-B x2, C-D x1.
    expected = {
        ("A", "B"): (0.5, 1.0),
        ("A", "C"): (2 / 256, 5 * 2 / 256),
        ("A", "D"): (2 / 512, 6 * 2 / 512),
        ("B", "C"): (2 / 64, 3 * 2 / 64),
        ("B", "D"): (2 / 128, 4 * 2 / 128),
        ("C", "D"): (1.0, 1.0),
    }
    found = {(t.a, t.b): (t.p_value, t.adjusted) for t in pair_tests(models)}
    assert found == expected  # powers of two: exact
    # A leads tier 1; B is not told apart from A (adjusted 1.0); C is (0.039): it leads tier 2; D
    # is not told apart from C. B-C (raw 0.031) would split without the correction; it is not used.
    assert tiers(models) == {"A": 1, "B": 1, "C": 2, "D": 2}


def test_the_correction_for_multiple_comparisons_merges_a_tier() -> None:
    # A passes all, B and C fail the same 6: A-B and A-C raw p = 2/64 = 0.03125 (significant alone);
    # Holm over 3 pairs: 0.03125 x 3 = 0.09375 and max(0.09375, 0.03125 x 2): no longer significant.
    models = [model_of(SUITE, "A", []), model_of(SUITE, "B", range(6)), model_of(SUITE, "C", range(6))]
    assert [t.adjusted for t in pair_tests(models)] == [0.09375, 0.09375, 1.0]
    assert tiers(models) == {"A": 1, "B": 1, "C": 1}
    # Without C there is one pair: no correction, and B is a tier below A.
    assert tiers(models[:2]) == {"A": 1, "B": 2}


def test_a_model_without_scores_has_no_tier() -> None:
    empty = model_of(no_call_suite(0), "E", [])
    assert tiers([empty, model_of(SUITE, "A", [])]) == {"A": 1}


def test_repeats_use_the_sign_test_on_pass_rates() -> None:
    # R passes all in run 1 and fails cases 0..6 in runs 2 and 3 (mean 76.7%); A passes all.
    # Sign test: 7 cases lower in R, none higher: p = 2/128 = 0.015625 (one pair, no correction).
    models = [model_of(SUITE, "A", []), model_of(SUITE, "R", [], range(7), range(7))]
    (test,) = pair_tests(models)
    assert (test.p_value, test.adjusted) == (0.015625, 0.015625)
    assert tiers(models) == {"A": 1, "R": 2}


def test_holm_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([]) == []


def _brute_power_without_flips(n: int, difference: float) -> float:
    """No flips: every discordant case is B-only, and the exact test rejects at c >= 6."""
    return sum(math.comb(n, c) * difference**c * (1 - difference) ** (n - c) for c in range(6, n + 1))


def test_resolution_without_flips_by_hand() -> None:
    # With no flips b = 0, p = 2 / 2^c, which is below 0.05 from c = 6 on: the power is P(C >= 6)
    # for C ~ Binomial(20, d). P(C >= 6) reaches 0.8 between d = 0.366 and 0.367: 36.7 pp, rounded up.
    assert _brute_power_without_flips(20, 0.366) < 0.8 < _brute_power_without_flips(20, 0.367)
    assert power(20, 0.0, 0.366) == pytest.approx(_brute_power_without_flips(20, 0.366))
    assert min_difference(20, 0.0) == 36.7


def test_flips_widen_the_resolution() -> None:
    assert min_difference(80, 0.0) == 9.8
    assert min_difference(80, 0.1) == 16.5
    assert min_difference(5, 0.0) is None  # 5 cases can never reach p < 0.05


def test_the_run_resolution_counts_flips_between_runs() -> None:
    # R flips cases 0..6 between run 1 and runs 2 and 3: pairs (1,2) and (1,3) differ on 7 of 20
    # cases each, (2,3) on none: 14 flips in 60 comparisons = 23.3333%.
    models = [model_of(SUITE, "A", []), model_of(SUITE, "R", [], range(7), range(7))]
    resolution = run_resolution(models)
    assert resolution is not None
    assert (resolution.cases, resolution.flip_rate, resolution.repeated) == (20, 23.3333, True)
    assert resolution.min_difference == min_difference(20, 14 / 60)
    plain = run_resolution([models[0]])
    assert plain is not None and (plain.flip_rate, plain.repeated, plain.min_difference) == (0.0, False, 36.7)


def test_diff_says_whether_the_observed_difference_is_above_the_resolution() -> None:
    from lobrec.core.metrics.compare import compare
    from lobrec.core.metrics.tiers import with_resolution
    from lobrec.reports.insight import resolution_sentence

    a, b = model_of(SUITE, "A", []), model_of(SUITE, "B", range(8))
    # 8 discordant cases all one way: the two-way disagreement is 0, no repeats: 36.7 pp on 20 cases.
    found = with_resolution(compare(a, b), a, b)
    assert found.resolution is not None and found.resolution.min_difference == 36.7
    assert found.resolved is True  # -40 pp
    assert resolution_sentence(found.resolution, -40.0) == (
        "On 20 cases, with 0.0% of them flipping either way (no repeats: a best case), the smallest overall "
        "difference resolved at 5% with 80% power is 36.7 pp; the observed difference (-40.0 pp) is above it."
    )
    # B fails 0..3 and passes nothing A fails, C fails 0..1 and 4..5: b = 2, c = 2 two-way of 20 = 20%.
    c = model_of(SUITE, "C", [0, 1, 4, 5])
    d = model_of(SUITE, "D", range(4))
    pair = with_resolution(compare(c, d), c, d)
    assert pair.resolution is not None and pair.resolution.flip_rate == 20.0
    assert pair.resolved is False


@pytest.mark.parametrize("flip", [0.0, 0.05, 0.2])
def test_above_the_exact_limit_connors_approximation_is_within_a_few_tenths(flip: float) -> None:
    from lobrec.core.metrics import tiers as module

    exact = min_difference(module.EXACT_UP_TO, flip)
    approximate = min_difference(module.EXACT_UP_TO + 1, flip)
    assert exact is not None and approximate is not None
    assert abs(exact - approximate) <= 0.4


def test_the_resolution_and_kinds_count_one_in_the_singular() -> None:
    """The red team's "On 1 cases" (the diff page of a one-case side) and "1 failed steps"."""
    import msgspec

    from lobrec.core.metrics.results import Resolution
    from lobrec.reports.insight import kinds_text, resolution_sentence

    one = Resolution(alpha=0.05, power=0.8, cases=1, flip_rate=0.0, repeated=False, min_difference=None)
    assert resolution_sentence(one).startswith("On 1 case, with 0.0% of them")
    model = msgspec.structs.replace(model_of(SUITE, "A", [0]), failures={"wrong_tool": 1})
    assert kinds_text(model) == "1 failed step: wrong tool 1"

"""Tiers follow the score and treat identical models alike; power agrees with brute force."""

from __future__ import annotations

import math
from itertools import pairwise, product

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.compare import mcnemar_exact
from lobrec.core.metrics.tiers import power, ranked, tiers
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(12)
failing_sets = st.lists(st.sets(st.integers(0, 11)), min_size=1, max_size=5)


@given(failing_sets, st.data())
def test_tiers_follow_the_score_and_copies_share_a_tier(failing: list[set[int]], data: st.DataObject) -> None:
    models = [model_of(SUITE, f"m{i}", sorted(f)) for i, f in enumerate(failing)]
    copied = data.draw(st.sampled_from(models))
    models.append(model_of(SUITE, "zz-copy", [i for i, case in enumerate(copied.cases) if not case.passed]))
    found = tiers(models)
    order = [model.model for model in ranked(models)]
    numbers = [found[name] for name in order]
    assert numbers[0] == 1
    assert all(0 <= after - before <= 1 for before, after in pairwise(numbers))
    assert found["zz-copy"] == found[copied.model]


def _brute_power(n: int, flip: float, difference: float) -> float:
    p_a, p_b = flip / 2, flip / 2 + difference
    total = 0.0
    for cells in product((0, 1, 2), repeat=n):  # 0: A-only, 1: B-only, 2: concordant
        b, c = cells.count(0), cells.count(1)
        if mcnemar_exact(b, c) < 0.05:
            total += p_a**b * p_b**c * (1 - p_a - p_b) ** (n - b - c)
    return total


@given(st.integers(1, 8), st.floats(0, 0.6), st.floats(0, 0.4))
def test_power_equals_brute_force_over_every_outcome(n: int, flip: float, difference: float) -> None:
    assert math.isclose(power(n, flip, difference), _brute_power(n, flip, difference), abs_tol=1e-9)


@given(st.integers(1, 200), st.floats(0, 1))
def test_the_exact_test_rejects_at_most_5_percent_of_the_time_with_no_difference(n: int, flip: float) -> None:
    assert power(n, flip, 0.0) <= 0.05 + 1e-12

"""Properties of the repeats statistics (`lobrec.core.metrics.repeats`) and the sign test of `lobrec diff`."""

from __future__ import annotations

import itertools
import math
import statistics
from fractions import Fraction

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.compare import compare, mcnemar_exact, sign_test
from lobrec.core.metrics.rates import model_result, rate
from lobrec.core.metrics.repeats import combine_runs, flaky, mean_rate, spread
from lobrec.core.metrics.results import CaseResult, ModelResult
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite
from lobrec.reports.diffview import spread_sentence
from tests.support.strategies import case_result, suites

values = st.lists(
    st.one_of(st.none(), st.floats(min_value=0, max_value=100, allow_nan=False, allow_infinity=False)),
    max_size=8,
)


@given(values, st.randoms(use_true_random=False))
def test_spread_is_mean_min_max_and_sample_sd_of_the_values_present(
    numbers: list[float | None], shuffle: object
) -> None:
    figure = spread(numbers, 4)
    present = [value for value in numbers if value is not None]
    assert figure.runs == len(present)
    if not present:
        assert (figure.mean, figure.min, figure.max, figure.sd) == (None, None, None, None)
        return
    assert figure.min == round(min(present), 4) and figure.max == round(max(present), 4)
    assert figure.min is not None and figure.max is not None and figure.mean is not None
    assert figure.min <= figure.mean <= figure.max
    assert math.isclose(figure.mean, statistics.fmean(present), abs_tol=1e-4)
    if len(present) < 2:
        assert figure.sd is None
    else:
        assert figure.sd is not None and figure.sd >= 0
        assert math.isclose(figure.sd, statistics.stdev(present), abs_tol=1e-3)
        if len(set(present)) == 1:
            assert figure.sd == 0
    reordered = list(numbers)
    shuffle.shuffle(reordered)  # type: ignore[attr-defined]
    assert spread(reordered, 4) == figure  # exact arithmetic: the order of runs does not matter


counts = st.integers(min_value=0, max_value=40).flatmap(
    lambda total: st.tuples(st.integers(min_value=0, max_value=total), st.just(total))
)


@given(st.lists(counts, min_size=1, max_size=6))
def test_the_mean_rate_is_the_mean_of_the_runs_rates_with_summed_counts(runs: list[tuple[int, int]]) -> None:
    rates = [rate(passed, total) for passed, total in runs]
    mean = mean_rate(rates)
    assert (mean.passed, mean.total) == (sum(p for p, _ in runs), sum(t for _, t in runs))
    shares = [Fraction(100 * p, t) for p, t in runs if t]
    if not shares:
        assert mean.rate is None and mean.ci95 is None
        return
    assert mean.rate == round(float(sum(shares) / len(shares)), 4)
    assert mean.ci95 is not None and mean.ci95[0] <= mean.rate <= mean.ci95[1]
    if len(set(runs)) == 1:  # identical runs: the one run's rate and interval, not a narrower one
        assert (mean.rate, mean.ci95) == (rate(*runs[0]).rate, rate(*runs[0]).ci95)


def _runs(draw: st.DrawFn, suite: Suite, count: int) -> list[list[CaseResult]]:
    return [[draw(case_result(case)) for case in suite.cases] for _ in range(count)]


@st.composite
def repeated(draw: st.DrawFn) -> tuple[Suite, list[ModelResult]]:
    suite = draw(suites())
    count = draw(st.integers(min_value=2, max_value=5))
    runs = _runs(draw, suite, count)
    return suite, [model_result(suite, "m", cases, False) for cases in runs]


@given(repeated(), st.randoms(use_true_random=False))
def test_combine_runs_counts_k_of_k_pass_hat_and_pass_at_by_brute_force(
    data: tuple[Suite, list[ModelResult]], shuffle: object
) -> None:
    suite, runs = data
    combined = combine_runs(suite, runs)
    repeats = combined.repeats
    assert repeats is not None and repeats.runs == len(runs)
    k = len(runs)
    for case in repeats.cases:
        results = [next(r for r in run.cases if r.id == case.id) for run in runs]
        assert case.passes == sum(result.passed for result in results)
        assert case.scored == sum(result.status == "scored" for result in results)
        assert 0 <= case.passes <= case.scored <= k
    complete = [case for case in repeats.cases if case.scored == k]
    assert repeats.pass_hat_k == rate(sum(c.passes == k for c in complete), len(complete))
    assert repeats.pass_at_k == rate(sum(c.passes > 0 for c in complete), len(complete))
    assert repeats.pass_hat_k.passed <= repeats.pass_at_k.passed
    # Among complete cases, the ones passed at least once but not every time are exactly the flaky.
    flaky_complete = [case.id for case in complete if case.id in repeats.flaky]
    assert len(flaky_complete) == repeats.pass_at_k.passed - repeats.pass_hat_k.passed
    assert repeats.flaky == flaky(repeats.cases)
    # The headline is the mean over runs; counts add up.
    assert combined.metrics.overall.rate == repeats.spread["overall"].mean
    assert combined.metrics.overall.passed == sum(run.metrics.overall.passed for run in runs)
    assert combined.counts.cases == sum(run.counts.cases for run in runs)
    assert combined.has_scores == any(run.has_scores for run in runs)
    # Which run is which does not change any figure over runs.
    reordered = list(runs)
    shuffle.shuffle(reordered)  # type: ignore[attr-defined]
    again = combine_runs(suite, reordered)
    assert again.repeats is not None
    # Unpriced calls are named with their run, so only their number is the same.
    assert msgspec.structs.replace(again.metrics, unpriced_calls=[]) == msgspec.structs.replace(
        combined.metrics, unpriced_calls=[]
    )
    assert len(again.metrics.unpriced_calls) == len(combined.metrics.unpriced_calls)
    assert again.repeats.spread == repeats.spread
    assert (again.repeats.pass_hat_k, again.repeats.pass_at_k) == (repeats.pass_hat_k, repeats.pass_at_k)
    assert sorted(again.repeats.flaky) == sorted(repeats.flaky)


@given(suites())
def test_one_run_is_returned_unchanged(suite: Suite) -> None:
    entry = model_result(suite, "m", [], False)
    assert combine_runs(suite, [entry]) is entry


def _brute_force_sign_test(higher: int, lower: int) -> float:
    """Enumerate every sequence of n fair signs: the share at least as lopsided as the one seen."""
    n = higher + lower
    if n == 0:
        return 1.0
    seen = abs(higher - lower)
    extreme = sum(1 for signs in itertools.product((1, -1), repeat=n) if abs(sum(signs)) >= seen)
    return min(1.0, extreme / 2**n)


@given(st.integers(min_value=0, max_value=9), st.integers(min_value=0, max_value=9))
def test_the_sign_test_is_the_brute_force_binomial_tail(higher: int, lower: int) -> None:
    assert math.isclose(sign_test(higher, lower), _brute_force_sign_test(higher, lower), rel_tol=1e-12)
    assert sign_test(higher, lower) == sign_test(lower, higher) == mcnemar_exact(lower, higher)


@st.composite
def two_sides(draw: st.DrawFn) -> tuple[ModelResult, ModelResult]:
    """Two models on one suite, at least one of them with repeated runs."""
    suite = draw(suites())
    sizes = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)).filter(lambda pair: max(pair) > 1))
    a, b = (
        combine_runs(suite, [model_result(suite, "m", cases, False) for cases in _runs(draw, suite, size)])
        for size in sizes
    )
    return a, b


@given(two_sides())
def test_the_repeated_diff_counts_higher_and_lower_rates_by_brute_force(
    sides: tuple[ModelResult, ModelResult],
) -> None:
    a, b = sides
    cmp = compare(a, b)
    assert cmp.test == "sign" and cmp.repeats is not None
    rates_a, rates_b = runs_of(a).pass_rates(), runs_of(b).pass_rates()
    both = [case for case in rates_a if case in rates_b]
    higher = [c for c in both if Fraction(*rates_b[c]) > Fraction(*rates_a[c])]
    lower = [c for c in both if Fraction(*rates_b[c]) < Fraction(*rates_a[c])]
    assert (cmp.fail_to_pass, cmp.pass_to_fail) == (higher, lower)
    assert cmp.paired == len(both) and cmp.repeats.ties == len(both) - len(higher) - len(lower)
    assert math.isclose(cmp.p_value, _brute_force_sign_test(len(higher), len(lower)), rel_tol=1e-12)
    spread = cmp.repeats.spread
    if spread is not None and cmp.repeats.mean_delta is not None:
        assert cmp.repeats.within_spread == (abs(cmp.repeats.mean_delta) <= spread)
        sentence = spread_sentence(cmp.repeats)
        assert sentence.startswith("The difference in overall mean")
        assert ("is within" in sentence) == cmp.repeats.within_spread

"""Properties of the metrics over random suites and random judged cases."""

from __future__ import annotations

import math
import statistics
from random import Random

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.rates import compute_metrics, model_result, rate, wilson_interval
from lobrec.core.metrics.results import ApiCall, CaseResult, Metrics, Rate
from lobrec.core.suite.format import (
    GROUPS,
    Suite,
)
from tests.support.strategies import suites_and_results

# --- properties ----------------------------------------------------------------------------------

RATE_FIELDS = (
    "overall",
    "right_tool",
    "valid_arguments",
    "made_up_tool",
    "chains",
    "parallel",
    "no_call_needed",
)


def assert_well_formed(r: Rate) -> None:
    assert 0 <= r.passed <= r.total
    if r.total == 0:
        assert (r.rate, r.ci95) == (None, None)
        return
    assert r.rate is not None and r.ci95 is not None
    low, high = r.ci95
    assert 0.0 <= low <= r.rate <= high <= 100.0


@given(st.integers(min_value=0, max_value=10**6).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_rate_is_a_percentage_inside_its_interval(counts: tuple[int, int]) -> None:
    passed, total = counts
    assert_well_formed(rate(passed, total))
    interval = wilson_interval(passed, total)
    if total:
        assert interval is not None
        assert 0.0 <= interval[0] <= 100 * passed / total <= interval[1] <= 100.0
    else:
        assert interval is None


@given(suites_and_results())
def test_every_rate_is_well_formed(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    metrics = compute_metrics(suite, cases)
    for field in RATE_FIELDS:
        assert_well_formed(getattr(metrics, field))
    scored = sum(case.status == "scored" for case in cases)
    assert metrics.overall.total == scored
    if scored == 0:
        assert metrics.cost_per_100_cases_usd is None


@given(suites_and_results(), st.randoms(use_true_random=False))
def test_metrics_do_not_depend_on_case_order(data: tuple[Suite, list[CaseResult]], random: Random) -> None:
    suite, cases = data
    shuffled = list(cases)
    random.shuffle(shuffled)
    assert compute_metrics(suite, shuffled) == compute_metrics(suite, cases)
    assert model_result(suite, "m", shuffled, False) == model_result(suite, "m", cases, False)


def _summed(groups: list[Metrics], field: str) -> tuple[int, int]:
    rates = [getattr(metrics, field) for metrics in groups]
    return sum(r.passed for r in rates), sum(r.total for r in rates)


@given(suites_and_results())
def test_groups_partition_the_counted_cases_and_calls(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    model = model_result(suite, "m", cases, False)
    for field in RATE_FIELDS:
        whole = getattr(model.metrics, field)
        assert _summed(list(model.groups.values()), field) == (whole.passed, whole.total)
    assert list(model.groups) == [group for group in GROUPS if any(case.group == group for case in cases)]
    assert model.has_scores == (model.counts.scored > 0)
    if not model.has_scores:
        assert all(getattr(model.metrics, field).rate is None for field in RATE_FIELDS)


# --- latency and cost by the page ------------------------------------------------------------------


def _run_calls(cases: list[CaseResult]) -> list[tuple[CaseResult, ApiCall]]:
    return [(case, call) for case in cases if case.status in ("scored", "errored") for call in case.api_calls]


def _no_answer(call: ApiCall) -> bool:
    return call.status is None or (call.status == 599 and call.error is not None)


@given(suites_and_results())
def test_only_an_unpriced_200_hides_the_cost(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    metrics = compute_metrics(suite, cases)
    scored = sum(case.status == "scored" for case in cases)
    unpriced = [
        f"{case.id} step {call.step + 1} attempt {call.attempt + 1}"
        for case, call in _run_calls(cases)
        if call.status is not None
        and 200 <= call.status <= 299
        and call.cost_usd is None
        and not _no_answer(call)
    ]
    assert sorted(metrics.unpriced_calls) == (sorted(unpriced) if scored else [])
    assert (metrics.cost_per_100_cases_usd is None) == (scored == 0 or bool(unpriced))
    if metrics.cost_per_100_cases_usd is not None:
        # every priced answer is summed, any status; a no-answer record never is
        paid = math.fsum(
            call.cost_usd
            for _, call in _run_calls(cases)
            if call.cost_usd is not None and not _no_answer(call)
        )
        assert metrics.cost_per_100_cases_usd == round(paid / scored * 100, 6)


@given(suites_and_results())
def test_latency_p50_is_a_median_of_every_timed_call_of_the_run(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    metrics = compute_metrics(suite, cases)
    # "Not timed" (None) is left out; every measure counts, 0.0 included.
    timed = [call.latency_ms for _, call in _run_calls(cases) if call.latency_ms is not None]
    if not any(case.status == "scored" for case in cases) or not timed:
        assert metrics.latency_p50_ms is None
        return
    assert metrics.latency_p50_ms == round(statistics.median(timed), 1)
    assert round(min(timed), 1) <= metrics.latency_p50_ms <= round(max(timed), 1)

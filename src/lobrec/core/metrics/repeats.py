"""Repeated runs of one model: each run's metrics, their spread, every case's k of K, pass^K, pass@K.

At temperature 0 a model is close to deterministic, not exactly: two runs of one suite can differ
by a case or two. A model recorded K > 1 times is judged run by run (each run is an ordinary
`ModelResult`), and `combine_runs` puts the runs together:

- the headline `metrics` are the mean over runs (every rule is in docs/results.md, "Repeated runs"):
  each rate's `rate` is the mean of the runs' rates, `passed`/`total` the sums over the runs, and
  `ci95` the Wilson interval of that mean at one run's size, since repeats measure the same cases
  again rather than new ones; latency p50 and cost per 100 cases are over every run's calls;
- `spread`: mean, min, max and the sample standard deviation of each metric over the runs;
- per case, the runs it passed (k) of those it was scored in, pass^K and pass@K over the cases
  scored in all K runs, with Wilson intervals, and the flaky cases (passed in one scored run,
  failed in another).

Exact arithmetic (fractions) until the final rounding, so nothing depends on the order of runs
within a figure, and the same runs give the same bytes.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

from lobrec.core.judge.failures import count_failures
from lobrec.core.metrics.rates import (
    PERCENT_DECIMALS,
    RATE_METRICS,
    VALUE_METRICS,
    cases_by_group,
    rate,
    time_and_cost,
    unpriced_calls,
    wilson_interval,
)
from lobrec.core.metrics.results import (
    CaseResult,
    CaseRuns,
    Counts,
    Metrics,
    ModelResult,
    Rate,
    Repeats,
    RunMetrics,
    RunOutcome,
    Spread,
)
from lobrec.core.suite.format import Suite, ordered_groups


def run_outcome(case: CaseResult) -> RunOutcome:
    """`passed` or `failed` for a scored case, else its status (the results file's spelling)."""
    if case.status != "scored":
        return case.status
    return "passed" if case.passed else "failed"


# --- one case's verdict over its runs --------------------------------------------------------------

CaseVerdict = Literal["pass", "fail", "flaky", "errored", "stale", "unrecorded", "missing"]
"""What every report says of a case, over its K >= 1 runs or in one run: `pass`, `fail`, `flaky`
(passed in a scored run, failed in another), else why no run was judged, `missing` when there is
no run of it at all. The results file keeps each run's `RunOutcome` (`passed`, `failed`, ...); every
human format and the JUnit file say this."""

ScoredVerdict = Literal["pass", "fail", "flaky"]

_UNJUDGED_WORST_FIRST: tuple[Literal["errored", "stale", "unrecorded"], ...] = (
    "errored",
    "stale",
    "unrecorded",
)
"""The worst first, among runs that were not judged: a request that failed is a problem to fix;
a stale or unrecorded run only waits to be recorded."""


def scored_verdict(passes: int, scored: int) -> ScoredVerdict:
    """Of `scored` > 0 judged runs, `passes` passed: all (pass), none (fail), or some (flaky)."""
    if passes == scored:
        return "pass"
    return "fail" if passes == 0 else "flaky"


def case_verdict(outcomes: Sequence[RunOutcome]) -> CaseVerdict:
    """The worst of a case's runs: flaky or fail when a judged run failed (flaky when another
    passed), else errored, stale or unrecorded when a run was not judged, else pass; `missing`
    without any run. Run order never matters."""
    passes, failures = outcomes.count("passed"), outcomes.count("failed")
    if failures:
        return scored_verdict(passes, passes + failures)
    worst = next((outcome for outcome in _UNJUDGED_WORST_FIRST if outcome in outcomes), None)
    if worst is not None:
        return worst
    return "pass" if passes else "missing"


def run_verdict(case: CaseResult | None) -> CaseVerdict:
    """One run's verdict on a case (`missing` where the run does not hold it)."""
    return "missing" if case is None else case_verdict([run_outcome(case)])


# --- spread ----------------------------------------------------------------------------------------


def _round(value: Fraction | float, decimals: int) -> float:
    return round(float(value), decimals)


def spread(values: Sequence[Fraction | float | None], decimals: int) -> Spread:
    """Mean, min, max and sample sd of the values that are not None, rounded to `decimals`."""
    present = [Fraction(value) for value in values if value is not None]
    if not present:
        return Spread(runs=0, mean=None, min=None, max=None, sd=None)
    mean = sum(present, Fraction(0)) / len(present)
    sd = _round(statistics.stdev(present), decimals) if len(present) > 1 else None
    return Spread(
        runs=len(present),
        mean=_round(mean, decimals),
        min=_round(min(present), decimals),
        max=_round(max(present), decimals),
        sd=sd,
    )


def exact_share(value: Rate) -> Fraction | None:
    """A rate in percent, exactly (the stored `rate` is rounded); None when it had nothing to rate."""
    return None if value.total == 0 else Fraction(100 * value.passed, value.total)


def mean_rate(rates: Sequence[Rate]) -> Rate:
    """The headline of a rate over runs: the mean of the runs' rates (runs with nothing to rate left
    out), the summed counts, and the Wilson interval of the mean at one run's size (the mean of
    those runs' totals): repeating a run does not add cases, so it must not narrow the interval."""
    passed = sum(value.passed for value in rates)
    total = sum(value.total for value in rates)
    shares = [share for value in rates if (share := exact_share(value)) is not None]
    if not shares:
        return Rate(rate=None, passed=passed, total=total, ci95=None)
    mean = sum(shares, Fraction(0)) / len(shares)
    size = Fraction(total, len(shares))
    interval = wilson_interval(float(mean / 100 * size), float(size))
    assert interval is not None  # size > 0: every share counted has a total
    low, high = interval
    return Rate(
        rate=_round(mean, PERCENT_DECIMALS),
        passed=passed,
        total=total,
        ci95=(round(low, PERCENT_DECIMALS), round(high, PERCENT_DECIMALS)),
    )


def metric_spreads(runs: Sequence[Metrics]) -> dict[str, Spread]:
    """Each metric's spread over the runs, rates first, in the leaderboard's order."""
    spreads = {
        field: spread([exact_share(getattr(metrics, field)) for metrics in runs], PERCENT_DECIMALS)
        for field, _, _ in RATE_METRICS
    }
    for field, _, _, decimals in VALUE_METRICS:
        spreads[field] = spread([getattr(metrics, field) for metrics in runs], decimals)
    return spreads


# --- cases over runs -------------------------------------------------------------------------------


def case_runs(runs: Sequence[Sequence[CaseResult]]) -> list[CaseRuns]:
    """Each case's outcome in every run (run 1's order first; a case absent from a run is unrecorded
    there), and how many of the runs it was scored in passed."""
    order: dict[str, None] = {}
    for cases in runs:
        order.update((case.id, None) for case in cases)
    lookup = [{case.id: case for case in cases} for cases in runs]
    found = []
    for case_id in order:
        outcomes: list[RunOutcome] = [
            run_outcome(case) if (case := by_id.get(case_id)) is not None else "unrecorded"
            for by_id in lookup
        ]
        found.append(
            CaseRuns(
                id=case_id,
                passes=outcomes.count("passed"),
                scored=outcomes.count("passed") + outcomes.count("failed"),
                outcomes=outcomes,
            )
        )
    return found


def pass_hat_k(cases: Sequence[CaseRuns], runs: int) -> Rate:
    """pass^K: of the cases scored in every run, those that passed in every run."""
    complete = [case for case in cases if case.scored == runs]
    return rate(sum(case.passes == runs for case in complete), len(complete))


def pass_at_k(cases: Sequence[CaseRuns], runs: int) -> Rate:
    """pass@K: of the cases scored in every run, those that passed in at least one."""
    complete = [case for case in cases if case.scored == runs]
    return rate(sum(case.passes >= 1 for case in complete), len(complete))


def flaky(cases: Sequence[CaseRuns]) -> list[str]:
    """Cases that passed in a scored run and failed in another (runs not scored say nothing)."""
    return [case.id for case in cases if case_verdict(case.outcomes) == "flaky"]


# --- one model ---------------------------------------------------------------------------------------


def _labelled_unpriced(members: Sequence[Sequence[CaseResult]]) -> list[str]:
    """The unpriced answers of every run, each named with its run (`sel-01 step 0 attempt 0 (run 2)`)."""
    scored = sum(case.status == "scored" for cases in members for case in cases)
    return [
        f"{entry} (run {number})"
        for number, cases in enumerate(members, start=1)
        for entry in unpriced_calls(list(cases), scored)
    ]


def _headline(runs: Sequence[Metrics], members: Sequence[Sequence[CaseResult]]) -> Metrics:
    """Rates as means over runs; latency and cost over every run's calls (`members`: each run's
    cases, or those of one group)."""
    rates = {field: mean_rate([getattr(metrics, field) for metrics in runs]) for field, _, _ in RATE_METRICS}
    pooled = time_and_cost([case for cases in members for case in cases])
    return Metrics(
        **rates,
        latency_p50_ms=pooled.latency_p50_ms,
        cost_per_100_cases_usd=pooled.cost_per_100_cases_usd,
        latency_p50_judged_ms=pooled.latency_p50_judged_ms,
        unpriced_calls=_labelled_unpriced(members),
    )


def _group_headlines(suite: Suite, runs: Sequence[ModelResult]) -> dict[str, Metrics]:
    """Each group's headline over the runs that have it, in the suite's group order, others after."""
    grouped = [cases_by_group(suite, run.cases) for run in runs]  # each run's cases sorted once
    return {
        group: _headline(
            [run.groups[group] for run in runs if group in run.groups],
            [found.get(group, []) for found in grouped],
        )
        for group in ordered_groups(name for run in runs for name in run.groups)
    }


def _summed_counts(runs: Sequence[ModelResult]) -> Counts:
    return Counts(
        cases=sum(run.counts.cases for run in runs),
        scored=sum(run.counts.scored for run in runs),
        errored=sum(run.counts.errored for run in runs),
        stale=sum(run.counts.stale for run in runs),
        unrecorded=sum(run.counts.unrecorded for run in runs),
    )


def _repeats(runs: Sequence[ModelResult]) -> Repeats:
    """The `repeats` section of K > 1 runs: each run's figures (run 1's cases are the model's own),
    the spreads, each case's k of K, pass^K, pass@K and the flaky cases."""
    per_case = case_runs([run.cases for run in runs])
    return Repeats(
        runs=len(runs),
        per_run=[
            RunMetrics(
                run=number,
                counts=run.counts,
                has_scores=run.has_scores,
                temperature_ignored=run.temperature_ignored,
                metrics=run.metrics,
                cases=[] if number == 1 else run.cases,
            )
            for number, run in enumerate(runs, start=1)
        ],
        spread=metric_spreads([run.metrics for run in runs]),
        pass_hat_k=pass_hat_k(per_case, len(runs)),
        pass_at_k=pass_at_k(per_case, len(runs)),
        flaky=flaky(per_case),
        cases=per_case,
    )


def combine_runs(suite: Suite, runs: Sequence[ModelResult]) -> ModelResult:
    """One model's entry from its runs (each judged alone by `model_result`), run 1 first.

    One run is returned as it is, so a model recorded once gives exactly today's entry. With K > 1,
    `counts` and `answered_by` are summed over the runs, `temperature_ignored` is true when any run
    saw it, `cases` are run 1's, and `repeats` holds the rest.
    """
    if not runs:
        raise ValueError("combine_runs needs at least one run")
    if len(runs) == 1:
        return runs[0]
    first = runs[0]
    cases = [run.cases for run in runs]
    counts = _summed_counts(runs)
    answered: Counter[str] = Counter()
    for run in runs:
        answered.update(run.answered_by)
    return ModelResult(
        model=first.model,
        suite=first.suite,
        temperature_ignored=any(run.temperature_ignored for run in runs),
        counts=counts,
        has_scores=counts.scored > 0,
        metrics=_headline([run.metrics for run in runs], cases),
        groups=_group_headlines(suite, runs),
        answered_by={name: answered[name] for name in sorted(answered)},
        failures=count_failures(run.failures for run in runs),
        cases=first.cases,
        repeats=_repeats(runs),
    )


__all__ = [
    "CaseVerdict",
    "ScoredVerdict",
    "case_runs",
    "case_verdict",
    "combine_runs",
    "exact_share",
    "flaky",
    "mean_rate",
    "metric_spreads",
    "pass_at_k",
    "pass_hat_k",
    "run_outcome",
    "run_verdict",
    "scored_verdict",
    "spread",
]

"""The per-model numbers: seven rates, latency p50, cost per 100 cases, and their breakdowns.

Pure arithmetic over judged cases. The *structure* of a case (how many steps, which step expects
what) comes from the suite; the model's *behaviour* comes from its `CaseResult`. Only scored cases
count towards any rate: errored, stale and unrecorded cases are shown elsewhere, never scored.

Every figure is deterministic: percentages and intervals are rounded to 4 decimals, latency to
0.1 ms, cost to 6 decimals, sums use `math.fsum` (exactly rounded, so independent of order), and
nothing depends on the order of the case list. The rules are spelled out in `docs/metrics.md`.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from lobrec.core.judge.failures import annotate_case, failure_counts
from lobrec.core.judge.wire import is_success
from lobrec.core.memo import per_object
from lobrec.core.metrics.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    Counts,
    Metrics,
    ModelResult,
    Rate,
    StepVerdict,
    SuiteRef,
)
from lobrec.core.suite.format import CallStep, Case, NoCallStep, Suite, ordered_groups

NO_RESPONSE_STATUS = 599
"""lobrec's pseudo-status for an attempt that got no answer (`transport.NO_RESPONSE_STATUS`)."""

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""

PERCENT_DECIMALS = 4
LATENCY_DECIMALS = 1
COST_DECIMALS = 6

RATE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("overall", "Overall", False),
    ("right_tool", "Right tool", False),
    ("valid_arguments", "Valid args", False),
    ("made_up_tool", "Made-up tool", True),
    ("chains", "Chains", False),
    ("parallel", "Parallel", False),
    ("no_call_needed", "No call needed", False),
)
"""(Metrics field, label, lower is better) for each of the seven rates, in the leaderboard's order:
the one list every comparison, spread and report walks."""

Unit = Literal["pp", "ms", "usd"]

VALUE_METRICS: tuple[tuple[str, str, Unit, int], ...] = (
    ("latency_p50_ms", "p50 latency", "ms", LATENCY_DECIMALS),
    ("cost_per_100_cases_usd", "Cost/100 cases", "usd", COST_DECIMALS),
)
"""(Metrics field, label, unit, decimals) for the figures after the rates (lower is better)."""


# --- rates ---------------------------------------------------------------------------------------


def wilson_interval(passed: float, total: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for `passed` of `total`, in percent; None when total is 0.

    Wilson rather than the normal approximation because suites are small (a group has 12 to 16
    cases) and many rates sit at 0% or 100%, where the normal interval collapses to a point.
    The counts may be fractional: the mean of repeated runs is placed at one run's size
    (`lobrec.core.metrics.repeats.mean_rate`).
    """
    if total < 0 or passed < 0 or passed > total:
        raise ValueError(f"wilson_interval needs 0 <= passed <= total, got passed={passed}, total={total}")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"wilson_interval needs a positive finite z, got {z}")
    if total == 0:
        return None
    n = total
    p = passed / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    # The interval always contains p; clamping only absorbs floating-point error at the ends.
    low = max(0.0, min(centre - half, p))
    high = min(1.0, max(centre + half, p))
    return (low * 100, high * 100)


def rate(passed: int, total: int) -> Rate:
    """A share as the results file stores it: counts, percentage and 95% interval (None when total is 0)."""
    interval = wilson_interval(passed, total)
    if interval is None:
        return Rate(rate=None, passed=passed, total=total, ci95=None)
    low, high = interval
    return Rate(
        rate=round(100 * passed / total, PERCENT_DECIMALS),
        passed=passed,
        total=total,
        ci95=(round(low, PERCENT_DECIMALS), round(high, PERCENT_DECIMALS)),
    )


# --- case-based rules ----------------------------------------------------------------------------
#
# Each rule looks at one scored case: None when the metric does not apply to it, else whether it
# passes. `verdicts` maps step index to the model's verdict; a chain that stopped early simply has
# no verdict for the later steps, which then count as not passed.

CaseRule = Callable[[Case, dict[int, StepVerdict]], bool | None]


def _step_passed(verdicts: dict[int, StepVerdict], index: int) -> bool:
    verdict = verdicts.get(index)
    return verdict is not None and verdict.passed


def _all_steps_pass(case: Case, verdicts: dict[int, StepVerdict]) -> bool:
    return bool(case.steps) and all(_step_passed(verdicts, index) for index in range(len(case.steps)))


def _overall(case: Case, verdicts: dict[int, StepVerdict]) -> bool | None:
    return _all_steps_pass(case, verdicts)


def _right_tool(case: Case, verdicts: dict[int, StepVerdict]) -> bool | None:
    first = next((index for index, step in enumerate(case.steps) if isinstance(step, CallStep)), None)
    if first is None:
        return None
    verdict = verdicts.get(first)
    return verdict is not None and verdict.names_match


def _chains(case: Case, verdicts: dict[int, StepVerdict]) -> bool | None:
    if len(case.steps) < 2:
        return None
    return _all_steps_pass(case, verdicts)


def _parallel(case: Case, verdicts: dict[int, StepVerdict]) -> bool | None:
    wide = [
        index for index, step in enumerate(case.steps) if isinstance(step, CallStep) and len(step.calls) >= 2
    ]
    if not wide:
        return None
    # A step is one response, so a passing step already has all its calls in that response.
    return all(_step_passed(verdicts, index) for index in wide)


def _no_call_needed(case: Case, verdicts: dict[int, StepVerdict]) -> bool | None:
    if not case.steps or not isinstance(case.steps[0], NoCallStep):
        return None
    return _step_passed(verdicts, 0)


# --- call-based rules ----------------------------------------------------------------------------


def _is_made_up(call: CallRecord) -> bool:
    return call.name is None or not call.offered


def _is_valid_offered(call: CallRecord) -> bool | None:
    if _is_made_up(call):
        return None
    return call.schema_valid is True


# --- metrics -------------------------------------------------------------------------------------


@per_object
def _suite_order(suite: Suite) -> dict[str, int]:
    return {case.id: index for index, case in enumerate(suite.cases)}


def _sorted_cases(suite: Suite, cases: list[CaseResult]) -> list[CaseResult]:
    """Suite order; cases the suite does not know (only possible when not scored) go last, by id."""
    order = _suite_order(suite)
    return sorted(cases, key=lambda case: (order.get(case.id, len(order)), case.id))


def _suite_case(suite: Suite, result: CaseResult) -> Case:
    case = suite.case(result.id)
    if case is None:
        raise ValueError(f"scored case {result.id!r} is not in suite {suite.name} {suite.version}")
    return case


def _case_rate(scored: list[tuple[Case, dict[int, StepVerdict]]], rule: CaseRule) -> Rate:
    outcomes = [outcome for case, verdicts in scored if (outcome := rule(case, verdicts)) is not None]
    return rate(sum(outcomes), len(outcomes))


def _call_rate(calls: list[CallRecord], rule: Callable[[CallRecord], bool | None]) -> Rate:
    outcomes = [outcome for call in calls if (outcome := rule(call)) is not None]
    return rate(sum(outcomes), len(outcomes))


def _answered(call: ApiCall) -> bool:
    """The gateway answered: not a transport failure (no status, or lobrec's no-response 599)."""
    return call.status is not None and not (call.status == NO_RESPONSE_STATUS and call.error is not None)


def _timings(calls: Iterable[ApiCall]) -> list[float]:
    """The measured wall times: an answer, or a transport failure (a time-out, a refused or reset
    connection, however short: 0.0 ms is a measure). A reply lobrec itself refused (too large, not
    text, holding the key) has no measure (`latency_ms` None) and is left out."""
    return [call.latency_ms for call in calls if call.latency_ms is not None]


def _median(latencies: list[float]) -> float | None:
    if not latencies:
        return None
    return round(statistics.median(latencies), LATENCY_DECIMALS)


def _latency_p50(cases: list[CaseResult], scored_count: int) -> float | None:
    """The methodology's p50: every timed API call of the run, retries and errored cases included;
    a dash, like every other figure, when no case was scored."""
    if scored_count == 0:
        return None
    return _median(
        _timings(call for case in cases if case.status in ("scored", "errored") for call in case.api_calls)
    )


def _latency_p50_judged(scored: list[CaseResult]) -> float | None:
    """Median wall time of judged attempts of scored cases: the answers the scores are made of."""
    return _median(_timings(call for case in scored for call in case.api_calls if call.judged))


def _paid(cases: list[CaseResult]) -> list[tuple[CaseResult, ApiCall]]:
    """The answered calls of scored and errored cases (errored cases were paid for too)."""
    return [
        (case, call)
        for case in cases
        if case.status in ("scored", "errored")
        for call in case.api_calls
        if _answered(call)
    ]


def unpriced_calls(cases: list[CaseResult], scored_count: int) -> list[str]:
    """2xx answers without a price. The gateway prices every 2xx; a 429, 5xx or other error answer
    is free unless it carries a price, and a transport failure has no answer to price. Empty when
    no case was scored: the cost is then a dash for that reason alone."""
    if scored_count == 0:
        return []
    return [
        f"{case.id} step {call.step + 1} attempt {call.attempt + 1}"
        for case, call in _paid(cases)
        if call.status is not None and is_success(call.status) and call.cost_usd is None
    ]


def cost_per_100(cases: list[CaseResult], scored_count: int) -> float | None:
    """What `cases` cost per 100 of `scored_count` cases: every priced answer, any status, errored cases
    included (not in the divisor); hidden when any 2xx answer was unpriced."""
    if scored_count == 0 or unpriced_calls(cases, scored_count):
        return None
    total = math.fsum(call.cost_usd for _, call in _paid(cases) if call.cost_usd is not None)
    return round(total / scored_count * 100, COST_DECIMALS)


class TimeAndCost(NamedTuple):
    """The figures after the rates, over some cases (none depends on their order)."""

    latency_p50_ms: float | None
    cost_per_100_cases_usd: float | None
    latency_p50_judged_ms: float | None


def time_and_cost(cases: list[CaseResult]) -> TimeAndCost:
    """Latency p50, cost per 100 cases and the judged attempts' latency p50 over `cases`: part of
    `compute_metrics`, and all a repeated model pools over its runs (its rates are means)."""
    scored = [case for case in cases if case.status == "scored"]
    return TimeAndCost(
        latency_p50_ms=_latency_p50(cases, len(scored)),
        cost_per_100_cases_usd=cost_per_100(cases, len(scored)),
        latency_p50_judged_ms=_latency_p50_judged(scored),
    )


def compute_metrics(suite: Suite, cases: list[CaseResult]) -> Metrics:
    """Every metric over `cases` (one model's, or one group of them); only scored cases count."""
    ordered = _sorted_cases(suite, cases)
    scored_results = [case for case in ordered if case.status == "scored"]
    scored = [
        (_suite_case(suite, result), {verdict.index: verdict for verdict in result.steps})
        for result in scored_results
    ]
    calls = [call for result in scored_results for verdict in result.steps for call in verdict.calls]
    pooled = time_and_cost(ordered)
    return Metrics(
        overall=_case_rate(scored, _overall),
        right_tool=_case_rate(scored, _right_tool),
        valid_arguments=_call_rate(calls, _is_valid_offered),
        made_up_tool=_call_rate(calls, _is_made_up),
        chains=_case_rate(scored, _chains),
        parallel=_case_rate(scored, _parallel),
        no_call_needed=_case_rate(scored, _no_call_needed),
        latency_p50_ms=pooled.latency_p50_ms,
        cost_per_100_cases_usd=pooled.cost_per_100_cases_usd,
        latency_p50_judged_ms=pooled.latency_p50_judged_ms,
        unpriced_calls=unpriced_calls(ordered, len(scored_results)),
    )


def _counts(cases: list[CaseResult]) -> Counts:
    by_status = Counter(case.status for case in cases)
    return Counts(
        cases=len(cases),
        scored=by_status["scored"],
        errored=by_status["errored"],
        stale=by_status["stale"],
        unrecorded=by_status["unrecorded"],
    )


def cases_by_group(suite: Suite, cases: Iterable[CaseResult]) -> dict[str, list[CaseResult]]:
    """The cases of each group that has any, in the suite's group order (`ordered_groups`): the
    suite's group of a case it knows, else the group the result was recorded with."""
    members: dict[str, list[CaseResult]] = {}
    for result in cases:
        case = suite.case(result.id)
        members.setdefault(case.group if case is not None else result.group, []).append(result)
    return {group: members[group] for group in ordered_groups(members)}


def _groups(suite: Suite, cases: list[CaseResult]) -> dict[str, Metrics]:
    """Metrics per group, in the suite's group order, for groups that have any case."""
    return {group: compute_metrics(suite, members) for group, members in cases_by_group(suite, cases).items()}


def _answered_by(cases: list[CaseResult]) -> dict[str, int]:
    """Judged attempts of scored cases per answering model (for `auto`, Nex's choices), by name."""
    counter = Counter(
        call.answered_by
        for case in cases
        if case.status == "scored"
        for call in case.api_calls
        if call.judged and call.answered_by is not None
    )
    return {name: counter[name] for name in sorted(counter)}


def model_result(suite: Suite, model: str, cases: list[CaseResult], temperature_ignored: bool) -> ModelResult:
    """One model's entry in the results file: counts, metrics, per-group metrics and its cases."""
    ordered = [annotate_case(suite.case(case.id), case) for case in _sorted_cases(suite, cases)]
    counts = _counts(ordered)
    return ModelResult(
        model=model,
        suite=SuiteRef(name=suite.name, version=suite.version),
        temperature_ignored=temperature_ignored,
        counts=counts,
        has_scores=counts.scored > 0,
        metrics=compute_metrics(suite, ordered),
        groups=_groups(suite, ordered),
        answered_by=_answered_by(ordered),
        failures=failure_counts(ordered),
        cases=ordered,
    )

"""Case-by-case comparison of two models' results, and whether the difference is more than noise.

Two overall scores can differ by a case or two between runs of the same model, so `lobrec diff`
pairs the cases both models were scored on and looks only at the ones that flipped. With `b` the
cases A passed and B failed, and `c` the cases A failed and B passed, the exact McNemar test asks
how likely a split at least this lopsided is if each flip were a fair coin toss:

    p = min(1, 2 * sum(C(b + c, k) for k in 0..min(b, c)) / 2 ** (b + c))

It is computed with integers (`math.comb`, a power of two) and one correctly rounded division, so
it is exact for any `n` and never overflows. Cases errored, stale or unrecorded on either side,
or missing from one side, are not paired: they say nothing about the models and are counted.

With repeated runs on either side (docs/reports.md, "Diff with repeated runs"), each case has a
pass rate per side (passes over the runs it was scored in) and the test is the exact two-sided
sign test on the per-case differences of those rates: the cases where B's rate is higher against
those where it is lower, ties dropped. It is the same formula: with one run each, a rate is 0 or
1 and the sign test is McNemar's. The comparison also says whether the difference in overall mean
is within the run-to-run spread: the larger of A's and B's sample sd of the overall rate over runs.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import msgspec

from lobrec.core.failures import FAILURE_KINDS, UNCLASSIFIED, failed_step_kinds
from lobrec.core.repeats import case_pass_rates, run_cases
from lobrec.core.results import CaseStatus, ModelResult, Rate, Record, Resolution, SuiteRef

SIGNIFICANCE = 0.05

Unit = Literal["pp", "ms", "usd"]

RATE_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("overall", "Overall", False),
    ("right_tool", "Right tool", False),
    ("valid_arguments", "Valid args", False),
    ("made_up_tool", "Made-up tool", True),
    ("chains", "Chains", False),
    ("parallel", "Parallel", False),
    ("no_call_needed", "No call needed", False),
)
"""(Metrics field, label, lower is better) for each rate, in the leaderboard's order."""


class MetricDelta(Record):
    """One metric on both sides and `b - a` (percentage points for rates); None when either is None."""

    metric: str
    label: str
    unit: Unit
    lower_is_better: bool
    a: float | None
    b: float | None
    delta: float | None


class KindChange(Record):
    """One failure kind's failed steps on each side (every run, every scored case) and `b - a`."""

    kind: str
    """A kind of `lobrec.core.failures.FAILURE_KINDS`, or `unclassified` (a file from before kinds)."""
    a: int
    b: int
    change: int


class Unpaired(Record):
    """A case left out of the pairing, with its status on each side (None: not in that run)."""

    id: str
    a: CaseStatus | None
    b: CaseStatus | None


class CaseRates(Record):
    """One paired case's passes over the runs it was scored in, on each side."""

    id: str
    a_passes: int
    a_runs: int
    b_passes: int
    b_runs: int


class RepeatedComparison(Record):
    """The comparison when either side has repeated runs: per-case pass rates and the sign test."""

    runs_a: int
    runs_b: int
    cases: list[CaseRates]
    """The paired cases (scored in at least one run on each side), in A's order."""
    higher_in_b: list[str]
    """Cases whose pass rate is higher in B (the same as `Comparison.fail_to_pass`)."""
    lower_in_b: list[str]
    ties: int
    """Paired cases with the same rate on both sides: dropped from the sign test."""
    mean_delta: float | None
    """B's overall rate minus A's (each the mean over its runs), in percentage points."""
    sd_a: float | None
    """A's sample sd of the overall rate over runs; null with fewer than two scored runs."""
    sd_b: float | None
    spread: float | None
    """The run-to-run spread: the larger of `sd_a` and `sd_b` (null when neither has one)."""
    within_spread: bool | None
    """|mean_delta| <= spread; null when either is null."""
    spread_sentence: str
    """The plain reading of `within_spread` (empty when it is null)."""


class Comparison(Record):
    """Model A against model B: metric deltas, flipped cases and the exact McNemar test (the exact
    sign test on per-case pass rates when either side has repeated runs, see `repeats`)."""

    model_a: str
    model_b: str
    suite_a: SuiteRef
    suite_b: SuiteRef
    paired: int
    """Cases scored in both runs."""
    both_passed: int
    both_failed: int
    b: int
    """Discordant: A passed, B failed (the length of `pass_to_fail`)."""
    c: int
    """Discordant: A failed, B passed (the length of `fail_to_pass`)."""
    pass_to_fail: list[str]
    fail_to_pass: list[str]
    unpaired: list[Unpaired]
    deltas: list[MetricDelta]
    p_value: float
    significant: bool
    interpretation: str
    test: Literal["mcnemar", "sign"] = "mcnemar"
    """`sign` when either side has repeated runs: `b` and `c` then count cases whose pass rate is
    lower and higher in B, and `pass_to_fail`/`fail_to_pass` list them."""
    repeats: RepeatedComparison | None = None
    resolution: Resolution | None = None
    """The smallest overall difference the test resolves for this pair (`lobrec.core.tiers`)."""
    resolved: bool | None = None
    """The observed overall difference is at least `resolution.min_difference`; null when either
    is unknown."""
    kinds: list[KindChange] = msgspec.field(default_factory=list)
    """How the failure kinds moved: each kind either side has, in precedence order (`kind_changes`)."""

    @property
    def same_suite(self) -> bool:
        return self.suite_a == self.suite_b


def mcnemar_exact(b: int, c: int) -> float:
    """The exact two-sided McNemar p-value for `b` and `c` discordant pairs (1.0 when both are 0)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    twice_tail = 2 * sum(math.comb(n, k) for k in range(min(b, c) + 1))
    total = 1 << n
    if twice_tail >= total:
        return 1.0
    return twice_tail / total


def sign_test(higher: int, lower: int) -> float:
    """The exact two-sided sign test: `higher` differences one way, `lower` the other, ties dropped.

    Under no difference each sign is a fair coin, so it is the binomial tail McNemar's exact test
    computes (McNemar's is the sign test on discordant pairs).
    """
    return mcnemar_exact(lower, higher)


def format_p(p: float) -> str:
    """`p=` and three significant digits, or `p<0.001`: `p=0.0313`, `p=1`, `p<0.001`."""
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.3g}"


def interpret(paired: int, b: int, c: int, p: float) -> str:
    """The one-line reading of the test, from B's point of view."""
    if paired == 0:
        return "no case was scored in both runs: nothing to compare"
    if p >= SIGNIFICANCE:
        return f"no significant difference at 5% ({format_p(p)})"
    verdict = "better" if c > b else "worse"
    return f"B is {verdict}, {format_p(p)}"


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _rate(model: ModelResult, metric: str) -> float | None:
    if not model.has_scores:
        return None
    rate: Rate = getattr(model.metrics, metric)
    return rate.rate


def metric_deltas(a: ModelResult, b: ModelResult) -> list[MetricDelta]:
    """The seven rates, then p50 latency and cost per 100 cases."""
    deltas = []
    for metric, label, lower in RATE_METRICS:
        rate_a, rate_b = _rate(a, metric), _rate(b, metric)
        deltas.append(
            MetricDelta(
                metric=metric,
                label=label,
                unit="pp",
                lower_is_better=lower,
                a=rate_a,
                b=rate_b,
                delta=_difference(rate_a, rate_b),
            )
        )
    others: tuple[tuple[str, str, Unit], ...] = (
        ("latency_p50_ms", "p50 latency", "ms"),
        ("cost_per_100_cases_usd", "Cost/100 cases", "usd"),
    )
    for metric, label, unit in others:
        value_a: float | None = getattr(a.metrics, metric)
        value_b: float | None = getattr(b.metrics, metric)
        deltas.append(
            MetricDelta(
                metric=metric,
                label=label,
                unit=unit,
                lower_is_better=True,
                a=value_a,
                b=value_b,
                delta=_difference(value_a, value_b),
            )
        )
    return deltas


def model_failed_steps(model: ModelResult) -> dict[str, int]:
    """The model's failed steps by kind over every run (`failed_step_kinds`)."""
    return failed_step_kinds(case for cases in run_cases(model) for case in cases)


def kind_changes(a: ModelResult, b: ModelResult) -> list[KindChange]:
    """Per kind either side has, A's count of failed steps, B's and the change, in precedence order.

    Counted over every scored case and every run of each side, paired or not, so each side's counts
    add up to its failed steps (with repeats, a side with more runs has more steps to fail).
    """
    counts_a, counts_b = model_failed_steps(a), model_failed_steps(b)
    return [
        KindChange(
            kind=kind,
            a=counts_a.get(kind, 0),
            b=counts_b.get(kind, 0),
            change=counts_b.get(kind, 0) - counts_a.get(kind, 0),
        )
        for kind in (*FAILURE_KINDS, UNCLASSIFIED)
        if kind in counts_a or kind in counts_b
    ]


def _overall_sd(model: ModelResult) -> float | None:
    # `.get`: a results file read by `diff` may lack the entry; its spread is then unknown.
    overall = model.repeats.spread.get("overall") if model.repeats is not None else None
    return None if overall is None else overall.sd


def spread_sentence(delta: float | None, spread: float | None) -> str:
    """Whether the difference in overall mean is more than a run of either model varies by."""
    if delta is None or spread is None:
        return ""
    size = f"{'+' if delta > 0 else '-' if delta < 0 else ''}{abs(delta):.1f} pp"
    if abs(delta) <= spread:
        return (
            f"The difference in overall mean ({size}) is within the run-to-run spread of A and B "
            f"({spread:.1f} pp, the larger sample sd of the overall rate over runs): "
            "another run of either could move it that much."
        )
    return (
        f"The difference in overall mean ({size}) is larger than the run-to-run spread of A and B "
        f"({spread:.1f} pp, the larger sample sd of the overall rate over runs)."
    )


def compare_repeated(a: ModelResult, b: ModelResult) -> Comparison:
    """Per-case pass rates over each side's runs and the exact sign test on their differences."""
    rates_a, rates_b = case_pass_rates(a), case_pass_rates(b)
    ids_b = {case.id: case for case in b.cases}
    seen: set[str] = set()
    paired: list[CaseRates] = []
    higher: list[str] = []
    lower: list[str] = []
    unpaired: list[Unpaired] = []
    both_passed = both_failed = ties = 0
    for case_a in a.cases:
        seen.add(case_a.id)
        case_b = ids_b.get(case_a.id)
        if case_b is None or case_a.id not in rates_a or case_a.id not in rates_b:
            unpaired.append(
                Unpaired(id=case_a.id, a=case_a.status, b=None if case_b is None else case_b.status)
            )
            continue
        (a_passes, a_runs), (b_passes, b_runs) = rates_a[case_a.id], rates_b[case_a.id]
        paired.append(
            CaseRates(id=case_a.id, a_passes=a_passes, a_runs=a_runs, b_passes=b_passes, b_runs=b_runs)
        )
        share_a, share_b = Fraction(a_passes, a_runs), Fraction(b_passes, b_runs)
        if share_b > share_a:
            higher.append(case_a.id)
        elif share_b < share_a:
            lower.append(case_a.id)
        elif share_a == 1:
            both_passed += 1
        elif share_a == 0:
            both_failed += 1
        else:
            ties += 1
    unpaired.extend(Unpaired(id=case.id, a=None, b=case.status) for case in b.cases if case.id not in seen)
    p = sign_test(len(higher), len(lower))
    mean_a, mean_b = _rate(a, "overall"), _rate(b, "overall")
    difference = _difference(mean_a, mean_b)
    mean_delta = None if difference is None else round(difference, 4)
    sd_a, sd_b = _overall_sd(a), _overall_sd(b)
    known = [sd for sd in (sd_a, sd_b) if sd is not None]
    spread = max(known) if known else None
    within = None if mean_delta is None or spread is None else abs(mean_delta) <= spread
    repeats = RepeatedComparison(
        runs_a=a.run_count,
        runs_b=b.run_count,
        cases=paired,
        higher_in_b=higher,
        lower_in_b=lower,
        ties=ties + both_passed + both_failed,
        mean_delta=mean_delta,
        sd_a=sd_a,
        sd_b=sd_b,
        spread=spread,
        within_spread=within,
        spread_sentence=spread_sentence(mean_delta, spread),
    )
    return Comparison(
        model_a=a.model,
        model_b=b.model,
        suite_a=a.suite,
        suite_b=b.suite,
        paired=len(paired),
        both_passed=both_passed,
        both_failed=both_failed,
        b=len(lower),
        c=len(higher),
        pass_to_fail=lower,
        fail_to_pass=higher,
        unpaired=unpaired,
        deltas=metric_deltas(a, b),
        p_value=p,
        significant=bool(paired) and p < SIGNIFICANCE,
        interpretation=interpret(len(paired), len(lower), len(higher), p),
        test="sign",
        repeats=repeats,
        kinds=kind_changes(a, b),
    )


def compare(a: ModelResult, b: ModelResult) -> Comparison:
    """Pair the cases scored in both runs, list the flips and test them; A is the baseline.

    With repeated runs on either side, `compare_repeated` does it on per-case pass rates.
    """
    if a.repeats is not None or b.repeats is not None:
        return compare_repeated(a, b)
    cases_b = {case.id: case for case in b.cases}
    seen: set[str] = set()
    pass_to_fail: list[str] = []
    fail_to_pass: list[str] = []
    unpaired: list[Unpaired] = []
    both_passed = both_failed = 0
    for case_a in a.cases:
        seen.add(case_a.id)
        case_b = cases_b.get(case_a.id)
        if case_b is None or case_a.status != "scored" or case_b.status != "scored":
            unpaired.append(
                Unpaired(id=case_a.id, a=case_a.status, b=None if case_b is None else case_b.status)
            )
            continue
        passed_a, passed_b = case_a.passed, case_b.passed
        if passed_a and passed_b:
            both_passed += 1
        elif passed_a:
            pass_to_fail.append(case_a.id)
        elif passed_b:
            fail_to_pass.append(case_a.id)
        else:
            both_failed += 1
    unpaired.extend(Unpaired(id=case.id, a=None, b=case.status) for case in b.cases if case.id not in seen)

    paired = both_passed + both_failed + len(pass_to_fail) + len(fail_to_pass)
    count_b, count_c = len(pass_to_fail), len(fail_to_pass)
    p = mcnemar_exact(count_b, count_c)
    return Comparison(
        model_a=a.model,
        model_b=b.model,
        suite_a=a.suite,
        suite_b=b.suite,
        paired=paired,
        both_passed=both_passed,
        both_failed=both_failed,
        b=count_b,
        c=count_c,
        pass_to_fail=pass_to_fail,
        fail_to_pass=fail_to_pass,
        unpaired=unpaired,
        deltas=metric_deltas(a, b),
        p_value=p,
        significant=paired > 0 and p < SIGNIFICANCE,
        interpretation=interpret(paired, count_b, count_c, p),
        kinds=kind_changes(a, b),
    )


__all__ = [
    "RATE_METRICS",
    "SIGNIFICANCE",
    "CaseRates",
    "Comparison",
    "KindChange",
    "MetricDelta",
    "RepeatedComparison",
    "Unpaired",
    "compare",
    "compare_repeated",
    "format_p",
    "interpret",
    "kind_changes",
    "mcnemar_exact",
    "metric_deltas",
    "model_failed_steps",
    "sign_test",
    "spread_sentence",
]

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
1 and the sign test is McNemar's, so `compare` is one function over `runs_of` for any K. The
comparison also says whether the difference in overall mean is within the run-to-run spread: the
larger of A's and B's sample sd of the overall rate over runs.

The result is data (a `verdict`, `within_spread`); the words are the reports' (`lobrec.reports.diffview`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import msgspec

from lobrec.core.judge.failures import FAILURE_KINDS, UNCLASSIFIED, failed_step_kinds
from lobrec.core.metrics.rates import RATE_METRICS, VALUE_METRICS, Unit
from lobrec.core.metrics.results import (
    CaseResult,
    CaseStatus,
    ModelResult,
    Rate,
    Record,
    Resolution,
    SuiteRef,
)
from lobrec.core.metrics.runs import ModelRuns, runs_of

SIGNIFICANCE = 0.05

Verdict = Literal["nothing_paired", "no_difference", "b_better", "b_worse"]
"""The reading of the test from B's side: no case paired, not significant at 5%, or B better or
worse (the words are the reports', `lobrec.reports.diffview.interpretation`)."""


class MetricDelta(Record, frozen=True):
    """One metric on both sides and `b - a` (percentage points for rates); None when either is None."""

    metric: str
    label: str
    unit: Unit
    lower_is_better: bool
    a: float | None
    b: float | None
    delta: float | None


class KindChange(Record, frozen=True):
    """One failure kind's failed steps on each side (every run, every scored case) and `b - a`."""

    kind: str
    """A kind of `lobrec.core.judge.failures.FAILURE_KINDS`, or `unclassified` (a file from before kinds)."""
    a: int
    b: int
    change: int


class Unpaired(Record, frozen=True):
    """A case left out of the pairing, with its status on each side (None: not in that run)."""

    id: str
    a: CaseStatus | None
    b: CaseStatus | None


class CaseRates(Record, frozen=True):
    """One paired case's passes over the runs it was scored in, on each side."""

    id: str
    a_passes: int
    a_runs: int
    b_passes: int
    b_runs: int


class RepeatedComparison(Record, frozen=True):
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


class Comparison(Record, frozen=True):
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
    verdict: Verdict
    test: Literal["mcnemar", "sign"] = "mcnemar"
    """`sign` when either side has repeated runs: `b` and `c` then count cases whose pass rate is
    lower and higher in B, and `pass_to_fail`/`fail_to_pass` list them."""
    repeats: RepeatedComparison | None = None
    resolution: Resolution | None = None
    """The smallest overall difference the test resolves for this pair (`lobrec.core.metrics.tiers`)."""
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


def verdict(paired: int, b: int, c: int, p: float) -> Verdict:
    """The reading of the test, from B's point of view."""
    if paired == 0:
        return "nothing_paired"
    if p >= SIGNIFICANCE:
        return "no_difference"
    return "b_better" if c > b else "b_worse"


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _rate(model: ModelResult, metric: str) -> float | None:
    if not model.has_scores:
        return None
    rate: Rate = getattr(model.metrics, metric)
    return rate.rate


def _delta(metric: str, label: str, unit: Unit, lower: bool, a: float | None, b: float | None) -> MetricDelta:
    return MetricDelta(
        metric=metric, label=label, unit=unit, lower_is_better=lower, a=a, b=b, delta=_difference(a, b)
    )


def metric_deltas(a: ModelResult, b: ModelResult) -> list[MetricDelta]:
    """The seven rates, then p50 latency and cost per 100 cases."""
    deltas = [
        _delta(metric, label, "pp", lower, _rate(a, metric), _rate(b, metric))
        for metric, label, lower in RATE_METRICS
    ]
    for metric, label, unit, _ in VALUE_METRICS:
        deltas.append(
            _delta(metric, label, unit, True, getattr(a.metrics, metric), getattr(b.metrics, metric))
        )
    return deltas


def model_failed_steps(model: ModelResult) -> dict[str, int]:
    """The model's failed steps by kind over every run (`failed_step_kinds`)."""
    return failed_step_kinds(case for run in runs_of(model).runs for case in run.cases)


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


def _overall_sd(runs: ModelRuns) -> float | None:
    # `.get`: a results file read by `diff` may lack the entry; its spread is then unknown.
    overall = runs.spread.get("overall")
    return None if overall is None else overall.sd


class _Pairing(msgspec.Struct, kw_only=True):
    """The cases of run 1 on both sides, sorted by how their pass rates compare."""

    paired: list[CaseRates] = msgspec.field(default_factory=list)
    higher: list[str] = msgspec.field(default_factory=list)
    lower: list[str] = msgspec.field(default_factory=list)
    unpaired: list[Unpaired] = msgspec.field(default_factory=list)
    both_passed: int = 0
    both_failed: int = 0
    ties: int = 0
    """Equal rates strictly between 0 and 1 (only with repeats)."""

    def add(self, case_id: str, a: tuple[int, int], b: tuple[int, int]) -> None:
        self.paired.append(CaseRates(id=case_id, a_passes=a[0], a_runs=a[1], b_passes=b[0], b_runs=b[1]))
        share_a, share_b = Fraction(*a), Fraction(*b)
        if share_b > share_a:
            self.higher.append(case_id)
        elif share_b < share_a:
            self.lower.append(case_id)
        elif share_a == 1:
            self.both_passed += 1
        elif share_a == 0:
            self.both_failed += 1
        else:
            self.ties += 1


def _pair(cases_a: list[CaseResult], cases_b: list[CaseResult], a: ModelRuns, b: ModelRuns) -> _Pairing:
    """Run 1's cases of A in order, then those only B has: paired when scored in some run of each."""
    rates_a, rates_b = a.pass_rates(), b.pass_rates()
    ids_b = {case.id: case for case in cases_b}
    found = _Pairing()
    for case_a in cases_a:
        case_b = ids_b.get(case_a.id)
        if case_b is None or case_a.id not in rates_a or case_a.id not in rates_b:
            found.unpaired.append(
                Unpaired(id=case_a.id, a=case_a.status, b=None if case_b is None else case_b.status)
            )
            continue
        found.add(case_a.id, rates_a[case_a.id], rates_b[case_a.id])
    seen = {case.id for case in cases_a}
    found.unpaired.extend(
        Unpaired(id=case.id, a=None, b=case.status) for case in cases_b if case.id not in seen
    )
    return found


def _repeated(
    a: ModelResult, b: ModelResult, runs_a: ModelRuns, runs_b: ModelRuns, pairing: _Pairing
) -> RepeatedComparison:
    """The sign test's extra figures: per-case rates, ties, and the mean difference against the spread."""
    difference = _difference(_rate(a, "overall"), _rate(b, "overall"))
    mean_delta = None if difference is None else round(difference, 4)
    sd_a, sd_b = _overall_sd(runs_a), _overall_sd(runs_b)
    known = [sd for sd in (sd_a, sd_b) if sd is not None]
    spread = max(known) if known else None
    return RepeatedComparison(
        runs_a=runs_a.k,
        runs_b=runs_b.k,
        ties=pairing.ties + pairing.both_passed + pairing.both_failed,
        cases=pairing.paired,
        higher_in_b=pairing.higher,
        lower_in_b=pairing.lower,
        mean_delta=mean_delta,
        sd_a=sd_a,
        sd_b=sd_b,
        spread=spread,
        within_spread=None if mean_delta is None or spread is None else abs(mean_delta) <= spread,
    )


def compare(a: ModelResult, b: ModelResult) -> Comparison:
    """Pair the cases scored in both, list the ones that moved and test them; A is the baseline.

    Each case has a pass rate per side over its runs (0 or 1 with one run), and the exact sign test
    counts the cases whose rate is higher in B against those where it is lower: with one run each,
    that is McNemar's exact test on the flips. With repeated runs on either side the comparison
    also carries `repeats`: the per-case rates, the ties and the run-to-run spread.
    """
    runs_a, runs_b = runs_of(a), runs_of(b)
    pairing = _pair(a.cases, b.cases, runs_a, runs_b)
    paired = len(pairing.paired)
    p = sign_test(len(pairing.higher), len(pairing.lower))
    repeated = runs_a.repeated or runs_b.repeated
    return Comparison(
        model_a=a.model,
        model_b=b.model,
        suite_a=a.suite,
        suite_b=b.suite,
        paired=paired,
        both_passed=pairing.both_passed,
        both_failed=pairing.both_failed,
        b=len(pairing.lower),
        c=len(pairing.higher),
        pass_to_fail=pairing.lower,
        fail_to_pass=pairing.higher,
        unpaired=pairing.unpaired,
        deltas=metric_deltas(a, b),
        p_value=p,
        significant=paired > 0 and p < SIGNIFICANCE,
        verdict=verdict(paired, len(pairing.lower), len(pairing.higher), p),
        test="sign" if repeated else "mcnemar",
        repeats=_repeated(a, b, runs_a, runs_b, pairing) if repeated else None,
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
    "Verdict",
    "compare",
    "format_p",
    "kind_changes",
    "mcnemar_exact",
    "metric_deltas",
    "model_failed_steps",
    "sign_test",
    "verdict",
]

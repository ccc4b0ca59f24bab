"""Which differences are real: tiers of models, and the smallest difference a suite can resolve.

A leaderboard ordered by point estimates invites reading a case or two as a ranking. Two rules,
both on the paired test `lobrec diff` uses (`lobrec.core.compare`: exact McNemar with one run each,
the exact sign test on per-case pass rates with repeats), documented with a worked example in
docs/metrics.md ("Tiers" and "Resolution"):

- **Tiers.** Every pair of scored models is tested; the p-values are adjusted for the number of
  pairs with Holm's step-down method. Models are ordered by overall score (then name). The first
  model leads tier 1; each next model joins its tier unless it differs from the tier's leader
  (adjusted p < 0.05), in which case it leads the next tier. Tiers are therefore contiguous and
  ordered by score, and two models with the same results always share one.
- **Resolution.** The smallest overall difference the paired test detects at 5% with 80% power on
  this many cases, when a share of the cases flips between runs anyway (half each way), plus the
  true difference all one way. Power is computed exactly over the trinomial of (A-only passes,
  B-only passes, the rest), so it holds for a small suite where normal approximations do not.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations

import msgspec

from lobrec.core.compare import SIGNIFICANCE, Comparison, compare
from lobrec.core.repeats import run_outcome
from lobrec.core.results import ModelResult, Record, Resolution, RunResult
from lobrec.core.runs import runs_of

POWER = 0.8
"""The power the resolution is stated at."""
_DECIMALS = 1
"""The resolution is rounded up to 0.1 percentage point."""


# --- tiers -----------------------------------------------------------------------------------------


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order.

    Sorted ascending, the k-th smallest (from 0) is multiplied by (m - k), capped at 1, and made
    non-decreasing; equal raw p-values get equal adjusted ones.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


class PairTest(Record, kw_only=True, frozen=True):
    """One pair of the tier computation: the raw and Holm-adjusted p-values."""

    a: str
    b: str
    p_value: float
    adjusted: float


def _score(model: ModelResult) -> float | None:
    return model.metrics.overall.rate if model.has_scores else None


def ranked(models: Sequence[ModelResult]) -> list[ModelResult]:
    """The models with an overall score, best first, ties by name."""
    scored = [model for model in models if _score(model) is not None]
    return sorted(scored, key=lambda model: (-(_score(model) or 0.0), model.model))


def pair_tests(models: Sequence[ModelResult]) -> list[PairTest]:
    """Every pair of the ranked models tested, in rank order, with Holm's adjustment over all pairs."""
    order = ranked(models)
    pairs = [(a, b, compare(a, b).p_value) for a, b in combinations(order, 2)]
    adjusted = holm([p for _, _, p in pairs])
    return [
        PairTest(a=a.model, b=b.model, p_value=p, adjusted=q)
        for (a, b, p), q in zip(pairs, adjusted, strict=True)
    ]


def tiers(models: Sequence[ModelResult]) -> dict[str, int]:
    """Each scored model's tier (1 is best); models without an overall score have none."""
    tests = {(test.a, test.b): test.adjusted for test in pair_tests(models)}
    found: dict[str, int] = {}
    leader: str | None = None
    tier = 0
    for model in ranked(models):
        if leader is None or tests[leader, model.model] < SIGNIFICANCE:
            tier += 1
            leader = model.model
        found[model.model] = tier
    return found


# --- resolution ------------------------------------------------------------------------------------


@cache
def _rejection_limits(n: int, alpha: float) -> tuple[int, ...]:
    """For each discordant count d in 0..n, the largest min(b, c) the exact test rejects at, or -1.

    The same integers and the same division as `mcnemar_exact`, accumulated along k."""
    limits = []
    for d in range(n + 1):
        total = 1 << d
        k, term, tail = -1, 1, 1  # term = C(d, k + 1), tail = sum of C(d, j) for j <= k + 1
        while k + 1 <= d // 2 and 2 * tail < total and (2 * tail) / total < alpha:
            k += 1
            term = term * (d - k) // (k + 1)
            tail += term
        limits.append(k)
    return tuple(limits)


def _tail(d: int, q: float, cs: range) -> float:
    """The Bin(d, q) probability of the counts in `cs` (a contiguous range), in log space."""
    if not cs:
        return 0.0
    if q <= 0:
        return 1.0 if 0 in cs else 0.0
    if q >= 1:
        return 1.0 if d in cs else 0.0
    log_q, log_r = math.log(q), math.log1p(-q)
    c = cs.start
    log_term = math.lgamma(d + 1) - math.lgamma(c + 1) - math.lgamma(d - c + 1) + c * log_q + (d - c) * log_r
    found = 0.0
    for c in cs:
        found += math.exp(log_term)
        if c < d:
            log_term += math.log(d - c) - math.log(c + 1) + log_q - log_r
    return found


def power(n: int, flip_rate: float, difference: float, alpha: float = SIGNIFICANCE) -> float:
    """The chance the exact two-sided test rejects on n paired cases when a case is A-only with
    probability flip_rate / 2 and B-only with flip_rate / 2 + difference (shares, not percent)."""
    p_a = flip_rate / 2
    p_b = flip_rate / 2 + difference
    discordant = min(1.0, p_a + p_b)
    if n <= 0 or discordant <= 0:
        return 0.0
    toward_b = min(1.0, p_b / discordant)
    limits = _rejection_limits(n, alpha)
    total = 0.0
    weights = [0.0] * (n + 1)
    for d in range(n + 1):
        weights[d] = _tail(n, discordant, range(d, d + 1)) if limits[d] >= 0 else 0.0
    for d in range(1, n + 1):
        limit = limits[d]
        if limit < 0 or weights[d] < 1e-18:
            continue
        # Reject when min(b, c) <= limit: few B-only cases (c <= limit), or few A-only ones.
        low = range(0, limit + 1)
        high = range(max(d - limit, limit + 1), d + 1)
        total += weights[d] * (_tail(d, toward_b, low) + _tail(d, toward_b, high))
    return min(1.0, total)


EXACT_UP_TO = 300
"""Cases up to which the power is computed exactly; above, Connor's normal approximation (1987),
which is close there and keeps a large suite's rescore fast."""


def approximate_power(n: int, flip_rate: float, difference: float, alpha: float = SIGNIFICANCE) -> float:
    """Connor's normal approximation of McNemar's power: with discordance psi = f + d,
    z_power = (d * sqrt(n) - z_alpha * sqrt(psi)) / sqrt(psi - d^2)."""
    psi = flip_rate + difference
    if n <= 0 or psi <= 0 or difference <= 0:
        return 0.0
    normal = statistics.NormalDist()
    z_alpha = normal.inv_cdf(1 - alpha / 2)
    spread = math.sqrt(max(psi - difference * difference, 1e-12))
    return normal.cdf((difference * math.sqrt(n) - z_alpha * math.sqrt(psi)) / spread)


def min_difference(
    n: int, flip_rate: float, alpha: float = SIGNIFICANCE, target: float = POWER
) -> float | None:
    """The smallest difference (percentage points, rounded up to 0.1) the test detects with
    `target` power on n cases with this flip rate (a share); None when no difference can be."""
    chance = power if n <= EXACT_UP_TO else approximate_power
    top = 1 - flip_rate
    if n <= 0 or top <= 0 or chance(n, flip_rate, top, alpha) < target:
        return None
    low, high = 0.0, top
    for _ in range(30):
        middle = (low + high) / 2
        if chance(n, flip_rate, middle, alpha) >= target:
            high = middle
        else:
            low = middle
    step: int = 10**_DECIMALS
    return math.ceil(round(high * 100 * step, 6)) / step


def flips(models: Sequence[ModelResult]) -> tuple[int, int]:
    """Run-to-run flips: over every repeated model and every pair of its runs, the cases scored in
    both with different outcomes, and the cases compared."""
    flipped = compared = 0
    for model in models:
        for one, other in combinations(runs_of(model).run_cases(), 2):
            outcomes = {case.id: run_outcome(case) for case in other}
            for case in one:
                there = outcomes.get(case.id)
                mine = run_outcome(case)
                if mine in ("passed", "failed") and there in ("passed", "failed"):
                    compared += 1
                    flipped += mine != there
    return flipped, compared


def _share(part: int, whole: int) -> Fraction:
    return Fraction(part, whole) if whole else Fraction(0)


def two_way(comparison: Comparison) -> Fraction:
    """The pair's disagreement both ways: 2 * min(b, c) of its paired cases (disagreement that
    cancels out, which the test must see through as it does flips)."""
    return _share(2 * min(comparison.b, comparison.c), comparison.paired)


def run_resolution(models: Sequence[ModelResult]) -> Resolution | None:
    """The resolution of this run: its cases (the most any model had scored), its run-to-run flip
    rate (0 without repeats, which is then a best case); None when no model has scores."""
    cases = max((len(runs_of(model).pass_rates()) for model in models if model.has_scores), default=0)
    if cases == 0:
        return None
    flipped, compared = flips(models)
    rate = _share(flipped, compared)
    return Resolution(
        alpha=SIGNIFICANCE,
        power=POWER,
        cases=cases,
        flip_rate=round(float(rate) * 100, 4),
        repeated=compared > 0,
        min_difference=min_difference(cases, float(rate)),
    )


def pair_resolution(comparison: Comparison, a: ModelResult, b: ModelResult) -> Resolution | None:
    """The resolution for one `diff`: its paired cases, and the larger of the two models' run-to-run
    flip rate and the pair's two-way disagreement (2 * min(b, c) of the paired cases: disagreement
    that cancels out, which the test must see through as it does flips)."""
    if comparison.paired == 0:
        return None
    flipped, compared = flips([a, b])
    rate = max(_share(flipped, compared), two_way(comparison))
    return Resolution(
        alpha=SIGNIFICANCE,
        power=POWER,
        cases=comparison.paired,
        flip_rate=round(float(rate) * 100, 4),
        repeated=compared > 0,
        min_difference=min_difference(comparison.paired, float(rate)),
    )


__all__ = [
    "EXACT_UP_TO",
    "POWER",
    "PairTest",
    "approximate_power",
    "flips",
    "holm",
    "min_difference",
    "pair_resolution",
    "pair_tests",
    "power",
    "rank_run",
    "ranked",
    "run_resolution",
    "tiers",
    "two_way",
    "with_resolution",
]


def with_resolution(comparison: Comparison, a: ModelResult, b: ModelResult) -> Comparison:
    """The comparison with its `resolution` and whether the observed overall difference reaches it."""
    resolution = pair_resolution(comparison, a, b)
    observed = next((item.delta for item in comparison.deltas if item.metric == "overall"), None)
    resolved = None
    if resolution is not None and resolution.min_difference is not None and observed is not None:
        resolved = abs(observed) >= resolution.min_difference
    elif resolution is not None and resolution.min_difference is None:
        resolved = False
    return msgspec.structs.replace(comparison, resolution=resolution, resolved=resolved)


def rank_run(run: RunResult) -> RunResult:
    """The run with each model's `tier` and the run's `resolution` filled in."""
    found = tiers(run.models)
    models = [msgspec.structs.replace(model, tier=found.get(model.model)) for model in run.models]
    return msgspec.structs.replace(run, models=models, resolution=run_resolution(run.models))

"""Which differences are real: tiers of models, and the smallest difference a suite can resolve.

A leaderboard ordered by point estimates invites reading a case or two as a ranking. Two rules,
both on the paired test `lobrec diff` uses (`lobrec.core.metrics.compare`: exact McNemar with one run each,
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
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations

import msgspec

from lobrec.core.metrics.compare import SIGNIFICANCE, Comparison, mcnemar_exact
from lobrec.core.metrics.repeats import run_outcome
from lobrec.core.metrics.results import ModelResult, Record, Resolution, RunResult
from lobrec.core.metrics.runs import runs_of

POWER = 0.8
"""The power the resolution is stated at."""
_DECIMALS = 1
"""The resolution is rounded up to 0.1 percentage point."""


# --- tiers -----------------------------------------------------------------------------------------


def holm_by_value(counts: Mapping[float, int]) -> dict[float, float]:
    """Holm's step-down adjusted p-value of each raw p-value, from how many pairs have it.

    Sorted ascending, the k-th smallest (from 0) is multiplied by (m - k), capped at 1, and made
    non-decreasing. Pairs with equal raw p-values get equal adjusted ones (the first of them has the
    largest multiplier and the running maximum keeps it), so the adjustment is a function of the
    value and m pairs need only their distinct values sorted.
    """
    m = sum(counts.values())
    adjusted: dict[float, float] = {}
    running = 0.0
    rank = 0
    for p in sorted(counts):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[p] = running
        rank += counts[p]
    return adjusted


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order (`holm_by_value`)."""
    adjusted = holm_by_value(Counter(p_values))
    return [adjusted[p] for p in p_values]


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


class Outcomes(msgspec.Struct, frozen=True):
    """One model's pairable cases as bitsets (bit i: the i-th case id of the run), by pass rate.

    A pair reads its two models' bitsets only: B is higher than A on the cases A has at rate r that
    B has above r. The rates are ranked over the whole run, so a rank means the same in every model.
    """

    levels: tuple[tuple[int, int], ...]
    """(rank of a pass rate, the cases at that rate), for every rate the model has but the run's top."""
    above: tuple[int, ...]
    """Per rank r, the cases whose pass rate is above rank r's."""


_Rate = tuple[int, int]
"""A case's (passes, runs scored)."""


def outcome_vectors(models: Sequence[ModelResult]) -> list[Outcomes]:
    """Each model's outcomes, built once (O(models x cases)), in the models' order.

    The cases a pair can test are `compare`'s: in run 1 of the model and scored in one of its runs;
    two models pair on the cases both can test, and a case's pass rate is its passes over the runs
    it was scored in (0 or 1 with one run).
    """
    rates = [_case_rates(model) for model in models]
    rank, count = _rate_ranks(rates)
    index: dict[str, int] = {}
    return [_outcomes(_cases_by_rank(found, rank, count, index)) for found in rates]


def _case_rates(model: ModelResult) -> dict[str, _Rate]:
    """The model's pass rate on each case it can pair on: in run 1 and scored in one of its runs."""
    per_case = runs_of(model).pass_rates()
    return {case.id: per_case[case.id] for case in model.cases if case.id in per_case}


def _rate_ranks(rates: Sequence[Mapping[str, _Rate]]) -> tuple[dict[_Rate, int], int]:
    """Each rate's rank over the whole run, and how many ranks: equal fractions (1/2, 2/4) share one,
    so a rank means the same in every model."""
    distinct = {rate for found in rates for rate in found.values()}
    values = sorted({Fraction(*rate) for rate in distinct})
    rank_of_value = {value: rank for rank, value in enumerate(values)}
    return {rate: rank_of_value[Fraction(*rate)] for rate in distinct}, len(values)


def _cases_by_rank(
    found: Mapping[str, _Rate], rank: Mapping[_Rate, int], count: int, index: dict[str, int]
) -> list[int]:
    """Per rank, the bitset of the model's cases at it; `index` numbers case ids across every model
    (a new id takes the next bit)."""
    at = [0] * count
    for case_id, rate in found.items():
        at[rank[rate]] |= 1 << index.setdefault(case_id, len(index))
    return at


def _above(at: Sequence[int]) -> tuple[int, ...]:
    """Per rank, the union of the bitsets of every higher rank."""
    above = [0] * len(at)
    running = 0
    for level in reversed(range(len(at))):
        above[level] = running
        running |= at[level]
    return tuple(above)


def _outcomes(at: Sequence[int]) -> Outcomes:
    """The model's outcomes from its bitsets by rank: the run's top rank has nothing above it, so it
    is left out of `levels`."""
    levels = tuple((level, cases) for level, cases in enumerate(at) if cases and level < len(at) - 1)
    return Outcomes(levels=levels, above=_above(at))


def discordant(a: Outcomes, b: Outcomes) -> tuple[int, int]:
    """The paired cases whose pass rate is lower in B, and those where it is higher (`compare`'s b, c)."""
    above_a, above_b = a.above, b.above
    higher = sum((cases & above_b[level]).bit_count() for level, cases in a.levels)
    lower = sum((cases & above_a[level]).bit_count() for level, cases in b.levels)
    return lower, higher


_p_value = lru_cache(maxsize=1 << 16)(mcnemar_exact)
"""The pair's p-value from its discordant counts (`sign_test(higher, lower)`, which is
`mcnemar_exact(lower, higher)`): a suite of n cases has at most (n + 1)^2 of them."""


def _pair_p(a: Outcomes, b: Outcomes) -> float:
    return _p_value(*discordant(a, b))


def pair_tests(models: Sequence[ModelResult]) -> list[PairTest]:
    """Every pair of the ranked models tested, in rank order, with Holm's adjustment over all pairs."""
    order = ranked(models)
    vectors = outcome_vectors(order)
    pairs = [
        (order[i].model, order[j].model, _pair_p(vectors[i], vectors[j]))
        for i, j in combinations(range(len(order)), 2)
    ]
    adjusted = holm([p for _, _, p in pairs])
    return [PairTest(a=a, b=b, p_value=p, adjusted=q) for (a, b, p), q in zip(pairs, adjusted, strict=True)]


def _p_value_counts(vectors: Sequence[Outcomes]) -> Counter[float]:
    """How many of all the pairs have each raw p-value (what Holm's step needs of them)."""
    counts: Counter[tuple[int, int]] = Counter()
    for i, a in enumerate(vectors):
        for b in vectors[i + 1 :]:
            counts[discordant(a, b)] += 1
    found: Counter[float] = Counter()
    for key, count in counts.items():
        found[_p_value(*key)] += count
    return found


def tiers(models: Sequence[ModelResult]) -> dict[str, int]:
    """Each scored model's tier (1 is best); models without an overall score have none.

    Every pair is tested (Holm's step needs every raw p-value), but as counts over two bitsets, not
    whole comparisons; the leader rule then reads the adjustment of each leader-model pair.
    """
    order = ranked(models)
    vectors = outcome_vectors(order)
    adjusted = holm_by_value(_p_value_counts(vectors))
    found: dict[str, int] = {}
    leader: Outcomes | None = None
    tier = 0
    for model, vector in zip(order, vectors, strict=True):
        if leader is None or adjusted[_pair_p(leader, vector)] < SIGNIFICANCE:
            tier += 1
            leader = vector
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
    "Outcomes",
    "PairTest",
    "approximate_power",
    "discordant",
    "flips",
    "holm",
    "holm_by_value",
    "min_difference",
    "outcome_vectors",
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
    models = [  # a tier changes none of the model's runs: the view built for the tiers is kept
        runs_of.carry(model, msgspec.structs.replace(model, tier=found.get(model.model)))
        for model in run.models
    ]
    return msgspec.structs.replace(run, models=models, resolution=run_resolution(run.models))

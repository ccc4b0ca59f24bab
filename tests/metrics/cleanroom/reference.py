"""A clean-room reference for the figures that say what a score means (issue 24).

Written from docs/metrics.md, docs/results.md, docs/reports.md and the methodology alone, without
reading lobrec's implementation of them (`lobrec.core.judge.failures`, `tiers`, `routing`, `compare`,
`runs`): it reads the same inputs (the results Structs and the suite) and recomputes, on its own
arithmetic, each step's failure kind, `broke_at`, each model's `failures`, the tiers, the
resolution (run and pair), and `auto`'s routing section. The cross-check tests compare the two.

Where the docs left a choice open, the reading taken here is marked `AMBIGUITY:`. Where the first
reading disagreed with lobrec and the docs did not settle it, docs/metrics.md now states lobrec's
rule and the line here is marked `Settled`; tests/metrics/cleanroom/test_disagreements.py pins each one.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from statistics import NormalDist

from lobrec.core.metrics.results import ApiCall, CaseResult, ModelResult, StepVerdict
from lobrec.core.suite.format import CallStep, Case, Suite

KINDS = (
    "reply_withheld",
    "call_not_needed",
    "malformed_tool_calls",
    "no_call",
    "made_up_tool",
    "premature_chain_call",
    "missing_parallel_call",
    "extra_call",
    "wrong_tool",
    "arguments_not_json",
    "arguments_not_object",
    "argument_check",
    "duplicate_call",
    "other",
)
"""docs/metrics.md "Failure kinds": the table's order is the precedence."""

ALPHA = 0.05
POWER = 0.8
Z95 = 1.959963984540054
EXACT_UP_TO = 300
ROUTER = "auto"


# --- failure kinds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    kind: str
    argument: str | None = None
    check: str | None = None


def _strict_json(text: str | None) -> tuple[bool, object]:
    """(parses, value) under RFC 8259: NaN and Infinity are not JSON.

    AMBIGUITY: "whose text does not parse" does not say which parser; the methodology calls
    NaN/Infinity and repeated keys failures of their own. Repeated keys are valid JSON grammar
    (RFC 8259 only says names SHOULD be unique), so here they parse, into an object.
    """
    if text is None:
        return False, None

    def refuse(constant: str) -> object:
        raise ValueError(constant)

    try:
        return True, json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False, None


_ARGS_PATH = re.compile(r"calls\[(\d+)\]\.arguments")
_CALL_PATH = re.compile(r"calls\[\d+\]")
_NAMED_PATH = re.compile(r"calls\[\d+\]\.arguments\.(.+)", re.DOTALL)


def later_names(case: Case, index: int) -> set[str]:
    """The tools the case's steps after `index` expect ("one fact of the case")."""
    return {
        call.name for step in case.steps[index + 1 :] if isinstance(step, CallStep) for call in step.calls
    }


def classify(verdict: StepVerdict, later: Iterable[str] = ()) -> Kind | None:
    """The failed step's kind, the first of the table's rows that applies; None when it passed."""
    if verdict.passed:
        return None
    later = set(later)
    paths = [mismatch.path for mismatch in verdict.mismatches]
    calls = verdict.calls
    if "message" in paths:
        return Kind("reply_withheld")
    if verdict.expects == "no_call":
        # Settled with lobrec (docs/metrics.md): the rows below read a step where a call was due.
        return Kind("call_not_needed" if calls else "other")
    # AMBIGUITY: "a call had no name": None only; an empty string "" is taken as a name here.
    if "tool_calls" in paths or any(call.name is None for call in calls):
        return Kind("malformed_tool_calls")
    if verdict.expects == "call" and not calls:
        return Kind("no_call")
    # Settled (docs/metrics.md): a call not offered whose name the step does not expect.
    if any(not call.offered and call.name not in verdict.expected_names for call in calls):
        return Kind("made_up_tool")
    called = Counter(call.name for call in calls)
    expected = Counter(verdict.expected_names)
    surplus, missing = called - expected, expected - called
    if any(name in later for name in surplus):
        return Kind("premature_chain_call")
    if missing and not surplus:
        return Kind("missing_parallel_call")
    if surplus and not missing:
        return Kind("extra_call")
    if surplus and missing:
        return Kind("wrong_tool")
    forms = set()
    for mismatch in verdict.mismatches:
        # Settled (docs/metrics.md): a mismatch at calls[i].arguments without a check.
        found = _ARGS_PATH.fullmatch(mismatch.path)
        if found is None or mismatch.check is not None:
            continue
        index = int(found.group(1))
        text = calls[index].arguments if index < len(calls) else None
        parses, _ = _strict_json(text)
        forms.add("arguments_not_object" if parses else "arguments_not_json")
    for form in ("arguments_not_json", "arguments_not_object"):
        if form in forms:
            return Kind(form)
    for mismatch in verdict.mismatches:
        if mismatch.check is not None:
            return Kind("argument_check", mismatch.argument, mismatch.check)
        # Settled (docs/metrics.md): a verdict from before `check`, the argument read from the path.
        named = _NAMED_PATH.fullmatch(mismatch.path)
        if named is not None:
            return Kind("argument_check", named.group(1), None)
    if any(_CALL_PATH.fullmatch(path) for path in paths):
        return Kind("duplicate_call")
    return Kind("other")


def step_passed(result: CaseResult, index: int) -> bool:
    """A step with no verdict has not passed (docs/metrics.md, "Case-based rates")."""
    return index < len(result.steps) and result.steps[index].passed


def case_passed(case: Case, result: CaseResult) -> bool:
    return all(step_passed(result, index) for index in range(len(case.steps)))


def broke_at(case: Case, result: CaseResult) -> int | None:
    """A failed scored case of two or more (suite) steps: the first step with no passing verdict."""
    if result.status != "scored" or len(case.steps) < 2:
        return None
    for index in range(len(case.steps)):
        if not step_passed(result, index):
            return index
    return None


def case_kinds(case: Case, result: CaseResult) -> list[Kind | None]:
    """Each verdict's kind: None for passing steps and every step of a case not scored."""
    if result.status != "scored":
        return [None] * len(result.steps)
    return [classify(verdict, later_names(case, verdict.index)) for verdict in result.steps]


def model_runs(model: ModelResult) -> list[tuple[int, list[CaseResult]]]:
    """(run number, cases) for each run: run 1 is the model's `cases`, the others in `repeats`."""
    if model.repeats is None:
        return [(1, model.cases)]
    runs = [(1, model.cases)]
    runs += [(run.run, run.cases) for run in model.repeats.per_run if run.run != 1]
    return sorted(runs, key=lambda pair: pair[0])


def failures(suite: Suite, model: ModelResult) -> dict[str, int]:
    """Failed steps of scored cases by kind, over every run, in the kinds' order, zeros left out."""
    counts: Counter[str] = Counter()
    for _, cases in model_runs(model):
        for result in cases:
            case = suite.case(result.id)
            if result.status != "scored" or case is None:
                continue
            counts.update(kind.kind for kind in case_kinds(case, result) if kind is not None)
    return {kind: counts[kind] for kind in KINDS if counts[kind]}


# --- the paired test and tiers --------------------------------------------------------------------


def mcnemar(b: int, c: int) -> float:
    """docs/reports.md: p = min(1, 2 * sum_{k <= min(b, c)} C(n, k) / 2^n), n = b + c."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def pass_rates(suite: Suite, model: ModelResult) -> dict[str, tuple[int, int]]:
    """Per case: (runs passed, runs scored), over the runs it was scored in."""
    rates: dict[str, tuple[int, int]] = {}
    for _, cases in model_runs(model):
        for result in cases:
            case = suite.case(result.id)
            if result.status != "scored" or case is None:
                continue
            passes, scored = rates.get(result.id, (0, 0))
            rates[result.id] = (passes + case_passed(case, result), scored + 1)
    return rates


def discordance(suite: Suite, a: ModelResult, b: ModelResult) -> tuple[int, int, int]:
    """(paired, lower in B, higher in B): McNemar's b and c, or the sign test's with repeats.

    Without repeats a case's rate is 0/1 or 1/1, so the sign test on rates is McNemar's test."""
    rates_a, rates_b = pass_rates(suite, a), pass_rates(suite, b)
    lower = higher = paired = 0
    for case_id in rates_a.keys() & rates_b.keys():
        paired += 1
        ra = Fraction(*rates_a[case_id])
        rb = Fraction(*rates_b[case_id])
        lower += rb < ra
        higher += rb > ra
    return paired, lower, higher


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down: sorted ascending, the k-th (from 0) times m - k, capped at 1, running max."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, p_values[index] * (m - rank)))
        adjusted[index] = running
    return adjusted


def tiers(suite: Suite, models: Sequence[ModelResult]) -> dict[str, int | None]:
    scored = [m for m in models if m.has_scores and m.metrics.overall.rate is not None]
    pairs = list(combinations([m.model for m in scored], 2))
    by_name = {m.model: m for m in scored}
    raw = [mcnemar(*discordance(suite, by_name[x], by_name[y])[1:]) for x, y in pairs]
    adjusted = dict(zip(pairs, holm(raw), strict=True))

    def adj(x: str, y: str) -> float:
        return adjusted[(x, y)] if (x, y) in adjusted else adjusted[(y, x)]

    ordered = sorted(scored, key=lambda m: (-(m.metrics.overall.rate or 0.0), m.model))
    result: dict[str, int | None] = {m.model: None for m in models}
    tier, leader = 0, None
    for model in ordered:
        if leader is None or adj(leader, model.model) < ALPHA:
            tier, leader = tier + 1, model.model
        result[model.model] = tier
    return result


# --- resolution -----------------------------------------------------------------------------------


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


@cache
def _limit(d: int) -> int:
    """The largest minority count m whose split of d discordant cases the exact test rejects
    (p < ALPHA), or -1 when no split of d rejects. p falls as the minority shrinks."""
    limit, tail = -1, 0
    for m in range((d + 1) // 2):
        tail += math.comb(d, m)
        if Fraction(2 * tail, 2**d) >= Fraction(ALPHA).limit_denominator():
            break
        limit = m
    return limit


def exact_power(n: int, f: float, delta: float) -> float:
    """P(the exact test rejects at ALPHA): the discordant count d ~ Bin(n, f + delta), B's share of
    it ~ Bin(d, (f/2 + delta) / (f + delta)).

    AMBIGUITY: "detects" is read as "rejects" (p < 0.05), whichever way the split goes.
    """
    q = f + delta
    if q <= 0:
        return 0.0
    share = min(1.0, (f / 2 + delta) / q)
    total = 0.0
    for d, weight in enumerate(_binomial(n, min(1.0, q))):
        m = _limit(d)
        if m < 0 or weight == 0.0:
            continue
        split = _binomial(d, share)
        total += weight * (sum(split[: m + 1]) + sum(split[d - m :]))
    return total


def normal_power(n: int, f: float, delta: float) -> float:
    """Connor (1987): z = (delta * sqrt(n) - z_{a/2} * sqrt(psi)) / sqrt(psi - delta^2), psi = f + delta."""
    psi = f + delta
    spread = psi - delta**2
    if spread <= 0:
        return 1.0
    z = (delta * math.sqrt(n) - Z95 * math.sqrt(psi)) / math.sqrt(spread)
    return NormalDist().cdf(z)


def min_difference(n: int, f: float) -> float | None:
    """The smallest delta on the 0.1 pp grid with POWER, i.e. the threshold rounded up to 0.1 pp
    (power rises with delta); None when delta = 1 - f does not reach it.

    AMBIGUITY: the docs find the threshold by bisection then round up; a grid search gives the
    same figure when power is monotone in delta, and is what is used here.
    """
    chance = exact_power if n <= EXACT_UP_TO else normal_power
    top = 1 - f
    if n <= 0 or top <= 0 or chance(n, f, top) < POWER:
        return None
    lo, hi = 0, math.ceil(round(top * 1000, 9))  # grid steps of 0.001 (0.1 pp)
    # smallest k in (lo, hi] with power(k / 1000) >= POWER, by bisection on the grid
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if chance(n, f, min(mid / 1000, top)) >= POWER:
            hi = mid
        else:
            lo = mid
    return round(hi / 10, 1)


def flips(suite: Suite, models: Sequence[ModelResult]) -> tuple[int, int]:
    """(cases whose outcome differs, cases compared) over every pair of runs of every model."""
    differ = compared = 0
    for model in models:
        runs = model_runs(model)
        outcomes = []
        for _, cases in runs:
            seen = {}
            for result in cases:
                case = suite.case(result.id)
                if result.status == "scored" and case is not None:
                    seen[result.id] = case_passed(case, result)
            outcomes.append(seen)
        for one, two in combinations(outcomes, 2):
            for case_id in one.keys() & two.keys():
                compared += 1
                differ += one[case_id] != two[case_id]
    return differ, compared


def scored_in_run(cases: Sequence[CaseResult]) -> int:
    return sum(result.status == "scored" for result in cases)


@dataclass(frozen=True)
class Res:
    cases: int
    flip_rate: float
    repeated: bool
    min_difference: float | None


def run_resolution(suite: Suite, models: Sequence[ModelResult]) -> Res | None:
    """docs/metrics.md "Resolution": n the most cases any model with scores was scored on in a run;
    f the pooled run-to-run flips.

    AMBIGUITY: "of the cases compared" is read as pooled (all differing / all compared), not as a
    mean of per-pair or per-model shares.
    """
    scored = [m for m in models if m.has_scores]
    if not scored:
        return None
    # Settled (docs/metrics.md): n counts the cases scored in at least one run of the model.
    n = max(len(pass_rates(suite, m)) for m in scored)
    differ, compared = flips(suite, models)
    f = Fraction(differ, compared) if compared else Fraction(0)
    # Settled: `repeated` says flips were measured (some case scored in two runs of a model).
    return Res(n, round(float(f * 100), 4), compared > 0, min_difference(n, float(f)))


def pair_resolution(suite: Suite, a: ModelResult, b: ModelResult) -> Res | None:
    """For `lobrec diff`: n the paired cases; f the larger of each model's run-to-run flips and
    2 * min(b, c) / n."""
    paired, lower, higher = discordance(suite, a, b)
    if paired == 0:
        return None
    # Settled (docs/metrics.md): the two models' flips pooled, as the run's figure pools every model's.
    differ, compared = flips(suite, [a, b])
    pooled = Fraction(differ, compared) if compared else Fraction(0)
    f = max(pooled, Fraction(2 * min(lower, higher), paired))
    return Res(paired, round(float(f * 100), 4), compared > 0, min_difference(paired, float(f)))


# --- routing --------------------------------------------------------------------------------------


def wilson(passed: int, total: int) -> tuple[float, float] | None:
    if total == 0:
        return None
    p, z2 = passed / total, Z95 * Z95
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = Z95 * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    low = 0.0 if passed == 0 else round(100 * (centre - half), 4)
    high = 100.0 if passed == total else round(100 * (centre + half), 4)
    return low, high


def rate(passed: int, total: int) -> tuple[float | None, int, int, tuple[float, float] | None]:
    return (round(100 * passed / total, 4) if total else None), passed, total, wilson(passed, total)


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    values = sorted(values)
    middle = len(values) // 2
    if len(values) % 2:
        return round(values[middle], 1)
    return round((values[middle - 1] + values[middle]) / 2, 1)


def _unpriced(call: ApiCall) -> bool:
    return call.status is not None and 200 <= call.status < 300 and call.cost_usd is None


def _answered(call: ApiCall) -> bool:
    """A transport failure (status null, or lobrec's 599 with an error) is no answer: nothing to price."""
    return call.status is not None and not (call.status == 599 and call.error is not None)


def _price(calls: Iterable[ApiCall]) -> float:
    return math.fsum(call.cost_usd for call in calls if _answered(call) and call.cost_usd is not None)


def cost_per_100(calls: list[ApiCall], cases: int) -> float | None:
    """docs/metrics.md "Cost per 100 cases": the answered calls' prices / cases * 100."""
    if cases == 0 or any(_unpriced(call) for call in calls):
        return None
    return round(_price(calls) / cases * 100, 6)


def case_cost(result: CaseResult) -> float:
    """AMBIGUITY: the oracle's "cheapest" is read as the case's own summed cost in that candidate's
    recording. Settled (docs/metrics.md): an unpriced 2xx makes it unknown, so the dearest."""
    if any(_unpriced(call) for call in result.api_calls):
        return math.inf
    return _price(result.api_calls)


@dataclass(frozen=True)
class Figure:
    name: str
    overall: tuple[float | None, int, int, tuple[float, float] | None]
    cost: float | None
    latency: float | None


def figure(name: str, results: Sequence[CaseResult], passed: Sequence[bool], cases: int) -> Figure:
    calls = [call for result in results for call in result.api_calls]
    latency = _median([call.latency_ms for call in calls if call.latency_ms is not None])
    return Figure(name, rate(sum(passed), cases), cost_per_100(calls, cases), latency)


def outcome(case: Case | None, result: CaseResult | None) -> str | None:
    if result is None:
        return None
    if result.status != "scored":
        return result.status
    return "passed" if case is not None and case_passed(case, result) else "failed"


def chosen(result: CaseResult) -> list[str]:
    """The models that answered the case's judged calls, in step order, each once.

    AMBIGUITY: "in step order" within a step (several judged attempts cannot happen: one per step)
    keeps the calls' order; a nameless answer chooses nothing."""
    names: list[str] = []
    for call in sorted(result.api_calls, key=lambda c: (c.step, c.attempt)):
        if call.judged and call.answered_by is not None and call.answered_by not in names:
            names.append(call.answered_by)
    return names


@dataclass(frozen=True)
class RoutedCaseRef:
    id: str
    chosen: list[str]
    outcome: str | None
    chosen_outcomes: dict[str, str | None]
    best: str | None
    best_outcome: str | None


@dataclass(frozen=True)
class RunRef:
    run: int
    cases: int
    nex: Figure
    candidates: list[Figure]
    direct: Figure
    oracle: Figure
    regret: float | None
    unrecorded_cases: int


@dataclass(frozen=True)
class RoutingRef:
    candidates: list[str]
    recorded: list[str]
    unrecorded: list[str]
    best: str | None
    cases: list[RoutedCaseRef]
    runs: list[RunRef]


def routing(suite: Suite, models: Sequence[ModelResult]) -> RoutingRef | None:
    """docs/metrics.md "Routing"; present only on `auto` when it answered with other models
    (docs/results.md: "absent otherwise").

    AMBIGUITY: metrics.md says the section appears "when the folder also holds the models `auto`
    answered with", results.md that it appears whenever it answered with other models (`runs` []
    when none is recorded); results.md's reading is taken.
    """
    held = {m.model: m for m in models}
    nex = held.get(ROUTER)
    if nex is None:
        return None
    nex_runs = model_runs(nex)
    names = {
        call.answered_by
        for _, cases in nex_runs
        for result in cases
        if result.status == "scored"
        for call in result.api_calls
        if call.judged and call.answered_by is not None and call.answered_by != ROUTER
    }
    if not names:
        return None
    candidates = sorted(names)
    # Settled (docs/metrics.md): a candidate the run holds without a scored case is not recorded.
    recorded = [name for name in candidates if name in held and held[name].has_scores]
    unrecorded = [name for name in candidates if name not in recorded]
    rated = [held[name] for name in recorded if held[name].metrics.overall.rate is not None]
    best = min(rated, key=lambda m: (-(m.metrics.overall.rate or 0.0), m.model)).model if rated else None

    def run_of(name: str, number: int) -> dict[str, CaseResult]:
        runs = dict(model_runs(held[name]))
        cases = runs.get(number, runs[max(runs)])
        return {result.id: result for result in cases}

    first = {name: run_of(name, 1) for name in recorded}
    routed = []
    for result in dict(nex_runs)[1]:
        case = suite.case(result.id)
        picks = chosen(result)
        routed.append(
            RoutedCaseRef(
                id=result.id,
                chosen=picks,
                outcome=outcome(case, result),
                chosen_outcomes={
                    name: outcome(case, first[name].get(result.id)) if name in first else None
                    for name in picks
                },
                best=best,
                best_outcome=outcome(case, first[best].get(result.id)) if best else None,
            )
        )
    runs = []
    if recorded:
        for number, cases in nex_runs:
            runs.append(_routing_run(suite, number, cases, {name: run_of(name, number) for name in recorded}))
    return RoutingRef(candidates, recorded, unrecorded, best, routed, runs)


def _routing_run(
    suite: Suite, number: int, nex: list[CaseResult], held: dict[str, dict[str, CaseResult]]
) -> RunRef:
    # docs/metrics.md: a case Nex answered with a candidate the run does not hold is left out of
    # every figure (the run is then partial, and says how many).
    def unheld(result: CaseResult) -> bool:
        return any(name != ROUTER and name not in held for name in chosen(result))

    scored = [result for result in nex if result.status == "scored"]
    compared = [
        result
        for result in scored
        if not unheld(result)
        and all(
            cases.get(result.id) is not None and cases[result.id].status == "scored"
            for cases in held.values()
        )
    ]
    n = len(compared)
    left_out = sum(unheld(result) for result in scored)

    def passed(result: CaseResult) -> bool:
        case = suite.case(result.id)
        return case is not None and case_passed(case, result)

    nex_figure = figure(ROUTER, compared, [passed(r) for r in compared], n)
    candidate_figures = []
    for name, cases in held.items():
        theirs = [cases[r.id] for r in compared]
        candidate_figures.append(figure(name, theirs, [passed(r) for r in theirs], n))
    # direct: each case as its chosen model(s) answered it; cases with an unrecorded choice left out
    direct_results: list[CaseResult] = []
    direct_passed: list[bool] = []
    direct_cases = 0
    for result in compared:
        picks = chosen(result)
        # AMBIGUITY: a case Nex answered with no named model (no judged call with `answered_by`)
        # has no direct answer; it is left out here like a case whose choice was not recorded.
        if not picks or any(name not in held for name in picks):
            continue
        direct_cases += 1
        answers = [held[name][result.id] for name in picks]
        # AMBIGUITY: with several chosen models (a chain answered by two), the case's calls are
        # every chosen model's recording of it, and it passes when each of them passed.
        direct_results += answers
        direct_passed.append(all(passed(answer) for answer in answers))
    direct = figure("direct", direct_results, direct_passed, direct_cases)
    # oracle: a passing candidate, the cheapest then by name; the cheapest of all when none passed
    oracle_results, oracle_passed = [], []
    for result in compared:
        options = [(name, cases[result.id]) for name, cases in held.items()]
        winners = [option for option in options if passed(option[1])] or options
        _, pick = min(winners, key=lambda option: (case_cost(option[1]), option[0]))
        oracle_results.append(pick)
        oracle_passed.append(passed(pick))
    oracle = figure("oracle", oracle_results, oracle_passed, n)
    # Settled (docs/metrics.md): the difference of the two rates as written (each to 4 decimals).
    shown_nex, shown_oracle = nex_figure.overall[0], oracle.overall[0]
    regret = None if shown_nex is None or shown_oracle is None else round(shown_oracle - shown_nex, 4)
    return RunRef(number, n, nex_figure, candidate_figures, direct, oracle, regret, left_out)


def resolved(a: ModelResult, b: ModelResult, resolution: Res | None) -> bool | None:
    """Whether the observed overall difference reaches the pair's resolution.

    AMBIGUITY: "the observed overall difference" is read as |B's overall - A's overall| as the
    files state them (the diff's overall delta), not the difference on the paired cases only.
    Settled (docs/metrics.md): with no resolvable difference (`min_difference` null) it is not
    resolved (False).
    """
    if resolution is None:
        return None
    if resolution.min_difference is None:
        return False
    rate_a, rate_b = a.metrics.overall.rate, b.metrics.overall.rate
    if rate_a is None or rate_b is None:
        return None
    return abs(rate_b - rate_a) >= resolution.min_difference

"""How Nex routes: `auto` against the models it chose, case by case and run by run.

Through `auto`, Nex picks the model per request, so its score is the score of its choices. When the
run also holds the models it answered with (each call's `answered_by`), the `auto` entry gets a
`routing` section (docs/results.md, "Routing"; the rules are in docs/metrics.md, "Routing"):

- per case (run 1): the model(s) Nex chose, Nex's outcome, each chosen model's own outcome on that
  case, and the outcome of the best candidate (the recorded candidate with the highest overall);
- per run: over the cases scored for Nex and for every recorded candidate, Nex's overall against
  each candidate's, against its choices answered directly (each case judged as its chosen model did
  it), and against an oracle router that sends each case to a candidate that passed it (the
  cheapest, then by name; the cheapest of all when none did); the routing regret is oracle - Nex.
  Cost per 100 cases and p50 latency beside each, by the same rules as every model's.

Candidates Nex answered with but the run does not hold are named, so they can be recorded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lobrec.core.metrics import compute_metrics, rate
from lobrec.core.repeats import run_outcome
from lobrec.core.results import (
    CaseResult,
    ModelResult,
    RoutedCase,
    RouteFigure,
    Routing,
    RoutingRun,
    RunOutcome,
)
from lobrec.core.runs import runs_of
from lobrec.core.suite import Suite

ROUTER = "auto"
"""The routed model: Nex picks the model per request."""


def _chosen(case: CaseResult) -> list[str]:
    names: dict[str, None] = {}
    for call in sorted(case.api_calls, key=lambda call: (call.step, call.attempt)):
        if call.judged and call.answered_by is not None:
            names[call.answered_by] = None
    return list(names)


def _outcome(case: CaseResult | None) -> RunOutcome | None:
    return None if case is None else run_outcome(case)


def _scored(case: CaseResult | None) -> bool:
    return case is not None and case.status == "scored"


def _figure(suite: Suite, name: str, cases: Sequence[CaseResult], passed: Sequence[bool]) -> RouteFigure:
    metrics = compute_metrics(suite, list(cases))
    return RouteFigure(
        name=name,
        overall=rate(sum(passed), len(passed)),
        cost_per_100_cases_usd=metrics.cost_per_100_cases_usd,
        latency_p50_ms=metrics.latency_p50_ms,
    )


def _cost(suite: Suite, case: CaseResult) -> float:
    cost = compute_metrics(suite, [case]).cost_per_100_cases_usd
    return math.inf if cost is None else cost


def _run(
    suite: Suite,
    number: int,
    nex: list[CaseResult],
    candidates: dict[str, dict[str, CaseResult]],
) -> RoutingRun:
    compared = [
        case
        for case in nex
        if _scored(case) and all(_scored(runs.get(case.id)) for runs in candidates.values())
    ]
    figures = []
    for name, runs in candidates.items():
        picked = [runs[case.id] for case in compared]
        figures.append(_figure(suite, name, picked, [case.passed for case in picked]))
    direct_cases: list[CaseResult] = []
    direct_passed: list[bool] = []
    oracle_cases: list[CaseResult] = []
    for case in compared:
        chosen = _chosen(case)
        if chosen and all(name in candidates for name in chosen):
            own = [candidates[name][case.id] for name in chosen]
            direct_cases.extend(own)
            direct_passed.append(all(c.passed for c in own))
        options = [(runs[case.id], name) for name, runs in candidates.items()]
        passing = [option for option in options if option[0].passed] or options
        oracle_cases.append(min(passing, key=lambda option: (_cost(suite, option[0]), option[1]))[0])
    nex_figure = _figure(suite, ROUTER, compared, [case.passed for case in compared])
    oracle = _figure(suite, "oracle", oracle_cases, [case.passed for case in oracle_cases])
    regret = None
    if nex_figure.overall.rate is not None and oracle.overall.rate is not None:
        regret = round(oracle.overall.rate - nex_figure.overall.rate, 4)
    return RoutingRun(
        run=number,
        cases=len(compared),
        nex=nex_figure,
        candidates=figures,
        direct=_figure(suite, "direct", direct_cases, direct_passed),
        oracle=oracle,
        regret=regret,
    )


def routing(suite: Suite, router: ModelResult, models: Sequence[ModelResult]) -> Routing | None:
    """The routing section of `router` given the run's models; None when Nex answered with no
    model other than itself (nothing was routed)."""
    runs = runs_of(router).run_cases()
    names = sorted(
        {
            name
            for cases in runs
            for case in cases
            if case.status == "scored"
            for name in _chosen(case)
            if name != router.model
        }
    )
    if not names:
        return None
    held = {model.model: model for model in models if model.model in names and model.has_scores}
    recorded = [name for name in names if name in held]
    best = min(recorded, key=lambda name: (-(held[name].metrics.overall.rate or 0.0), name), default=None)
    per_run = {name: runs_of(model).run_cases() for name, model in held.items()}

    def candidate_cases(number: int) -> dict[str, dict[str, CaseResult]]:
        return {
            name: {case.id: case for case in per_run[name][min(number, len(per_run[name])) - 1]}
            for name in recorded
        }

    first = candidate_cases(1)
    cases = []
    for case in runs[0]:
        chosen = _chosen(case)
        own = {name: _outcome(first.get(name, {}).get(case.id)) for name in chosen}
        best_case = first[best].get(case.id) if best is not None else None
        cases.append(
            RoutedCase(
                id=case.id,
                chosen=chosen,
                outcome=run_outcome(case),
                chosen_outcomes=own,
                best=best,
                best_outcome=_outcome(best_case),
            )
        )
    return Routing(
        candidates=names,
        recorded=recorded,
        unrecorded=[name for name in names if name not in held],
        best=best,
        cases=cases,
        runs=[_run(suite, number, nex, candidate_cases(number)) for number, nex in enumerate(runs, start=1)]
        if recorded
        else [],
    )


__all__ = ["ROUTER", "routing"]

"""How Nex routes: `auto` against the models it chose, case by case and run by run.

Through `auto`, Nex picks the model per request, so its score is the score of its choices. When the
run also holds the models it answered with (each call's `answered_by`), the `auto` entry gets a
`routing` section (docs/results.md, "Routing"; the rules are in docs/metrics.md, "Routing"):

- per case (run 1): the model(s) Nex chose, Nex's outcome, each chosen model's own outcome on that
  case, and the outcome of the best candidate (the recorded candidate with the highest overall);
- per run: over the cases scored for Nex and for every recorded candidate, and answered by recorded
  candidates only (a case Nex answered with a model the run does not hold is left out of every
  figure and counted in `unrecorded_cases`: the run is then partial), Nex's overall against
  each candidate's, against its choices answered directly (each case judged as its chosen model did
  it), and against an oracle router that sends each case to a candidate that passed it (the
  cheapest, then by name; the cheapest of all when none did); the routing regret is oracle - Nex.
  Cost per 100 cases and p50 latency beside each, by the same rules as every model's.

Candidates Nex answered with but the run does not hold are named, so they can be recorded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lobrec.core.metrics.rates import compute_metrics, cost_per_100, rate
from lobrec.core.metrics.repeats import run_outcome
from lobrec.core.metrics.results import (
    CaseResult,
    ModelResult,
    RoutedCase,
    RouteFigure,
    Routing,
    RoutingRun,
    RunOutcome,
)
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite

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
    """`passed` has one entry per case the figure counts; `cases` every recording they were answered
    with (direct answers a case with every model Nex chose for it), so the cost is per counted case."""
    metrics = compute_metrics(suite, list(cases))
    return RouteFigure(
        name=name,
        overall=rate(sum(passed), len(passed)),
        cost_per_100_cases_usd=cost_per_100(list(cases), len(passed)),
        latency_p50_ms=metrics.latency_p50_ms,
    )


def _cost(case: CaseResult) -> float:
    """The case's cost, for the oracle's cheapest: an unpriced answer's is unknown, so the dearest."""
    cost = cost_per_100([case], 1)
    return math.inf if cost is None else cost


Candidates = dict[str, dict[str, CaseResult]]
"""One run of each recorded candidate: its cases by id, by model name."""


def _direct(compared: Sequence[CaseResult], candidates: Candidates) -> tuple[list[CaseResult], list[bool]]:
    """Nex's choices answered directly: each case's chosen models' own results (cases whose chosen
    model was not recorded are left out), and whether all of them passed."""
    cases: list[CaseResult] = []
    passed: list[bool] = []
    for case in compared:
        chosen = _chosen(case)
        if chosen and all(name in candidates for name in chosen):
            own = [candidates[name][case.id] for name in chosen]
            cases.extend(own)
            passed.append(all(result.passed for result in own))
    return cases, passed


def _oracle(case_id: str, candidates: Candidates) -> CaseResult:
    """The candidate an oracle router sends the case to: one that passed it (the cheapest, then by
    name), or the cheapest of all when none did."""
    options = [(runs[case_id], name) for name, runs in candidates.items()]
    passing = [option for option in options if option[0].passed] or options
    return min(passing, key=lambda option: (_cost(option[0]), option[1]))[0]


def _regret(nex: RouteFigure, oracle: RouteFigure) -> float | None:
    if nex.overall.rate is None or oracle.overall.rate is None:
        return None
    return round(oracle.overall.rate - nex.overall.rate, 4)


def _answered(suite: Suite, name: str, cases: Sequence[CaseResult]) -> RouteFigure:
    """The figure of cases each judged as it was answered."""
    return _figure(suite, name, cases, [case.passed for case in cases])


def _unheld(case: CaseResult, candidates: Candidates) -> bool:
    """Nex answered the case (in part) with a model the run does not hold: the oracle and the direct
    answer could only guess at it, so it is compared with nothing."""
    return any(name != ROUTER and name not in candidates for name in _chosen(case))


def _compared(nex: list[CaseResult], candidates: Candidates) -> list[CaseResult]:
    """Nex's cases scored for Nex and for every recorded candidate, answered by recorded ones only."""
    return [
        case
        for case in nex
        if _scored(case)
        and not _unheld(case, candidates)
        and all(_scored(runs.get(case.id)) for runs in candidates.values())
    ]


def _run(suite: Suite, number: int, nex: list[CaseResult], candidates: Candidates) -> RoutingRun:
    compared = _compared(nex, candidates)
    unheld = sum(_scored(case) and _unheld(case, candidates) for case in nex)
    nex_figure = _answered(suite, ROUTER, compared)
    oracle = _answered(suite, "oracle", [_oracle(case.id, candidates) for case in compared])
    return RoutingRun(
        run=number,
        cases=len(compared),
        unrecorded_cases=unheld,
        nex=nex_figure,
        candidates=[
            _answered(suite, name, [runs[case.id] for case in compared]) for name, runs in candidates.items()
        ],
        direct=_figure(suite, "direct", *_direct(compared, candidates)),
        oracle=oracle,
        regret=_regret(nex_figure, oracle),
    )


def _candidates(router: ModelResult, runs: list[list[CaseResult]]) -> list[str]:
    """Every model other than Nex that answered a judged call of a scored case, in any run, by name."""
    return sorted(
        {
            name
            for cases in runs
            for case in cases
            if case.status == "scored"
            for name in _chosen(case)
            if name != router.model
        }
    )


def _best(recorded: Sequence[ModelResult]) -> str | None:
    """The best recorded candidate: the highest overall, then by name."""
    best = min(recorded, key=lambda model: (-(model.metrics.overall.rate or 0.0), model.model), default=None)
    return None if best is None else best.model


def _routed_case(case: CaseResult, first: Candidates, best: str | None) -> RoutedCase:
    chosen = _chosen(case)
    return RoutedCase(
        id=case.id,
        chosen=chosen,
        outcome=run_outcome(case),
        chosen_outcomes={name: _outcome(first.get(name, {}).get(case.id)) for name in chosen},
        best=best,
        best_outcome=None if best is None else _outcome(first[best].get(case.id)),
    )


def _run_of(per_run: dict[str, list[list[CaseResult]]], number: int) -> Candidates:
    """Run `number` of each candidate (its last run when it has fewer), its cases by id."""
    return {
        name: {case.id: case for case in runs[min(number, len(runs)) - 1]} for name, runs in per_run.items()
    }


def _held(names: list[str], models: Sequence[ModelResult]) -> dict[str, ModelResult]:
    """The candidates this run holds with scores, in the order of `names`."""
    found = {model.model: model for model in models if model.has_scores}
    return {name: found[name] for name in names if name in found}


def routing(suite: Suite, router: ModelResult, models: Sequence[ModelResult]) -> Routing | None:
    """The routing section of `router` given the run's models; None when Nex answered with no
    model other than itself (nothing was routed)."""
    runs = runs_of(router).run_cases()
    names = _candidates(router, runs)
    if not names:
        return None
    held = _held(names, models)
    best = _best(list(held.values()))
    per_run = {name: runs_of(model).run_cases() for name, model in held.items()}
    first = _run_of(per_run, 1)
    # With no recorded candidate there is nothing to compare a run with (and no oracle to ask).
    compared = (
        []
        if not held
        else [_run(suite, number, nex, _run_of(per_run, number)) for number, nex in enumerate(runs, start=1)]
    )
    return Routing(
        candidates=names,
        recorded=list(held),
        unrecorded=[name for name in names if name not in held],
        best=best,
        cases=[_routed_case(case, first, best) for case in runs[0]],
        runs=compared,
    )


__all__ = ["ROUTER", "routing"]

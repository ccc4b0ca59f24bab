"""Side-by-side: lobrec's figures as written in a results file, and the reference's, as plain data.

Each function returns (lobrec's, the reference's) for one figure, so a test asserts equality and a
failure prints both.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from lobrec.core.metrics.results import ModelResult, Resolution, Routing, RunResult
from lobrec.core.suite.format import Suite
from tests.metrics.cleanroom import reference as ref


def kinds(suite: Suite, model: ModelResult) -> tuple[list[Any], list[Any]]:
    """Per run, case and step: (kind, argument, check), and per case `broke_at`."""
    ours: list[Any] = []
    theirs: list[Any] = []
    for number, cases in ref.model_runs(model):
        for result in cases:
            case = suite.case(result.id)
            assert case is not None
            where = (model.model, number, result.id)
            theirs.append((*where, "broke_at", result.broke_at))
            ours.append((*where, "broke_at", ref.broke_at(case, result)))
            for verdict, kind in zip(result.steps, ref.case_kinds(case, result), strict=True):
                theirs.append(
                    (
                        *where,
                        verdict.index,
                        verdict.failure_kind,
                        verdict.failure_argument,
                        verdict.failure_check,
                    )
                )
                ours.append(
                    (
                        *where,
                        verdict.index,
                        *((kind.kind, kind.argument, kind.check) if kind else (None,) * 3),
                    )
                )
    return theirs, ours


def failures(suite: Suite, model: ModelResult) -> tuple[list[Any], list[Any]]:
    """The counts with their order (the file's key order is part of the rule)."""
    return list(model.failures.items()), list(ref.failures(suite, model).items())


def tiers(suite: Suite, run: RunResult) -> tuple[dict[str, int | None], dict[str, int | None]]:
    return {m.model: m.tier for m in run.models}, ref.tiers(suite, run.models)


def resolution(found: Resolution | None, expected: ref.Res | None) -> tuple[Any, Any]:
    theirs = None if found is None else json.loads(msgspec.json.encode(found))
    ours = (
        None
        if expected is None
        else {
            "alpha": ref.ALPHA,
            "power": ref.POWER,
            "cases": expected.cases,
            "flip_rate": expected.flip_rate,
            "repeated": expected.repeated,
            "min_difference": expected.min_difference,
        }
    )
    return theirs, ours


def _rate(value: tuple[float | None, int, int, tuple[float, float] | None]) -> dict[str, Any]:
    shown, passed, total, ci95 = value
    return {"rate": shown, "passed": passed, "total": total, "ci95": None if ci95 is None else list(ci95)}


def _figure(value: ref.Figure) -> dict[str, Any]:
    return {
        "name": value.name,
        "overall": _rate(value.overall),
        "cost_per_100_cases_usd": value.cost,
        "latency_p50_ms": value.latency,
    }


def routing(found: Routing | None, expected: ref.RoutingRef | None) -> tuple[Any, Any]:
    theirs = None if found is None else json.loads(msgspec.json.encode(found))
    if expected is None:
        return theirs, None
    ours = {
        "candidates": expected.candidates,
        "recorded": expected.recorded,
        "unrecorded": expected.unrecorded,
        "best": expected.best,
        "cases": [
            {
                "id": case.id,
                "chosen": case.chosen,
                "outcome": case.outcome,
                "chosen_outcomes": case.chosen_outcomes,
                "best": case.best,
                "best_outcome": case.best_outcome,
            }
            for case in expected.cases
        ],
        "runs": [
            {
                "run": run.run,
                "cases": run.cases,
                "nex": _figure(run.nex),
                "candidates": [_figure(figure) for figure in run.candidates],
                "direct": _figure(run.direct),
                "oracle": _figure(run.oracle),
                "regret": run.regret,
                # absent from the file when none was left out
                **({"unrecorded_cases": run.unrecorded_cases} if run.unrecorded_cases else {}),
            }
            for run in expected.runs
        ],
    }
    return theirs, ours

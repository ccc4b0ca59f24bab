"""What a score means, laid out: failure kinds per model, tiers, the resolution, and `auto`'s routing.

Plain rows of text (names not yet escaped), so the terminal and Markdown reports each add their own
escaping and table; kept apart from the other report modules so the one-view report layer can take
them over whole. The numbers come from `lobrec.core.judge.failures`, `tiers` and `routing`.
"""

from __future__ import annotations

from lobrec.core.judge.failures import FAILURE_KINDS, kind_label
from lobrec.core.metrics.results import ModelResult, Resolution, RouteFigure, RoutingRun, RunResult
from lobrec.core.words import counted
from lobrec.reports._format import DASH, cost, latency, percent, points
from lobrec.reports._text import printable
from lobrec.reports.leaderboard import Column, ranked

TIER = Column(
    "tier",
    "Tier",
    lambda model: DASH if model.tier is None else str(model.tier),
    sort=lambda model: model.tier,
)
"""The leaderboard's tier column: models sharing a number cannot be told apart; sorted as a number
(tier 10 after tier 9), a model with no tier last."""


def has_tiers(run: RunResult) -> bool:
    """Tiers are shown only where there is something to tell apart: two or more tiered models."""
    return sum(model.tier is not None for model in run.models) >= 2


def tier_key(run: RunResult) -> str:
    """The key's line on tiers, under every leaderboard: what a tier means, in one sentence, and the
    smallest overall difference this run can resolve; empty when no two models are tiered."""
    resolution = run.resolution
    if not has_tiers(run) or resolution is None:
        return ""
    if resolution.min_difference is None:
        resolves = f"on {counted(resolution.cases, 'case')} no overall difference can be resolved"
    else:
        resolves = (
            f"on {counted(resolution.cases, 'case')} only overall differences of "
            f"{points(resolution.min_difference)} or more can be resolved"
        )
    return f"Tier: models sharing a tier cannot be told apart by the paired test (Holm) · {resolves}"


def failure_rows(run: RunResult) -> tuple[list[str], list[list[str]]]:
    """(header, rows): per model with failed steps, the count of each kind any model has."""
    models = [model for model in ranked(run) if model.failures]
    kinds = [kind for kind in FAILURE_KINDS if any(kind in model.failures for model in models)]
    header = ["Model", *map(kind_label, kinds), "Failed steps"]
    rows = [
        [
            printable(model.model),
            *(str(model.failures.get(kind, 0)) for kind in kinds),
            str(sum(model.failures.values())),
        ]
        for model in models
    ]
    return header, rows


def kinds_text(model: ModelResult) -> str:
    """`40 failed steps: needless call 10, args not JSON 9, ...`: most frequent first."""
    kinds = sorted(model.failures.items(), key=lambda item: -item[1])  # stable: precedence on ties
    listed = ", ".join(f"{kind_label(kind)} {count}" for kind, count in kinds)
    return f"{counted(sum(model.failures.values()), 'failed step')}: {listed}"


def resolution_sentence(
    resolution: Resolution | None, observed: float | None = None, noise: str | None = None
) -> str:
    """The resolution in words, and where `observed` (pp) stands against it; empty without one.
    `noise` says where a pair's flip rate came from (`lobrec diff`); without it, the run's flips."""
    if resolution is None:
        return ""
    share = percent(resolution.flip_rate)
    on = f"On {counted(resolution.cases, 'case')}"
    if noise is not None:
        head = f"{on}, taking {share} of them as noise ({noise})"
    else:
        measured = "measured between repeated runs" if resolution.repeated else "no repeats: a best case"
        head = f"{on}, with {share} of them flipping either way ({measured})"
    test = f"at {resolution.alpha:.0%} with {resolution.power:.0%} power"
    if resolution.min_difference is None:
        return f"{head}, no overall difference can be resolved {test}."
    sentence = (
        f"{head}, the smallest overall difference resolved {test} is {points(resolution.min_difference)}"
    )
    if observed is None:
        return sentence + "."
    where = "above" if abs(observed) >= resolution.min_difference else "below"
    return sentence + f"; the observed difference ({points(observed, signed=True)}) is {where} it."


def resolution_line(run: RunResult) -> str:
    """The run's resolution in full, shown with the tiers only (a single model has neither)."""
    return resolution_sentence(run.resolution) if has_tiers(run) else ""


def _figure_row(label: str, figure: RouteFigure) -> list[str]:
    overall = figure.overall
    counts = DASH if overall.total == 0 else f"{overall.passed}/{overall.total}"
    return [
        label,
        percent(overall.rate),
        counts,
        cost(figure.cost_per_100_cases_usd),
        latency(figure.latency_p50_ms),
    ]


ROUTING_HEADER = ["Answered by", "Overall", "Passed", "Cost/100 cases", "p50 latency"]


def _routing_heading(run: RoutingRun) -> str:
    """`run 1: 80 cases scored for Nex and every recorded candidate; routing regret 13.8 pp`; a run
    with cases answered by a candidate not recorded says it is partial and how many were left out."""
    regret = DASH if run.regret is None else f"{run.regret:.1f} pp"
    compared = f"{counted(run.cases, 'case')} scored for Nex and every recorded candidate"
    if not run.unrecorded_cases:
        return f"run {run.run}: {compared}; routing regret {regret}"
    left_out = counted(run.unrecorded_cases, "more case")
    return (
        f"run {run.run}, partial: {compared} ({left_out} answered with a candidate not recorded, "
        f"left out of every figure); routing regret {regret} over those {run.cases}"
    )


def routing_rows(model: ModelResult) -> list[tuple[str, list[list[str]]]]:
    """Per run of a routed model: (its heading line, rows of Nex, each candidate, direct, oracle)."""
    routing = model.routing
    assert routing is not None
    found = []
    for run in routing.runs:
        heading = _routing_heading(run)
        rows = [
            _figure_row(f"{printable(model.model)} (Nex)", run.nex),
            *(_figure_row(printable(figure.name), figure) for figure in run.candidates),
            _figure_row("Nex's choices, answered directly", run.direct),
            _figure_row("oracle router (a passing candidate)", run.oracle),
        ]
        found.append((heading, rows))
    return found


def routing_notes(model: ModelResult) -> list[str]:
    """Plain lines: the candidates, the unrecorded ones, and the cases Nex lost to its choice."""
    routing = model.routing
    assert routing is not None
    lines = [f"candidates Nex answered with: {', '.join(map(printable, routing.candidates))}"]
    if routing.unrecorded:
        lines.append(
            "not recorded, so not compared: "
            + ", ".join(map(printable, routing.unrecorded))
            + " (record them with `lobrec record --model NAME` into the same cassettes folder)"
        )
    lost = [case.id for case in routing.cases if case.outcome == "failed" and case.best_outcome == "passed"]
    if lost and routing.best is not None:
        best = printable(routing.best)
        lines.append(f"failed where the best candidate ({best}) passed: {', '.join(map(printable, lost))}")
    return lines

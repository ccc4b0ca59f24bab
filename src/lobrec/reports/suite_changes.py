"""The view of the `rescore --against OLD` section, which the terminal, Markdown and HTML reports show.

One summary of the suite diff, then per model a table of each metric under OLD and NEW with the
difference, and the cases a check change flipped. The section's view (`suite_changes_view`) is
built once from the results' `suite_changes` (`view.report_view` holds it); each format's module
renders it (`terminal`, `markdown`, the HTML through `templates/_suite_changes.html.j2`). Values go
through `_format`, so the three reports agree with each other and with the leaderboard.
"""

from __future__ import annotations

from dataclasses import dataclass

from lobrec.core.metrics.rates import RATE_METRICS, VALUE_METRICS, Unit
from lobrec.core.metrics.results import RateChange, SuiteChanges
from lobrec.reports._format import change

LABELS = {metric: label for metric, label, _ in RATE_METRICS} | {
    metric: label for metric, label, _, _ in VALUE_METRICS
}
UNITS: dict[str, Unit] = {metric: unit for metric, _, unit, _ in VALUE_METRICS}


def rows(item_list: list[RateChange]) -> list[tuple[str, str, str, str]]:
    """(metric, under OLD, under NEW, NEW - OLD) as text, one row per metric."""
    return [
        (LABELS.get(item.metric, item.metric), *change(item.old, item.new, UNITS.get(item.metric, "pp"))[:3])
        for item in item_list
    ]


def summary_lines(changes: SuiteChanges) -> list[str]:
    """What changed from OLD to NEW, in plain text (case ids not yet escaped)."""
    old, new = changes.old, changes.new
    lines = [
        f"Suite changes from {old.name} {old.version} to {new.name} {new.version} "
        f"(the changes need a {changes.required_bump} version):"
    ]
    for label, ids in (
        ("checks changed, re-judged", changes.checks_changed),
        ("request changed, stale until recorded again", changes.request_changed),
        ("added", changes.added),
        ("removed", changes.removed),
    ):
        lines.append(f"{label}: {len(ids)}" + (f" ({', '.join(ids)})" if ids else ""))
    return lines


def flip_lines(model_flips: tuple[list[str], list[str]]) -> list[str]:
    pass_to_fail, fail_to_pass = model_flips
    lines = []
    for label, ids in (("Pass → fail", pass_to_fail), ("Fail → pass", fail_to_pass)):
        lines.append(f"{label} because a check changed ({len(ids)}): {', '.join(ids) if ids else '—'}")
    return lines


@dataclass(frozen=True)
class ModelChanges:
    """One model's part of the section: its metric rows and its flip lines, as text."""

    model: str
    rows: list[tuple[str, str, str, str]]
    flips: list[str]


@dataclass(frozen=True)
class SuiteChangesView:
    """The section as every format shows it: the versions, the summary lines (plain text, not yet
    escaped; the first is the heading sentence), one `ModelChanges` per model."""

    old: str
    new: str
    summary: list[str]
    models: list[ModelChanges]


def suite_changes_view(changes: SuiteChanges) -> SuiteChangesView:
    return SuiteChangesView(
        old=changes.old.version,
        new=changes.new.version,
        summary=summary_lines(changes),
        models=[
            ModelChanges(
                model=model.model,
                rows=rows(model.deltas),
                flips=flip_lines((model.pass_to_fail, model.fail_to_pass)),
            )
            for model in changes.models
        ],
    )

"""The `rescore --against OLD` section, in the terminal, Markdown and HTML reports alike.

One summary of the suite diff, then per model a table of each metric under OLD and NEW with the
difference, and the cases a check change flipped. Values go through `_format`, so the three
reports agree with each other and with the leaderboard.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from lobrec.core.metrics import RATE_METRICS, VALUE_METRICS, Unit
from lobrec.core.results import RateChange, SuiteChanges
from lobrec.reports._format import change, printable
from lobrec.reports.markdown_syntax import md, table

if TYPE_CHECKING:
    from rich.console import Console

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


def render_suite_changes(changes: SuiteChanges, console: Console) -> None:
    """Print the section: the summary, then per model the metric table and the flips."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console.print()
    for line in summary_lines(changes):
        console.print(Text(printable(line)))
    for model in changes.models:
        table = Table(
            title=Text(
                f"{printable(model.model)}: {changes.old.version} → {changes.new.version}", style="bold"
            ),
            box=box.SIMPLE_HEAD,
            show_edge=False,
        )
        for column in ("Metric", changes.old.version, changes.new.version, "Δ"):
            table.add_column(
                printable(column), justify="left" if column == "Metric" else "right", no_wrap=True
            )
        for row in rows(model.deltas):
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
        for line in flip_lines((model.pass_to_fail, model.fail_to_pass)):
            console.print(Text(printable(line)))


def render_suite_changes_markdown(changes: SuiteChanges) -> str:
    """The section as Markdown: a heading, the summary list, a table and the flips per model."""
    first, *rest = summary_lines(changes)
    parts = ["#### Suite changes", md(first), "\n".join(f"- {md(line)}" for line in rest)]
    for model in changes.models:
        header = ["Metric", md(changes.old.version), md(changes.new.version), "Δ"]
        parts.append(f"**{md(model.model)}**")
        parts.append(table(header, [[md(cell) for cell in row] for row in rows(model.deltas)]))
        parts.append(
            "\n".join(f"- {md(line)}" for line in flip_lines((model.pass_to_fail, model.fail_to_pass)))
        )
    return "\n\n".join(parts)


def render_suite_changes_html(changes: SuiteChanges) -> str:
    """The section as HTML, escaped."""

    def esc(text: str) -> str:
        return html.escape(printable(text), quote=True)

    first, *rest = summary_lines(changes)
    parts = ['<section id="suite-changes"><h2>Suite changes</h2>', f"<p>{esc(first)}</p><ul>"]
    parts.extend(f"<li>{esc(line)}</li>" for line in rest)
    parts.append("</ul>")
    for model in changes.models:
        parts.append(f"<h3>{esc(model.model)}</h3><table><thead><tr><th>Metric</th>")
        parts.append(
            f"<th>{esc(changes.old.version)}</th><th>{esc(changes.new.version)}</th><th>Δ</th></tr></thead><tbody>"
        )
        for row in rows(model.deltas):
            parts.append("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>")
        parts.append("</tbody></table><ul>")
        parts.extend(f"<li>{esc(line)}</li>" for line in flip_lines((model.pass_to_fail, model.fail_to_pass)))
        parts.append("</ul>")
    parts.append("</section>")
    return "".join(parts)

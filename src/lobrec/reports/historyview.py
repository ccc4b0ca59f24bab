"""The view of `lobrec history`: a leaderboard over time, shaped once for every format.

The numbers come from `lobrec.core.metrics.history`; this module says them in words and marks, and
the format modules lay them out (`terminal.render_history`, `markdown.render_history_markdown`,
`html.render_history_html`, `export.encode_history`). Every format reads the same rows
(`step_rows`) and the same marks (`cell`), so the four agree: a step is flagged ▲ or ▼ only when
the paired test found it real; ↺ marks the same recordings re-judged, ≠ a step that could not be
compared, § a file whose suite differs from the one before.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from lobrec.core.metrics.compare import format_p
from lobrec.core.metrics.history import History, HistoryRun, ModelHistory, Point, Step
from lobrec.core.words import counted
from lobrec.reports import history_chart
from lobrec.reports._format import DASH, GLOSSARY, change, percent
from lobrec.reports.history_chart import PALETTE

ARROWS = {"better": "▲", "worse": "▼"}
RESCORED = "↺"
NOT_COMPARABLE = "≠"
SUITE_CHANGED = "§"
ABSENT = "·"
KEY = (
    f"{ARROWS['better']}/{ARROWS['worse']} better/worse by the paired test (p < 0.05) · {RESCORED} rescored: "
    f"the same recordings re-judged · {NOT_COMPARABLE} not comparable with the model's previous file · "
    f"{SUITE_CHANGED} the suite changed at this file · {ABSENT} not in that file · {DASH} no scores · "
    f"terms: {GLOSSARY}"
)
"""The line under every history table that explains its marks."""


class StepRow(NamedTuple):
    """One step of one model, with both ends, as every format lists it."""

    model: str
    before: Point
    after: Point
    step: Step


def step_rows(history: History) -> list[StepRow]:
    """Every step, by the file it ends at, then in the history's model order."""
    rows = []
    for model in history.models:
        by_run = points_by_run(model)
        for point in model.points:
            if point.step is not None:
                rows.append(StepRow(model.model, by_run[point.step.since], point, point.step))
    return sorted(rows, key=lambda row: row.after.run)  # stable: model order within a file


def run_heading(run: HistoryRun) -> str:
    """`#2`, with § when the suite changed at that file."""
    return f"#{run.run}" + (f" {SUITE_CHANGED}" if run.suite_changed else "")


def marks(step: Step | None) -> str:
    """The marks of a step: its arrow when real, ↺ when rescored, ≠ when not comparable."""
    if step is None:
        return ""
    parts = [ARROWS.get(step.verdict, "")]
    if not step.comparable:
        parts.append(NOT_COMPARABLE)
    if step.provenance == "rescored":
        parts.append(RESCORED)
    return "".join(parts)


def cell(point: Point | None) -> str:
    """A model in one file: `85.0% ▼↺`, `—` without scores, `·` when not in the file."""
    if point is None:
        return ABSENT
    flags = marks(point.step)
    return f"{percent(point.overall)} {flags}".rstrip()


def suite_text(run: HistoryRun) -> str:
    return f"{run.suite.name} {run.suite.version}"


def title(history: History) -> str:
    """`History of 3 files: lobstack-tools 1.1.0 → 1.2.0` (each suite once, in order)."""
    suites = list(dict.fromkeys(suite_text(run) for run in history.runs))
    return f"History of {counted(len(history.runs), 'results file')}: {' → '.join(suites)}"


def delta_text(row: StepRow) -> str:
    """The overall rate's change as the diff prints it (`+2.5 pp`), a dash when either has none."""
    return change(row.before.overall, row.after.overall, "pp").delta


def test_text(step: Step) -> str:
    """The test in a few words: `exact McNemar p=0.0313 on 80 cases (4 worse, 0 better)`."""
    if not step.comparable or step.p_value is None:
        return f"not comparable: {step.reason}"
    name = "exact sign test" if step.test == "sign" else "exact McNemar"
    counts = f"{step.worse} worse, {step.better} better"
    text = f"{name} {format_p(step.p_value)} on {counted(step.cases, 'case')} ({counts})"
    return text + (f"; {step.reason}" if step.reason else "")


def verdict_text(step: Step) -> str:
    if step.verdict == "none":
        return "not comparable" if not step.comparable else "no significant difference"
    return f"{ARROWS[step.verdict]} {step.verdict}"


def provenance_text(step: Step) -> str:
    return {
        "rescored": "rescored (same recordings)",
        "recorded": "new recordings",
        "unknown": "provenance unknown",
    }[step.provenance]


def step_line(row: StepRow) -> str:
    """One step in one line: `fixture/sloppy #1 → #2: ▼ worse, -5.0 pp; exact McNemar …; rescored`."""
    step = row.step
    return (
        f"{row.model} #{step.since} → #{row.after.run}: {verdict_text(step)}, {delta_text(row)}; "
        f"{test_text(step)}; {provenance_text(step)}"
    )


def step_lines(history: History) -> dict[tuple[str, int], str]:
    """Every step's `step_line`, by its model and the file it ends at: the hover of its cell and of
    its point on the chart."""
    return {(row.model, row.after.run): step_line(row) for row in step_rows(history)}


def notes(history: History, *, shorten: bool = False) -> list[str]:
    """What a reader must know about the order and the suites; `shorten` (the terminal only) names
    three models and counts the rest, as no Markdown or HTML list is cut (docs/reports.md)."""
    lines = []
    for previous, run in zip(history.runs, history.runs[1:], strict=False):
        if run.recorded_earlier:
            shown = run.recorded_earlier[:3] if shorten else run.recorded_earlier
            names = ", ".join(shown)
            more = len(run.recorded_earlier) - len(shown)
            names += f" and {more} more" if more > 0 else ""
            lines.append(
                f"#{run.run} holds older recordings of {names} than an earlier file does: files are "
                "shown in the order given; were they given out of order?"
            )
        if run.suite_changed:
            lines.append(
                f"#{run.run} is on suite {suite_text(run)} ({SUITE_CHANGED}), "
                f"#{previous.run} on {suite_text(previous)}."
            )
    return lines


def points_by_run(model: ModelHistory) -> dict[int, Point]:
    """A model's points by the file (run number) each is in."""
    return {point.run: point for point in model.points}


def recorded_date(run: HistoryRun) -> str:
    """A file's newest recording as a person reads a date (`2026-12-03 16:30 UTC`), not the ISO
    timestamp the results file holds; a dash without one, any other text as written."""
    if not run.recorded_at:
        return DASH
    try:
        moment = dt.datetime.fromisoformat(run.recorded_at)
    except ValueError:
        return run.recorded_at
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def run_line(run: HistoryRun) -> str:
    """A file in one line: `#2 §: suite lobstack-tools 1.2.0, runs/b.json, newest recording …, 10 models`."""
    recorded = f"newest recording {recorded_date(run)}" if run.recorded_at else "no recording dates"
    models = counted(run.models, "model")
    return f"{run_heading(run)}: {run.label}, suite {suite_text(run)}, {recorded}, {models}"


# --- the HTML page's table and chart --------------------------------------------------------------


class HtmlCell(NamedTuple):
    text: str
    kind: str
    """`better`, `worse`, `absent` or empty: the cell's class."""
    title: str


class HtmlRow(NamedTuple):
    model: str
    colour: str
    cells: list[HtmlCell]


def html_rows(history: History) -> list[HtmlRow]:
    """The table's rows: each cell's text, class and hover (the step in one line)."""
    lines = step_lines(history)
    rows = []
    for index, model in enumerate(history.models):
        points = points_by_run(model)
        cells = []
        for run in history.runs:
            point = points.get(run.run)
            if point is None:
                cells.append(HtmlCell(ABSENT, "absent", f"{model.model} is not in #{run.run}"))
                continue
            kind = point.step.verdict if point.step is not None and point.step.verdict != "none" else ""
            counts = f"{point.scored} of {counted(point.cases, 'case')} scored"
            hover = lines.get((model.model, run.run), f"{model.model} #{run.run}: first file holding it")
            cells.append(HtmlCell(cell(point), kind, f"{hover} ({counts})"))
        rows.append(HtmlRow(model.model, PALETTE[index % len(PALETTE)], cells))
    return rows


def chart(history: History) -> history_chart.Chart:
    """The page's line chart (`history_chart.chart`), each point's hover its step in one line."""
    return history_chart.chart(history, step_lines(history))

"""`lobrec history` rendered: a leaderboard over time for the terminal, Markdown, HTML and JSON.

The numbers come from `lobrec.core.metrics.history`; this module lays them out. Every format reads the same
rows (`step_rows`) and the same marks (`MARKS`, `cell`), so the four agree: a step is flagged ▲ or
▼ only when the paired test found it real; ↺ marks the same recordings re-judged, ≠ a step that
could not be compared, § a file whose suite differs from the one before.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

import msgspec
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lobrec.core.metrics.compare import format_p
from lobrec.core.metrics.history import History, HistoryRun, ModelHistory, Point, Step
from lobrec.core.words import counted
from lobrec.reports import history_chart
from lobrec.reports._format import DASH, GLOSSARY, change, percent
from lobrec.reports._text import printable
from lobrec.reports.history_chart import PALETTE
from lobrec.reports.markdown_syntax import md, table
from lobrec.reports.terminal import pack_phrases

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
        by_run = {point.run: point for point in model.points}
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


def _points(model: ModelHistory) -> dict[int, Point]:
    return {point.run: point for point in model.points}


# --- terminal --------------------------------------------------------------------------------------


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


def runs_table(history: History) -> Table:
    """Run, file, suite, newest recording and models, one row per file."""
    result = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    for name in ("Run", "File", "Suite", "Newest recording", "Models"):
        result.add_column(name, no_wrap=name != "File", justify="right" if name == "Models" else "left")
    for run in history.runs:
        result.add_row(
            Text(run_heading(run)),
            Text(printable(run.label)),
            Text(printable(suite_text(run))),
            Text(printable(recorded_date(run))),
            Text(str(run.models)),
        )
    return result


def history_table(history: History, runs: list[HistoryRun] | None = None) -> Table:
    """One row per model, one column per file (`runs`: some of the files, default all): the overall
    rate and the step's marks."""
    shown = history.runs if runs is None else runs
    result = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    result.add_column("Model", overflow="fold")  # only a name wider than the terminal folds; no rate is cut
    for run in shown:
        result.add_column(run_heading(run), justify="right", no_wrap=True)
    for model in history.models:
        points = _points(model)
        cells = []
        for run in shown:
            point = points.get(run.run)
            step = point.step if point is not None else None
            style = {"better": "green", "worse": "red"}.get(step.verdict if step else "", "")
            cells.append(Text(cell(point), style=style))
        result.add_row(Text(printable(model.model)), *cells)
    return result


def _width(table: Table) -> int:
    from rich.console import Console

    return Console(width=100_000).measure(table).maximum


def history_tables(history: History, width: int) -> list[Table]:
    """The table laid out for `width` columns: whole when it fits, else in parts, each starting with
    the model names and holding as many files, in order, as fit (at least one), so no cell is cut."""
    parts: list[list[HistoryRun]] = [[]]
    for run in history.runs:
        trial = [*parts[-1], run]
        if parts[-1] and _width(history_table(history, trial)) > width:
            parts.append([run])
        else:
            parts[-1] = trial
    return [history_table(history, part) for part in parts]


def _print_files(history: History, console: Console) -> None:
    """The files' table, or in a terminal too narrow for it a line per file (which wraps between
    words, never cuts a path off)."""
    files = runs_table(history)
    if _width(files) <= console.width:
        console.print(files)
        return
    for run in history.runs:
        console.print(Text(printable(run_line(run))))


def _print_steps(history: History, console: Console) -> None:
    """How many steps were tested and found real, then each step flagged or not comparable."""
    rows = step_rows(history)
    shown = [row for row in rows if row.step.verdict != "none" or not row.step.comparable]
    real = sum(1 for row in rows if row.step.verdict != "none")
    ending = ":" if shown else "."
    console.print(Text(f"{counted(len(rows), 'step')} tested: {real} found real by the paired test{ending}"))
    for row in shown:
        style = {"better": "green", "worse": "red"}.get(row.step.verdict, "yellow")
        console.print(Text(printable(step_line(row)), style=style))


def render_history(history: History, console: Console) -> None:
    """Print the files, the table, its key, the notes, and the steps that were flagged or could
    not be compared (every step is in the Markdown, HTML and JSON)."""
    console.print(Text(printable(title(history)), style="bold"))
    _print_files(history, console)
    for part in history_tables(history, console.width):
        console.print(part)
    console.print(pack_phrases(KEY, console.width))
    for line in notes(history, shorten=True):
        console.print(Text(printable(line)))
    _print_steps(history, console)


# --- Markdown --------------------------------------------------------------------------------------


def render_history_markdown(history: History) -> str:
    """The history as Markdown: the files, the table with its key, the notes and every step."""
    runs = [
        [
            md(run_heading(run)),
            md(run.label),
            md(suite_text(run)),
            md(recorded_date(run)),
            str(run.models),
        ]
        for run in history.runs
    ]
    header = ["Model", *(md(run_heading(run)) for run in history.runs)]
    rows = []
    for model in history.models:
        points = _points(model)
        rows.append([md(model.model), *(md(cell(points.get(run.run))) for run in history.runs)])
    parts = [
        f"### {md(title(history))}",
        table(["Run", "File", "Suite", "Newest recording", "Models"], runs, left=(0, 1, 2, 3)),
        table(header, rows, left=(0,)),
        md(KEY),
        *(md(line) for line in notes(history)),
    ]
    steps = [
        [
            md(row.model),
            md(f"#{row.step.since} → #{row.after.run}"),
            md(delta_text(row)),
            md(verdict_text(row.step)),
            md(test_text(row.step)),
            md(provenance_text(row.step)),
        ]
        for row in step_rows(history)
    ]
    if steps:
        parts.append(
            table(["Model", "Step", "Overall", "Verdict", "Test", "Recordings"], steps, left=(0, 1, 3, 4, 5))
        )
    return "\n\n".join(parts) + "\n"


# --- JSON ------------------------------------------------------------------------------------------


def encode_history(history: History) -> bytes:
    """The history as indented JSON (`lobrec history --json`): the `History` Struct, key order kept."""
    return msgspec.json.format(msgspec.json.encode(history), indent=2) + b"\n"


# --- HTML ------------------------------------------------------------------------------------------


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
        points = _points(model)
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


def render_history_html(history: History) -> str:
    """The history as one self-contained page in the report's style: the files, a line per model
    across them (inline SVG), the table with its marks, and every step with its test."""
    from lobrec.reports.html_page import render_template, static

    steps = [
        (row.model, f"#{row.step.since} → #{row.after.run}", delta_text(row), row.step, test_text(row.step))
        for row in step_rows(history)
    ]
    return render_template(
        "history.html.j2",
        heading=title(history),
        history=history,
        run_heading=run_heading,
        suite_text=suite_text,
        recorded_date=recorded_date,
        rows=html_rows(history),
        chart=chart(history),
        key=KEY,
        notes=notes(history),
        steps=steps,
        verdict_text=verdict_text,
        provenance_text=provenance_text,
        extra_css=static("history.css"),
    )

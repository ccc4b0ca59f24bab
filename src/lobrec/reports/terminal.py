"""The terminal report: the leaderboard, a per-group breakdown, and the cases to re-record, laid
out from the report view (`reports/view.py`) for the terminal's width.

Every string that came from a results file (model names, case ids, the names a gateway said
answered) is put in a `rich.text.Text`, never parsed as markup, after `printable` has spelled out
its control characters: a model called `[bold]x` or a name holding `\\x1b[31m` prints as written
and cannot restyle the reader's terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lobrec.core.metrics.compare import Comparison
from lobrec.core.metrics.history import History, HistoryRun
from lobrec.core.metrics.results import RunResult
from lobrec.core.words import counted
from lobrec.reports import diffview, historyview
from lobrec.reports._text import printable
from lobrec.reports.suite_changes import SuiteChangesView
from lobrec.reports.terminal_fast import FastTable, simple_widths, table_width
from lobrec.reports.terminal_layout import (
    PROBE_WIDTH,
    fitting_parts,
    measured_width,
    natural_width,
    pack_phrases,
)
from lobrec.reports.view import Heading, ModelView, ReportView, Rerecord, report_view

# Two-line headings keep the leaderboard within about 110 columns; numbers never wrap.
_HEADINGS = {
    "right_tool": "Right\ntool",
    "valid_arguments": "Valid\nargs",
    "made_up_tool": "Made-up\ntool ↓",
    "no_call_needed": "No call\nneeded",
    "latency": "p50\nlatency",
    "cost": "Cost/100\ncases",
}
"""Two-line headings by column key; any other column shows its label on one line."""
_SHORT_HEADINGS = {"Cost/100 cases": "Cost/100\ncases", "p50 latency": "p50\nlatency"}
"""The same two-line headings, by label, for the tables built from plain rows (routing)."""


def _text(text: str, style: str = "") -> Text:
    """Outside text as a terminal shows it: cleaned by the one rule, never read as markup."""
    return Text(printable(text), style=style)


def _lines(lines: list[str], bullet: str = "") -> Text:
    """Lines of outside text, each cleaned (a line break inside one is spelled out), one per line."""
    return Text("\n".join(bullet + printable(line) for line in lines))


def _longest_model(view: ReportView) -> int:
    return max((len(printable(model.name)) for model in view.models), default=5)


def _title(view: ReportView) -> Text:
    return _text(f"{view.suite_name} {view.suite_version}", style="bold")


def _table(title: Text, caption: str | None = None) -> Table:
    return Table(
        title=title,
        caption=caption,
        box=box.SIMPLE_HEAD,
        caption_justify="left",
        collapse_padding=True,
        pad_edge=False,
        show_edge=False,
    )


def terminal_columns(run: RunResult) -> list[Heading]:
    """The leaderboard's columns: Tier after Model, the overall interval right after the overall rate."""
    return report_view(run).columns()


def leaderboard_table(
    run: RunResult,
    *,
    counts: bool = True,
    columns: list[Heading] | None = None,
    title: bool = True,
    caption: bool = True,
) -> Table:
    """One row per model, best overall first; without `counts`, no Scored/Errored/Stale columns.

    `columns` picks a part of the leaderboard (the first must be Model) for a terminal too narrow
    for all of it; `title` and `caption` go on the first and last part only.
    """
    view = report_view(run)
    chosen = columns if columns is not None else view.columns()
    chosen = [column for column in chosen if counts or not column.count]
    return _leaderboard_table(view, chosen, title=title, caption=caption)


def _leaderboard_table(view: ReportView, columns: list[Heading], *, title: bool, caption: bool) -> Table:
    table = _table(_title(view) if title else Text(""), caption="\n".join(view.key) if caption else None)
    if not title:
        table.title = None
    for column in columns:
        heading = _HEADINGS.get(column.key, column.label)
        if column.numeric:
            table.add_column(heading, justify="right", no_wrap=True)
        else:  # a model name is never cut; only a name wider than the terminal folds
            table.add_column(heading, overflow="fold", min_width=_longest_model(view))
    for model in view.models:
        cells = [_text(cell.text) for cell in view.row(model, columns)]
        if not model.has_scores:
            for cell in cells[1:]:
                cell.stylize("dim")
        table.add_row(*cells)
    return table


def key_text(run: RunResult, width: int) -> Text:
    """The key under the leaderboard, its phrases packed into lines of at most `width` columns."""
    return _key_text(report_view(run), width)


def _key_text(view: ReportView, width: int) -> Text:
    """The key's phrases (`↓ lower is better`, ...) packed into lines of at most `width` columns:
    a line breaks between phrases, never inside one."""
    return pack_phrases("\n".join(view.key), width)


def leaderboard_tables(run: RunResult, width: int) -> tuple[list[Table], bool]:
    """The leaderboard laid out for `width` columns (`_leaderboard_tables`)."""
    return _leaderboard_tables(report_view(run), width)


def _leaderboard_tables(view: ReportView, width: int, *, fast: bool = True) -> tuple[list[Table], bool]:
    """The leaderboard laid out for `width` columns, never cutting a value: whole when it fits;
    else without the count columns (printed below as lines, the `bool`); else in parts, each
    starting with the model names and holding as many columns, left to right, as fit (the key is
    then printed below the parts, at the terminal's width)."""
    whole = _leaderboard_table(view, view.columns(), title=True, caption=False)
    fits = _fits(view, whole, width, fast=fast)
    if fits(view.columns()):
        return [whole], False
    columns = [column for column in view.columns() if not column.count]
    parts = fitting_parts(columns[1:], lambda part: fits([columns[0], *part]))
    tables = [
        _leaderboard_table(view, [columns[0], *part], title=index == 0, caption=False)
        for index, part in enumerate(parts)
    ]
    return tables, True


def _fits(view: ReportView, whole: Table, width: int, *, fast: bool) -> Callable[[list[Heading]], bool]:
    """Whether a leaderboard of some columns fits `width`. rich's answer (`natural_width`, a table
    rendered per try) is the reference; the fast one adds up the whole table's column widths
    (`terminal_fast.simple_widths`), the same numbers without a table per try."""
    contents = simple_widths(whole) if fast and width < PROBE_WIDTH else None
    if contents is None:
        return lambda columns: natural_width(_part(view, columns)) <= width
    by_key = {column.key: content for column, content in zip(view.columns(), contents, strict=True)}
    return lambda columns: table_width([by_key[column.key] for column in columns]) <= width


def _part(view: ReportView, columns: list[Heading]) -> Table:
    return _leaderboard_table(view, columns, title=True, caption=False)


def _counts_text(view: ReportView) -> Text:
    """The case counts per model, one line each (for terminals too narrow for the count columns)."""
    return _lines([f"{model.name}: {model.count_line}" for model in view.models])


def _group_tables(view: ReportView, width: int) -> list[Table]:
    """Overall rate per group (rows) and model (columns), with the counts behind each rate: whole
    when it fits `width`; else with model names broken after a `/` and as many model columns per
    table as fit, each table repeating the group names, so no cell and no name is ever cut."""
    models = list(range(len(view.models)))
    whole = _group_table(view, models, title=True, fold=False)
    if natural_width(whole) <= width:
        return [whole]
    parts = fitting_parts(
        models, lambda part: natural_width(_group_table(view, part, title=True, fold=True)) <= width
    )
    return [_group_table(view, part, title=index == 0, fold=True) for index, part in enumerate(parts)]


def _group_table(view: ReportView, models: list[int], *, title: bool, fold: bool) -> Table:
    table = _table(Text("By group", style="bold") if title else Text(""))
    if not title:
        table.title = None
    table.add_column("Group", no_wrap=True)
    for index in models:
        name = printable(view.models[index].name)
        table.add_column(Text(name.replace("/", "/\n") if fold else name), justify="right", no_wrap=True)
    for group in view.groups:
        table.add_row(_text(group.label), *(_text(group.cells[index]) for index in models))
    return table


UNPRICED_SHOWN = 3
"""How many unpriced calls the cost note names before it says how many more there are."""
FLAKY_SHOWN = 20
"""How many flaky cases the terminal names before it says how many more (files list them all)."""


def _shortened(ids: tuple[str, ...], shown: int) -> str:
    """The first `shown` ids, then how many more there are."""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def _model_lines(model: ModelView) -> list[str]:
    """One line per note on a model (no scores, temperature dropped, who answered, provider quirks,
    the unpriced calls that hide the cost, its repeated runs, its flaky cases)."""
    calls = model.unpriced_calls
    unpriced = (
        [f"cost not shown: {counted(len(calls), 'unpriced call')} ({_shortened(calls, UNPRICED_SHOWN)})"]
        if calls
        else []
    )
    flaky = model.flaky or ()
    return [
        *model.notes,
        *model.quirks,
        *unpriced,
        *model.repeats,
        *([f"flaky ({len(flaky)}): {_shortened(flaky, FLAKY_SHOWN)}"] if flaky else []),
    ]


def _notes_text(view: ReportView) -> Text | None:
    lines = [f"{model.name}: {line}" for model in view.models for line in _model_lines(model)]
    return _lines(lines, "• ") if lines else None


def _partial_note(skipped: int) -> str | None:
    """After `record --case`, the cases never recorded were the user's choice: counted, not listed."""
    if not skipped:
        return None
    has, is_ = ("has", "is") if skipped == 1 else ("have", "are")
    return (
        f"Partial run (--case): {counted(skipped, 'case')} not asked for {has} no recording yet "
        f"and {is_} left out of every rate."
    )


def _partial(entries: tuple[Rerecord, ...]) -> tuple[list[Rerecord], str | None]:
    """After a partial run: the entries less run 1's unrecorded cases, and the line counting those."""
    note = _partial_note(sum(len(entry.unrecorded) for entry in entries if entry.run == 1))
    kept = [replace(entry, unrecorded=()) if entry.run == 1 else entry for entry in entries]
    return [entry for entry in kept if entry.run > 1 or entry.stale], note


def _rerecord_text(view: ReportView, *, partial: bool = False) -> Text | None:
    """The stale and unrecorded case ids per model and run, or None when every case was recorded.

    After a partial run (`record --case`), run 1's unrecorded cases are counted in one line instead
    of listed as if something had gone wrong.
    """
    entries, note = _partial(view.rerecord) if partial else (list(view.rerecord), None)
    if not entries:
        return _text(note) if note else None
    text = Text("Needs re-recording:\n", style="bold")
    for entry in entries:
        text.append(f"  {printable(_rerecord_line(entry))}\n", style="")
    text.rstrip()
    if note:
        text.append("\n" + note)
    return text


def _rerecord_line(entry: Rerecord) -> str:
    """`model — stale: a; unrecorded: b`, `model run 2 — not recorded`."""
    label = entry.model if entry.run == 1 else f"{entry.model} run {entry.run}"
    if entry.missing:
        return f"{label} — not recorded"
    parts = []
    if entry.stale:
        parts.append(f"stale: {', '.join(entry.stale)}")
    if entry.unrecorded:
        parts.append(f"unrecorded: {', '.join(entry.unrecorded)}")
    return f"{label} — {'; '.join(parts)}"


def render_leaderboard(
    run: RunResult, console: Console, *, by_group: bool = False, partial: bool = False
) -> None:
    """Print the leaderboard, its key, the notes, optionally the per-group table (`--by-group`), and
    what to re-record."""
    view = report_view(run)
    narrow = _print_leaderboard_tables(view, console)
    console.print(_key_text(view, console.width))
    if narrow:
        console.print(_counts_text(view))
    console.print(_text(view.provenance), style="dim")
    notes = _notes_text(view)
    if notes is not None:
        console.print(notes)
    _render_insight(view, console)
    if by_group:
        for table in _group_tables(view, console.width):
            console.print()
            console.print(table)
    again = _rerecord_text(view, partial=partial)
    if again is not None:
        console.print()
        console.print(again)
    if view.suite_changes is not None:
        _suite_changes(view.suite_changes, console)


def _print_leaderboard_tables(view: ReportView, console: Console, *, fast: bool = True) -> bool:
    """Print the leaderboard's tables (`fast`: rows by `FastTable`, else all by rich, the
    reference); whether the counts go below them."""
    tables, narrow = _leaderboard_tables(view, console.width, fast=fast)
    for index, table in enumerate(tables):
        if index:
            console.print()
        console.print(FastTable(table) if fast else table)
    return narrow


def _suite_changes(changes: SuiteChangesView, console: Console) -> None:
    """Print the section: the summary, then per model the metric table and the flips."""
    console.print()
    for line in changes.summary:
        console.print(Text(printable(line)))
    for model in changes.models:
        table = Table(
            title=Text(f"{printable(model.model)}: {changes.old} → {changes.new}", style="bold"),
            box=box.SIMPLE_HEAD,
            show_edge=False,
        )
        for column in ("Metric", changes.old, changes.new, "Δ"):
            table.add_column(
                printable(column), justify="left" if column == "Metric" else "right", no_wrap=True
            )
        for row in model.rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
        for line in model.flips:
            console.print(Text(printable(line)))


def _plain_table(
    view: ReportView, title: str, header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]
) -> Table:
    table = _table(_text(title, style="bold"))
    table.title_justify = "left"
    for index, heading in enumerate(header):
        if index == 0:
            table.add_column(heading, overflow="fold", min_width=_longest_model(view))
        else:  # `Cost/100 cases` on two lines, as the leaderboard has it: the labels then fit in 80
            table.add_column(_SHORT_HEADINGS.get(heading, heading), justify="right", overflow="fold")
    for row in rows:
        table.add_row(*(_text(cell) for cell in row))
    return table


def _render_insight(view: ReportView, console: Console) -> None:
    """Failure kinds per model, the run's resolution, and each routed model's routing."""
    kinds = [f"{model.name}: {model.failure_kinds}" for model in view.models if model.failure_kinds]
    if kinds:
        console.print(Text("Failure kinds (docs/metrics.md):", style="bold"))
        console.print(_lines(kinds, "• "))
    if view.resolution:
        console.print(_text(f"Resolution: {view.resolution}"))
    for model in view.models:
        if not model.routing_notes:  # a routed model has notes even with no candidate recorded
            continue
        console.print()
        for routing in model.routing:
            title = f"Routing of {model.name}, {routing.heading}"
            console.print(_plain_table(view, title, view.routing_header, routing.rows))
        console.print(_lines(list(model.routing_notes), "• "))


# --- lobrec diff -------------------------------------------------------------------------------------


_LIST_LIMIT = 20
"""How many case ids a terminal list names before it says how many more; files list all."""


def _ids(ids: list[str], every: bool = False) -> list[str]:
    if every:
        return ids
    shown = ids[:_LIST_LIMIT]
    more = [f"and {len(ids) - _LIST_LIMIT} more"] if len(ids) > _LIST_LIMIT else []
    return [*shown, *more]


def kinds_table(cmp: Comparison) -> Table:
    """Failure kind, A, B, the change and whether B has fewer or more of it (fewer is better)."""
    result = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    result.add_column("Failure kind", no_wrap=True)
    for name in ("A", "B", "B − A"):
        result.add_column(name, justify="right", no_wrap=True)
    result.add_column("", no_wrap=True)
    for kind, a, b, delta, verdict in diffview.kind_rows(cmp):
        style = {"fewer": "green", "more": "red"}.get(verdict, "")
        result.add_row(Text(kind), Text(a), Text(b), Text(delta, style=style), Text(verdict, style=style))
    return result


def diff_table(cmp: Comparison) -> Table:
    """Metric, A, B, B - A and whether that is better or worse for B."""
    result = Table(
        title=Text(f"A: {printable(cmp.model_a)}  →  B: {printable(cmp.model_b)}", style="bold"),
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        show_edge=False,
    )
    result.add_column("Metric", no_wrap=True)
    result.add_column("A", justify="right", no_wrap=True)
    result.add_column("B", justify="right", no_wrap=True)
    result.add_column("B − A", justify="right", no_wrap=True)
    result.add_column("", no_wrap=True)
    for row in diffview.metric_rows(cmp):
        style = {"better": "green", "worse": "red"}.get(row.verdict, "")
        result.add_row(
            Text(row.label),
            Text(row.a),
            Text(row.b),
            Text(row.delta, style=style),
            Text(row.verdict, style=style),
        )
    return result


def render_diff(cmp: Comparison, console: Console, *, every: bool = False) -> None:
    """Print the comparison: the metric table, the test, the flipped and the left-out cases (the
    first 20 of each list, or all of them with `every`, `lobrec diff --all`)."""
    console.print(diff_table(cmp))
    for line in diffview.summary_lines(cmp):
        console.print(Text(printable(line), style="bold yellow" if line.startswith("Warning") else ""))
    if cmp.kinds:
        console.print(kinds_table(cmp))
    console.print(Text(diffview.kinds_note(cmp)))
    for label, ids in diffview.flip_lists(cmp):
        if ids:
            console.print(Text(f"{label} ({len(ids)}): {', '.join(map(printable, _ids(ids, every)))}"))
    for label, ids in diffview.left_out(cmp):
        console.print(
            Text(f"Left out, {printable(label)} ({len(ids)}): {', '.join(map(printable, _ids(ids, every)))}")
        )


# --- lobrec history ----------------------------------------------------------------------------------


def runs_table(history: History) -> Table:
    """Run, file, suite, newest recording and models, one row per file."""
    result = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    for name in ("Run", "File", "Suite", "Newest recording", "Models"):
        result.add_column(name, no_wrap=name != "File", justify="right" if name == "Models" else "left")
    for run in history.runs:
        result.add_row(
            Text(historyview.run_heading(run)),
            Text(printable(run.label)),
            Text(printable(historyview.suite_text(run))),
            Text(printable(historyview.recorded_date(run))),
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
        result.add_column(historyview.run_heading(run), justify="right", no_wrap=True)
    for model in history.models:
        points = historyview.points_by_run(model)
        cells = []
        for run in shown:
            point = points.get(run.run)
            step = point.step if point is not None else None
            style = {"better": "green", "worse": "red"}.get(step.verdict if step else "", "")
            cells.append(Text(historyview.cell(point), style=style))
        result.add_row(Text(printable(model.model)), *cells)
    return result


def history_tables(history: History, width: int) -> list[Table]:
    """The table laid out for `width` columns: whole when it fits, else in parts, each starting with
    the model names and holding as many files, in order, as fit (at least one), so no cell is cut."""
    parts = fitting_parts(history.runs, lambda part: measured_width(history_table(history, part)) <= width)
    return [history_table(history, part) for part in parts]


def _print_files(history: History, console: Console) -> None:
    """The files' table, or in a terminal too narrow for it a line per file (which wraps between
    words, never cuts a path off)."""
    files = runs_table(history)
    if measured_width(files) <= console.width:
        console.print(files)
        return
    for run in history.runs:
        console.print(Text(printable(historyview.run_line(run))))


def _print_steps(history: History, console: Console) -> None:
    """How many steps were tested and found real, then each step flagged or not comparable."""
    rows = historyview.step_rows(history)
    shown = [row for row in rows if row.step.verdict != "none" or not row.step.comparable]
    real = sum(1 for row in rows if row.step.verdict != "none")
    ending = ":" if shown else "."
    console.print(Text(f"{counted(len(rows), 'step')} tested: {real} found real by the paired test{ending}"))
    for row in shown:
        style = {"better": "green", "worse": "red"}.get(row.step.verdict, "yellow")
        console.print(Text(printable(historyview.step_line(row)), style=style))


def render_history(history: History, console: Console) -> None:
    """Print the files, the table, its key, the notes, and the steps that were flagged or could
    not be compared (every step is in the Markdown, HTML and JSON)."""
    console.print(Text(printable(historyview.title(history)), style="bold"))
    _print_files(history, console)
    for part in history_tables(history, console.width):
        console.print(part)
    console.print(pack_phrases(historyview.KEY, console.width))
    for line in historyview.notes(history, shorten=True):
        console.print(Text(printable(line)))
    _print_steps(history, console)

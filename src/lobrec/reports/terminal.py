"""The terminal report: the leaderboard, a per-group breakdown, and the cases to re-record.

Every string that came from a results file (model names, case ids, the names a gateway said
answered) is put in a `rich.text.Text`, never parsed as markup, after `printable` has spelled out
its control characters: a model called `[bold]x` or a name holding `\\x1b[31m` prints as written
and cannot restyle the reader's terminal.
"""

from __future__ import annotations

import copy
import io

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment
from rich.table import Row, Table
from rich.text import Text

from lobrec.core.results import ModelResult, RunResult
from lobrec.core.words import counted
from lobrec.reports._format import (
    DASH,
    KEY,
    Column,
    count_line,
    group_cell,
    group_label,
    model_notes,
    ordered_groups,
    printable,
    provenance,
    ranked,
    rerecord,
)
from lobrec.reports.insight import (
    ROUTING_HEADER,
    failure_lines,
    resolution_line,
    routed,
    routing_notes,
    routing_rows,
    with_tier,
)
from lobrec.reports.quirks import quirks_note
from lobrec.reports.repeats import (
    REPEATS_KEY,
    any_repeats,
    leaderboard_columns,
    repeats_lines,
    runs_to_record,
)

# Two-line headings keep the leaderboard within about 110 columns; numbers never wrap.
_HEADINGS = {
    "Right tool": "Right\ntool",
    "Valid args": "Valid\nargs",
    "Made-up tool ↓": "Made-up\ntool ↓",
    "No call needed": "No call\nneeded",
    "p50 latency": "p50\nlatency",
    "Cost/100 cases": "Cost/100\ncases",
}


def _longest_model(run: RunResult) -> int:
    return max((len(printable(model.model)) for model in run.models), default=5)


def _title(run: RunResult) -> Text:
    return Text(printable(f"{run.suite.name} {run.suite.version}"), style="bold")


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


def _interval(model: ModelResult) -> str:
    low_high = model.metrics.overall.ci95
    if not model.has_scores or low_high is None:
        return DASH
    low, high = low_high
    return f"{low:.1f}–{high:.1f}"


INTERVAL = Column("Overall 95% CI", _interval)
"""The overall rate's 95% interval: at 80 cases it spans about 20 points, which a reader must see."""


def terminal_columns(run: RunResult) -> list[Column]:
    """The leaderboard's columns, with the overall interval right after the overall rate."""
    columns: list[Column] = []
    for column in with_tier(leaderboard_columns(run), run):
        columns.append(column)
        if column.metric == "overall":
            columns.append(INTERVAL)
    return columns


def leaderboard_table(
    run: RunResult,
    *,
    counts: bool = True,
    columns: list[Column] | None = None,
    title: bool = True,
    caption: bool = True,
) -> Table:
    """One row per model, best overall first; without `counts`, no Scored/Errored/Stale columns.

    `columns` picks a part of the leaderboard (the first must be Model) for a terminal too narrow
    for all of it; `title` and `caption` go on the first and last part only.
    """
    chosen = columns if columns is not None else terminal_columns(run)
    chosen = [column for column in chosen if counts or not column.count]
    table = _table(_title(run) if title else Text(""), caption=_key(run) if caption else None)
    if not title:
        table.title = None
    for column in chosen:
        heading = _HEADINGS.get(column.label, column.label)
        if column.numeric:
            table.add_column(heading, justify="right", no_wrap=True)
        else:  # a model name is never cut; only a name wider than the terminal folds
            table.add_column(heading, overflow="fold", min_width=_longest_model(run))
    for model in ranked(run):
        cells = [Text(column.value(model)) for column in chosen]
        if not model.has_scores:
            for cell in cells[1:]:
                cell.stylize("dim")
        table.add_row(*cells)
    return table


def _key(run: RunResult) -> str:
    return KEY + (f"\n{REPEATS_KEY}" if any_repeats(run) else "")


KEY_SEPARATOR = " · "


def key_text(run: RunResult, width: int) -> Text:
    """The key under the leaderboard, its phrases (`↓ lower is better`, ...) packed into lines of
    at most `width` columns: a line breaks between phrases, never inside one."""
    return pack_phrases(_key(run), width)


def pack_phrases(key: str, width: int) -> Text:
    """A key's phrases (joined by ` · `) packed into lines of at most `width` columns, breaking
    between phrases, never inside one (the leaderboard's key, `lobrec history`'s)."""
    lines = []
    for line in key.split("\n"):
        current = ""
        for phrase in line.split(KEY_SEPARATOR):
            trial = f"{current}{KEY_SEPARATOR}{phrase}" if current else phrase
            if current and cell_len(trial) > width:
                lines.append(current + KEY_SEPARATOR.rstrip())
                current = phrase
            else:
                current = trial
        lines.append(current)
    return Text("\n".join(lines))


def leaderboard_tables(run: RunResult, width: int) -> tuple[list[Table], bool]:
    """The leaderboard laid out for `width` columns, never cutting a value: whole when it fits;
        else without the count columns (printed below as lines, the `bool`); else in parts, each
        starting with the model names and holding as many columns, left to right, as fit (the key is
    then printed below the parts, at the terminal's width)."""
    whole = leaderboard_table(run, caption=False)
    if _natural_width(whole) <= width:
        return [whole], False
    columns = [column for column in terminal_columns(run) if not column.count]
    parts: list[list[Column]] = []
    current = columns[:1]
    for column in columns[1:]:
        trial = [*current, column]
        if len(current) > 1 and _natural_width(leaderboard_table(run, columns=trial, caption=False)) > width:
            parts.append(current)
            current = [columns[0], column]
        else:
            current = trial
    parts.append(current)
    tables = [
        leaderboard_table(run, columns=part, title=index == 0, caption=False)
        for index, part in enumerate(parts)
    ]
    return tables, True


def _natural_width(table: Table) -> int:
    """The width `table` takes when nothing constrains it (rich's measure ignores collapsed padding).

    A column is as wide as its widest cell, so a copy holding one row of each column's widest cell
    has the same width; rendering it instead of every row keeps a 100-model leaderboard fast.
    """
    widest = copy.copy(table)
    widest.columns = [column.copy() for column in table.columns]
    for probe_column, column in zip(widest.columns, table.columns, strict=True):
        cells = list(column.cells)
        probe_column._cells = [max(cells, key=_cell_width)] if cells else []
    widest.rows = [Row()] if table.rows else []
    probe = Console(width=10_000, file=io.StringIO(), color_system=None)
    lines = probe.render_lines(widest, probe.options, pad=False)
    return max((Segment.get_line_length(line) for line in lines), default=0)


def _cell_width(cell: object) -> int:
    return max((cell_len(line) for line in str(cell).splitlines()), default=0)


def counts_text(run: RunResult) -> Text:
    """The case counts per model, one line each (for terminals too narrow for the count columns)."""
    return Text("\n".join(f"{printable(model.model)}: {count_line(model)}" for model in ranked(run)))


def group_table(run: RunResult) -> Table:
    """Overall rate per group (rows) and model (columns), with the counts behind each rate."""
    models = ranked(run)
    table = _table(Text("By group", style="bold"))
    table.add_column("Group", no_wrap=True)
    for model in models:
        table.add_column(Text(printable(model.model)), justify="right", overflow="fold", min_width=12)
    groups = ordered_groups(name for model in models for name in model.groups)
    for group in groups:
        table.add_row(Text(group_label(group)), *(Text(group_cell(model, group)) for model in models))
    return table


UNPRICED_SHOWN = 3
"""How many unpriced calls the cost note names before it says how many more there are."""


def unpriced_note(model: ModelResult) -> list[str]:
    """Why the cost is a dash, when it is for unpriced answers: the calls, by case, step and attempt."""
    calls = model.metrics.unpriced_calls
    if model.metrics.cost_per_100_cases_usd is not None or not calls:
        return []
    named = ", ".join(map(printable, calls[:UNPRICED_SHOWN]))
    more = f" and {len(calls) - UNPRICED_SHOWN} more" if len(calls) > UNPRICED_SHOWN else ""
    return [f"cost not shown: {len(calls)} unpriced {'call' if len(calls) == 1 else 'calls'} ({named}{more})"]


def notes_text(run: RunResult) -> Text | None:
    """One line per note on a model (no scores, temperature dropped, who answered, provider quirks,
    the unpriced calls that hide the cost)."""
    lines = [
        f"{printable(model.model)}: {note}"
        for model in ranked(run)
        for note in [
            *model_notes(model),
            *quirks_note(model),
            *unpriced_note(model),
            *repeats_lines(model),
            *flaky_note(model),
        ]
    ]
    return Text("\n".join(f"• {line}" for line in lines)) if lines else None


FLAKY_SHOWN = 20
"""How many flaky cases the terminal names before it says how many more (files list them all)."""


def flaky_note(model: ModelResult) -> list[str]:
    """The flaky cases of a repeated model (passed in one run, failed in another)."""
    if model.repeats is None or not model.repeats.flaky:
        return []
    ids = model.repeats.flaky
    named = ", ".join(map(printable, ids[:FLAKY_SHOWN]))
    more = f" and {len(ids) - FLAKY_SHOWN} more" if len(ids) > FLAKY_SHOWN else ""
    return [f"flaky ({len(ids)}): {named}{more}"]


def _runs_to_record(run: RunResult) -> list[tuple[str, list[str]]]:
    """Runs 2..K of repeated models with cases to record: (label, parts), a missing run in words."""
    return [
        (f"{printable(model.model)} run {number}", parts)
        for model, number, parts in runs_to_record(run, printable)
    ]


def rerecord_text(run: RunResult, *, partial: bool = False) -> Text | None:
    """The stale and unrecorded case ids per model, or None when every case was recorded.

    After a partial run (`record --case`), cases never recorded were the user's choice: they are
    counted in one line instead of listed as if something had gone wrong.
    """
    entries = rerecord(run)
    runs = _runs_to_record(run)
    if partial:
        skipped = sum(len(unrecorded) for _, _, unrecorded in entries)
        entries = [(model, stale, []) for model, stale, _ in entries if stale]
        note = (
            f"Partial run (--case): {counted(skipped, 'case')} not asked for "
            f"{'has' if skipped == 1 else 'have'} no recording yet and {'is' if skipped == 1 else 'are'} "
            "left out of every rate."
            if skipped
            else None
        )
        if not entries and not runs:
            return Text(note) if note else None
    if not entries and not runs:
        return None
    text = Text("Needs re-recording:\n", style="bold")
    for model, stale, unrecorded in entries:
        parts = []
        if stale:
            parts.append(f"stale: {', '.join(map(printable, stale))}")
        if unrecorded:
            parts.append(f"unrecorded: {', '.join(map(printable, unrecorded))}")
        text.append(f"  {printable(model)} — {'; '.join(parts)}\n", style="")
    for label, parts in runs:
        text.append(f"  {label} — {'; '.join(parts)}\n", style="")
    text.rstrip()
    if partial and note:
        text.append("\n" + note)
    return text


def render_leaderboard(
    run: RunResult, console: Console, *, by_group: bool = False, partial: bool = False
) -> None:
    """Print the leaderboard, its key, the notes, optionally the per-group table (`--by-group`), and
    what to re-record."""
    tables, narrow = leaderboard_tables(run, console.width)
    for index, table in enumerate(tables):
        if index:
            console.print()
        console.print(table)
    console.print(key_text(run, console.width))
    if narrow:
        console.print(counts_text(run))
    console.print(Text(provenance(run)), style="dim")
    notes = notes_text(run)
    if notes is not None:
        console.print(notes)
    render_insight(run, console)
    if by_group:
        console.print()
        console.print(group_table(run))
    again = rerecord_text(run, partial=partial)
    if again is not None:
        console.print()
        console.print(again)
    if run.suite_changes is not None:
        from lobrec.reports.suite_changes import render_suite_changes

        render_suite_changes(run.suite_changes, console)


def _plain_table(run: RunResult, title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = _table(Text(title, style="bold"))
    for index, heading in enumerate(header):
        if index == 0:
            table.add_column(heading, overflow="fold", min_width=_longest_model(run))
        else:
            table.add_column(heading, justify="right", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def render_insight(run: RunResult, console: Console) -> None:
    """Failure kinds per model, the run's resolution, and each routed model's routing."""
    kinds = failure_lines(run)
    if kinds:
        console.print(Text("Failure kinds (docs/metrics.md):", style="bold"))
        console.print(Text("\n".join(f"• {line}" for line in kinds)))
    line = resolution_line(run)
    if line:
        console.print(Text(f"Tiers: models sharing a tier cannot be told apart (paired test, Holm). {line}"))
    for model in routed(run):
        console.print()
        for heading, figures in routing_rows(model):
            title = f"Routing of {printable(model.model)}, {heading}"
            console.print(_plain_table(run, title, ROUTING_HEADER, figures))
        console.print(Text("\n".join(f"• {note}" for note in routing_notes(model))))


def safe_markup(text: str) -> str:
    """`text` from a model or gateway, ready to embed in a rich markup string (e.g. progress lines)."""
    return escape(printable(text))

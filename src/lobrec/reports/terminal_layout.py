"""Fitting the terminal's tables and keys to its width, for every table `terminal.py` prints.

A table too wide for the terminal is printed as several (`fitting_parts`), each repeating its first
column, never with a cell cut; a key's phrases are packed into lines that break between phrases
(`pack_phrases`). This is to the terminal what `markdown_syntax` is to the Markdown.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from typing import TypeVar

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.table import Row, Table
from rich.text import Text

T = TypeVar("T")


KEY_SEPARATOR = " · "


def pack_phrases(key: str, width: int) -> Text:
    """A key's phrases (joined by ` · `, lines by `\\n`) packed into lines of at most `width`
    columns, breaking between phrases, never inside one (the leaderboard's key, `lobrec history`'s)."""
    lines = []
    tail = KEY_SEPARATOR.rstrip()
    for line in key.split("\n"):
        current = ""
        phrases = line.split(KEY_SEPARATOR)
        for index, phrase in enumerate(phrases):
            trial = f"{current}{KEY_SEPARATOR}{phrase}" if current else phrase
            more = tail if index + 1 < len(phrases) else ""  # a line that goes on ends with ` ·`
            if current and cell_len(trial + more) > width:
                lines.append(current + tail)
                current = phrase
            else:
                current = trial
        lines.append(current)
    return Text("\n".join(lines))


def fitting_parts(items: list[T], fits: Callable[[list[T]], bool]) -> list[list[T]]:
    """`items` cut, in order, into the fewest runs that each `fits` (a run of one always goes in):
    how a table too wide for the terminal is printed as several, each repeating its first column."""
    parts: list[list[T]] = []
    current: list[T] = []
    for item in items:
        if current and not fits([*current, item]):
            parts.append(current)
            current = [item]
        else:
            current = [*current, item]
    if current or not parts:
        parts.append(current)
    return parts


PROBE_WIDTH = 10_000
"""The width `natural_width` renders at: a table wider than this comes out cut to it, so a width
added up from the columns (`terminal_fast.table_width`) agrees with it only below this."""


def natural_width(table: Table) -> int:
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
    probe = Console(width=PROBE_WIDTH, file=io.StringIO(), color_system=None)
    lines = probe.render_lines(widest, probe.options, pad=False)
    return max((Segment.get_line_length(line) for line in lines), default=0)


def _cell_width(cell: object) -> int:
    return max((cell_len(line) for line in str(cell).splitlines()), default=0)


def measured_width(table: Table) -> int:
    """The width rich's own measure gives `table` (the history's tables are fitted by it)."""
    return Console(width=100_000).measure(table).maximum

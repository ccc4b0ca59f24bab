"""The leaderboard's rows printed without rich's per-cell layout, in the bytes rich prints them.

Why: rich lays out every cell through `Padding`, `Text.wrap` and segment shaping, about 0.7 ms a
row of the leaderboard's 17 columns, most of the time `render_leaderboard` took at 100 models. The
leaderboard's tables are simple (no edge, the `SIMPLE_HEAD` rule, cells of one line and at most one
style, left or right justified), so once the column widths are known a row is padded strings.

rich stays the reference and keeps every rule this module does not need: `FastTable` has rich
print the title, the headings and the rule (of a copy without rows, its widths fixed), writes the
rows itself, and hands the whole table to rich when it is not `simple_widths`'s kind of table,
when it is wider than the console (rich would fold or cut cells), or when the console draws
another box (ASCII). `tests/reports/test_terminal_fast.py` holds the two to the same bytes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.table import Column, Row, Table
from rich.text import Text

_TRAILING_SPACE = re.compile(r"\s+$")
"""What `Text.rstrip_end` strips (rich's own pattern)."""


def table_width(contents: Sequence[int]) -> int:
    """The width of a table of columns `contents` wide (text only) when nothing constrains it: a
    space of padding right of every column but the last, a space between columns, and a last
    column at least one wide (rich's `or 1`)."""
    if not contents:
        return 0
    *rest, last = contents
    return sum(rest) + max(last, 1) + 2 * len(rest)


def simple_widths(table: Table) -> list[int] | None:
    """The width of each column's text as rich measures it (widest heading line or cell, at least
    `min_width`), or None when `table` is not one `FastTable` prints."""
    if not _simple_table(table):
        return None
    contents = []
    for column in table.columns:
        header = _header_width(column.header)
        if header is None:
            return None
        widest = header
        for cell in column.cells:
            if not _simple_cell(cell):
                return None
            assert isinstance(cell, Text)
            widest = max(widest, cell_len(cell.plain))
        contents.append(max(widest, column.min_width or 0))
    return contents


def _simple_table(table: Table) -> bool:
    """The table settings the leaderboard uses (`terminal._table`), and nothing that styles a row."""
    settings = (
        table.box is box.SIMPLE_HEAD,
        table.padding == (0, 1, 0, 1),
        table.collapse_padding,
        not table.pad_edge,
        not table.show_edge,
        table.show_header,
        not table.show_footer,
        not table.show_lines,
        not table.leading,
        not table.caption,
        not table.expand,
        table.min_width is None,
        not table.row_styles,
    )
    return all(settings) and all(map(_plain_row, table.rows)) and all(map(_plain_column, table.columns))


def _plain_row(row: Row) -> bool:
    return row.style is None and not row.end_section


def _plain_column(column: Column) -> bool:
    """No fixed or capped width, left or right justified, and a cell rich would justify."""
    return all(
        (
            column.width is None,
            column.max_width is None,
            column.justify in ("left", "right"),
            column.overflow != "ignore",
        )
    )


def _header_width(header: object) -> int | None:
    """A heading's widest line; None for one rich could read as markup or emoji (`[`, `:`)."""
    if isinstance(header, Text):
        plain = header.plain
    elif isinstance(header, str) and "[" not in header and ":" not in header:
        plain = header
    else:
        return None
    lines = plain.splitlines()
    if not all(line.isprintable() for line in lines):
        return None
    return max((cell_len(line) for line in lines), default=0)


def _simple_cell(cell: object) -> bool:
    """A `Text` of one printable line (no tab, no line break; no variation selector, which rich
    measures with the character before it: left to rich, not proven alike), no base style, at
    most one span over all of it."""
    if type(cell) is not Text:
        return False
    plain = cell.plain
    return all(
        (
            plain.isprintable(),
            "\ufe0f" not in plain,
            not cell.style,
            cell.justify is None,
            cell.overflow is None,
            cell.no_wrap is None,
            cell.end == "\n",
            _whole_or_no_span(cell),
        )
    )


def _whole_or_no_span(cell: Text) -> bool:
    spans = cell.spans
    return not spans or (len(spans) == 1 and spans[0].start == 0 and spans[0].end == len(cell.plain))


class FastTable:
    """`table` as `console.print` prints it, its rows laid out here when it is simple and fits."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table
        contents = simple_widths(table)
        if contents is None or table.box is None or not _plain_rows(table, contents, console, options):
            yield table
            return
        head = copy.copy(table)
        head.columns = [
            replace(column, width=content, _cells=[])
            for column, content in zip(table.columns, contents, strict=True)
        ]
        head.rows = []
        yield head
        yield from _rows(table, contents, console)


def _plain_rows(table: Table, contents: list[int], console: Console, options: ConsoleOptions) -> bool:
    """Whether rich would print the rows as `_rows` does: the table fits (no cell folds), the
    console draws its box (an ASCII one has `|` between cells), nothing styles a cell or a gap."""
    assert table.box is not None
    safe = console.safe_box if table.safe_box is None else table.safe_box
    drawn = table.box.substitute(options, safe=safe)
    border = console.get_style(table.style or "") + console.get_style(table.border_style or "")
    return (
        table_width(contents) <= options.max_width
        and (drawn.mid_vertical, drawn.foot_vertical) == (" ", " ")
        and not border
        and not any(console.get_style(column.style or "") for column in table.columns)
    )


def _rows(table: Table, contents: list[int], console: Console) -> Iterator[Segment]:
    """Each row as rich's `Text.wrap` and `Padding` lay it out (`_laid_out`): a space after every
    cell but the last, and a space between cells; a styled cell is its own segment."""
    columns = [list(column.cells) for column in table.columns]
    right = [column.justify == "right" for column in table.columns]
    last = len(columns) - 1
    contents = [*contents[:-1], max(contents[-1], 1)]  # rich's `or 1`: a last column is never 0 wide
    styles: dict[object, Style] = {}

    def style_of(cell: Text) -> Style:
        name = cell.spans[0].style
        if name not in styles:
            styles[name] = console.get_style(name, default=Style.null())
        return styles[name]

    newline = Segment.line()
    for index in range(len(table.rows)):
        pending: list[str] = []
        for column, cells in enumerate(columns):
            cell = cells[index]
            assert isinstance(cell, Text)
            before, kept, after = _laid_out(cell.plain, contents[column], right[column])
            if cell.spans and kept:
                yield from _flushed(pending, before)
                yield Segment(kept, style_of(cell))
                pending = [after]
            else:
                pending.append(before + kept + after)
            pending.append("  " if column != last else "")
        yield Segment("".join(pending))
        yield newline


def _laid_out(plain: str, width: int, right: bool) -> tuple[str, str, str]:
    """A cell's padding before, its text and its padding after: a right-justified cell loses its
    trailing space, then is padded on the left; a left-justified one is padded on the right."""
    if right:
        kept = plain.rstrip()
        return " " * (width - cell_len(kept)), kept, ""
    kept = _rstrip_end(plain, width)
    return "", kept, " " * (width - cell_len(kept))


def _flushed(pending: list[str], before: str) -> Iterator[Segment]:
    """What is pending, and `before`, as one plain segment (none when all of it is empty)."""
    text = "".join(pending) + before
    if text:
        yield Segment(text)


def _rstrip_end(plain: str, width: int) -> str:
    """`Text.rstrip_end`: trailing white space beyond `width` characters (not cells) goes."""
    excess = len(plain) - width
    if excess <= 0:
        return plain
    match = _TRAILING_SPACE.search(plain)
    return plain if match is None else plain[: len(plain) - min(len(match.group(0)), excess)]

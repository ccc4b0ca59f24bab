"""The leaderboard's fast rows (`reports/terminal_fast.py`) print the bytes rich prints.

rich is the reference: `_print_leaderboard_tables(view, console, fast=False)` prints every table
with rich; with `fast=True` `FastTable` writes the rows itself where it can. Generated leaderboards
(names and cells of every width, East Asian and combining characters, escaped control characters,
markup-looking text, rows of models without scores in dim, headings rich could read as markup,
terminals 40 to 1000 columns wide, with and without colour, ASCII and soft-wrapping consoles) must
come out the same, byte for byte, whether the fast path took them or handed them back to rich.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.table import Table

from lobrec.core.metrics.results import decode_results
from lobrec.reports.terminal import _leaderboard_tables, _print_leaderboard_tables
from lobrec.reports.terminal_fast import FastTable, simple_widths, table_width
from lobrec.reports.view import Cell, Heading, ReportView, report_view
from tests.support.examples import costly
from tests.support.sample_results import sample_run
from tests.support.strategies import outside_texts

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = report_view(decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes()))
SAMPLE = report_view(sample_run())

CONSOLES = ("plain", "truecolor", "standard", "no_color", "ascii", "soft_wrap", "legacy_windows")
"""The consoles a leaderboard is printed on: rich without colour, with colour, and the settings
that change what rich draws (an ASCII box) or how it prints (no cropping)."""


class _AsciiFile(io.StringIO):
    """A file whose encoding has no box-drawing characters (`LC_ALL=C`): rich draws an ASCII box."""

    @property
    def encoding(self) -> str:
        return "ascii"


def _console(kind: str, width: int) -> Console:
    file = _AsciiFile() if kind == "ascii" else io.StringIO()
    colour = {
        "truecolor": "truecolor",
        "standard": "standard",
        "no_color": "256",
        "legacy_windows": "windows",
    }
    system = colour.get(kind)
    return Console(
        file=file,
        width=width,
        color_system=system,  # type: ignore[arg-type]
        force_terminal=system is not None,
        no_color=kind == "no_color",
        soft_wrap=kind == "soft_wrap",
        legacy_windows=kind == "legacy_windows",
    )


def _printed(view: ReportView, kind: str, width: int, *, fast: bool) -> str:
    """What the leaderboard's tables print (or the error rich raised, which both paths must raise)."""
    console = _console(kind, width)
    try:
        _print_leaderboard_tables(view, console, fast=fast)
    except Exception as error:  # a markup heading rich rejects must be rejected alike
        return f"raised {type(error).__name__}"
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def assert_same(view: ReportView, kind: str, width: int) -> None:
    assert _printed(view, kind, width, fast=True) == _printed(view, kind, width, fast=False)


# --- generated leaderboards ---------------------------------------------------------------------

PIECES = (
    "100.0%", "95.4% ± 0.7", "88.4–98.3", "—", "$0.0814", "240/240", "33 ms", "0", " ", "  ",
    "bench/", "model-0005", "模型", "ｗｉｄｅ", "e\u0301", "한국어", "😀", "[bold]x[/]", ":smile:",
    "\x1b[31m", "\t", "\u00a0", "\u200d", "/",
)  # fmt: skip
"""Cell and name material: leaderboard values, wide, combining and zero-width characters, an emoji,
markup and emoji codes (a cell is never read as markup), characters `printable` spells out."""

texts = st.sampled_from([0] * 6 + [1, 2]).flatmap(
    lambda branch: (
        st.lists(st.sampled_from(PIECES), max_size=6).map("".join),
        outside_texts,
        st.text(max_size=12),
    )[branch]
)
"""Mostly leaderboard-like text, now and then any text at all."""
selected = st.lists(st.sampled_from(PIECES), max_size=3).map(lambda pieces: "".join(pieces) + "❤\ufe0f")
"""Text with a variation selector, whose cell widths do not add up over words: rich lays it out."""
names = st.one_of(texts, st.integers(1, 130).map(lambda size: "m" * size))
"""Model names, some wider than any terminal (rich folds those)."""
labels = st.one_of(
    st.sampled_from(("Score", "Cost/100 cases", "Two\nlines", "模型 ↓", "", "[b]x[/b]", ":x:", "a [b")),
    st.text(st.characters(codec="utf-8", exclude_characters="[:"), max_size=12),
    texts,
)
"""Headings: plain, two-line and wide ones, and some rich reads as markup (rich lays those out)."""


MODEL = FIXTURES.headings[0]
TEMPLATE = SAMPLE.models[0]


def heading(key: str, label: str, *, numeric: bool = True, count: bool = False) -> Heading:
    return Heading(key, label, numeric, count, None, "desc", False)


def leaderboard(
    headings: Sequence[Heading], models: Sequence[tuple[str, bool, Sequence[str]]], title: str = "suite"
) -> ReportView:
    """A view of the columns Model and `headings`, and `models` (name, has scores, other cells)."""
    views = tuple(
        replace(
            TEMPLATE, name=name, has_scores=scored, cells=tuple(Cell(text, None) for text in (name, *cells))
        )
        for name, scored, cells in models
    )
    return replace(FIXTURES, headings=(MODEL, *headings), models=views, suite_name=title, suite_version="1.0")


@st.composite
def leaderboards(draw: st.DrawFn) -> ReportView:
    """A leaderboard of generated models on some of the real columns and some made-up ones."""
    real = [column for column in FIXTURES.headings if column.key != "model"]
    chosen = draw(st.lists(st.sampled_from(real), unique_by=lambda column: column.key, max_size=len(real)))
    made_up = [
        heading(f"made-up-{index}", draw(labels), numeric=draw(st.booleans()), count=draw(st.booleans()))
        for index in range(draw(st.integers(0, 3)))
    ]
    headings = draw(st.permutations([*chosen, *made_up]))
    cells = st.one_of(texts, selected) if draw(st.integers(0, 9)) == 0 else texts
    models = [
        (draw(names), draw(st.booleans()), [draw(cells) for _ in headings])
        for _ in range(draw(st.integers(0, 8)))
    ]
    return leaderboard(headings, models, title=draw(texts))


@costly(2, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    view=leaderboards(),
    kind=st.sampled_from(CONSOLES),
    width=st.one_of(st.integers(40, 200), st.integers(40, 1000)),
)
@example(view=SAMPLE, kind="truecolor", width=80)
@example(view=FIXTURES, kind="plain", width=1000)
def test_generated_leaderboards_print_as_rich_prints_them(view: ReportView, kind: str, width: int) -> None:
    assert_same(view, kind, width)


# --- the real leaderboards ----------------------------------------------------------------------


@pytest.mark.parametrize("width", [40, 60, 80, 100, 132, 200, 1000])
@pytest.mark.parametrize("kind", ["plain", "truecolor"])
@pytest.mark.parametrize("view", [FIXTURES, SAMPLE], ids=["fixtures", "sample"])
def test_the_committed_leaderboards_print_as_rich_prints_them(
    view: ReportView, kind: str, width: int
) -> None:
    assert_same(view, kind, width)


@pytest.mark.parametrize("width", [80, 1000])
def test_the_leaderboard_takes_the_fast_path(width: int) -> None:
    """The leaderboard is the kind of table `FastTable` lays out: rich prints only the head (a copy
    with no rows) and the rows are segments, so a change that sends it all back to rich fails here."""
    console = _console("plain", width)
    tables, _ = _leaderboard_tables(FIXTURES, width)
    for table in tables:
        assert simple_widths(table) is not None
        head, *rows = FastTable(table).__rich_console__(console, console.options)
        assert isinstance(head, Table) and head.rows == []
        assert rows and all(isinstance(row, Segment) for row in rows)


def test_a_table_too_wide_for_the_console_goes_to_rich() -> None:
    """A model name wider than the terminal folds: rich lays that table out, whole."""
    wide = replace(FIXTURES, models=(replace(FIXTURES.models[0], name="m" * 100), *FIXTURES.models[1:]))
    console = _console("plain", 60)
    tables, _ = _leaderboard_tables(wide, 60)
    assert [list(FastTable(table).__rich_console__(console, console.options)) for table in tables] == [
        [table] for table in tables
    ]
    assert_same(wide, "plain", 60)


# --- the edges a random width or text rarely hits -------------------------------------------------


@pytest.mark.parametrize("kind", ["plain", "truecolor"])
def test_a_table_exactly_as_wide_as_the_console_fits(kind: str) -> None:
    """At its own width the whole leaderboard is printed, its rows by `FastTable`; one column less
    and the counts go below it."""
    whole, _ = _leaderboard_tables(FIXTURES, 1000)
    contents = simple_widths(whole[0])
    assert contents is not None
    width = table_width(contents)
    assert _leaderboard_tables(FIXTURES, width)[1] is False
    assert _leaderboard_tables(FIXTURES, width - 1)[1] is True
    console = _console(kind, width)
    assert isinstance(list(FastTable(whole[0]).__rich_console__(console, console.options))[-1], Segment)
    for near in (width - 1, width, width + 1):
        assert_same(FIXTURES, kind, near)


@pytest.mark.parametrize("kind", ["plain", "truecolor"])
def test_an_empty_last_column_is_one_wide(kind: str) -> None:
    """rich gives a column with nothing in it (no padding, being last) a width of 1, not 0."""
    view = leaderboard(
        [heading("a", "A"), heading("empty", "")], [("x", True, ["1", ""]), ("y", False, ["2", ""])]
    )
    tables, _ = _leaderboard_tables(view, 1000)
    contents = simple_widths(tables[0])
    assert contents is not None and contents[-1] == 0
    width = table_width(contents)
    for near in (width - 1, width, 40, 80):
        assert_same(view, kind, near)


@pytest.mark.parametrize("label", ["[b]x[/b]", ":smile:", "[b]x"])
def test_a_heading_rich_reads_as_markup(label: str) -> None:
    """rich measures a heading after reading its markup and emoji codes (or fails on bad markup)."""
    view = leaderboard(
        [heading("a", label), heading("b", "B")], [("x", True, ["1", "2"]), ("y", False, ["3", "4"])]
    )
    for kind in ("plain", "truecolor"):
        assert_same(view, kind, 80)


@pytest.mark.parametrize("numeric", [False, True])
def test_a_dim_cell_loses_trailing_space_as_rich_wraps_it(numeric: bool) -> None:
    """rich strips a right-justified cell's trailing space, and a left-justified one's beyond its
    width in characters (not cells: `e` and a combining accent are two characters, one cell), and
    the dim style goes with the characters kept."""
    cells = ["e\u0301\u0301  ", "e\u0301 ", " ", ""]
    view = leaderboard(
        [heading("a", "", numeric=numeric), heading("b", "B")],
        [("m", False, [cell, "1"]) for cell in cells] + [("n", True, [cell, "2"]) for cell in cells],
    )
    for kind in ("plain", "truecolor"):
        assert_same(view, kind, 80)

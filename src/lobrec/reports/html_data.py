"""The HTML report's data, shaped for its templates: the leaderboard's cells and sort keys, the
per-group bars, the matrix of cases against models, the runs to record again.

Pure data: no markup here; the templates build and escape all of it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from lobrec.core.metrics.results import ModelResult, Rate, RunResult
from lobrec.core.suite.format import Case, Suite, ordered_groups
from lobrec.reports import _format, view
from lobrec.reports.html_celldata import CellData
from lobrec.reports.html_cells import STATUS, panel
from lobrec.reports.html_plot import interval_text
from lobrec.reports.view import Heading, ModelView, ReportView

# --- the leaderboard -------------------------------------------------------------------------------


class SortKey(NamedTuple):
    """How one leaderboard column sorts: its name in the address, and the order of a first click."""

    key: str
    first: str
    """`desc` or `asc`: a first click puts the best first (highest rate, lowest cost, A to Z)."""
    text: bool


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:60] or "case"


DEFAULT_SORT = "-overall"
"""The leaderboard's own order (`ranked`): overall rate, best first; models without scores last."""


def sort_key(heading: Heading) -> SortKey:
    """How a leaderboard column sorts, from the column itself (its key, never its label)."""
    return SortKey(heading.key, heading.first, heading.text_sort)


def _sort_value(value: float | str | None) -> str:
    """What a cell's `data-sort` holds: the exact number (or text), empty for nothing to sort."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, int | str):
        return str(value)
    return repr(value)


@dataclass(frozen=True)
class Head:
    label: str
    numeric: bool
    sort: SortKey
    aria: str | None
    """`descending` or `ascending` on the column the page is sorted by at first."""


@dataclass(frozen=True)
class Cell:
    value: str
    sort: str
    heading: bool
    """The row's heading (the model's name) rather than a number."""
    title: str | None = None
    interval: str | None = None


@dataclass(frozen=True)
class Row:
    rank: int
    scored: bool
    cells: list[Cell]


def _rate_title(rate: Rate) -> str:
    if rate.total == 0:
        return "nothing to rate"
    interval = "" if rate.ci95 is None else f", 95% interval {interval_text(rate.ci95)}"
    return f"{_format.rate_counts(rate)}{interval}"


def _cell(heading: Heading, cell: view.Cell) -> Cell:
    sort = _sort_value(cell.sort)
    if not heading.numeric:
        return Cell(cell.text, sort, heading=True)
    if cell.rate is not None:
        interval = None if cell.rate.ci95 is None else interval_text(cell.rate.ci95)
        return Cell(cell.text, sort, heading=False, title=_rate_title(cell.rate), interval=interval)
    return Cell(cell.text, sort, heading=False)


@dataclass(frozen=True)
class Leaderboard:
    heads: list[Head]
    rows: list[Row]
    key: str
    tier_key: str
    """What a tier means and what the run resolves, shown beside the table (empty for one model)."""
    notes: list[tuple[str, str]]
    """(model, its notes in one line)."""


def _head(column: Heading) -> Head:
    spec = sort_key(column)
    active = DEFAULT_SORT.lstrip("-") == spec.key
    direction = "descending" if DEFAULT_SORT.startswith("-") else "ascending"
    return Head(column.label, column.numeric, spec, direction if active else None)


def _runs_notes(model: ModelView) -> list[str]:
    """A repeated model's runs in words, and every flaky case."""
    if model.flaky is None:
        return []
    flaky = ", ".join(model.flaky) or "none"
    return [*model.repeats, f"flaky ({len(model.flaky)}): {flaky}"]


def leaderboard(report: ReportView) -> Leaderboard:
    columns = report.columns(without=("interval",))
    rows = [
        Row(rank, model.has_scores, list(map(_cell, columns, report.row(model, columns))))
        for rank, model in enumerate(report.models)
    ]
    notes = [
        (model.name, "; ".join([model.count_line, *model.notes, *model.quirks, *_runs_notes(model)]))
        for model in report.models
    ]
    key = " · ".join(line for line in report.key if line != report.tier_key)
    return Leaderboard([_head(column) for column in columns], rows, key, report.tier_key, notes)


# --- by group ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupCell:
    text: str
    share: float | None
    interval: tuple[float, float] | None


def groups(report: ReportView) -> list[tuple[str, list[GroupCell]]]:
    """Per group (in the reports' order), each model's cell, best model first."""
    return [
        (
            row.label,
            [
                GroupCell(text, None if rate is None else rate.rate, None if rate is None else rate.ci95)
                for text, rate in zip(row.cells, row.rates, strict=True)
            ],
        )
        for row in report.groups
    ]


# --- the matrix ------------------------------------------------------------------------------------


def _rows(suite: Suite, models: list[ModelResult]) -> list[tuple[str, list[tuple[str, Case | None]]]]:
    """Cases by group, in the suite's order; cases only in results go last, in their own group."""
    found: dict[str, list[tuple[str, Case | None]]] = {}
    for case in suite.cases:
        found.setdefault(case.group, []).append((case.id, case))
    known = {case.id for case in suite.cases}
    extra: list[tuple[str, Case | None]] = []
    for model in models:
        for result in model.cases:
            if result.id not in known:
                known.add(result.id)
                extra.append((result.id, None))
    ordered = [(group, found[group]) for group in ordered_groups(found)]
    if extra:
        ordered.append(("(not in this suite file)", extra))
    return ordered


def _prompt_text(case: Case | None) -> str:
    """The text a search looks through besides the case id: the case's user messages."""
    if case is None:
        return ""
    return " ".join(
        message.content for message in case.messages if message.role == "user" and message.content
    )


@dataclass(frozen=True)
class MatrixCell:
    id: str
    status: str
    title: str
    symbol: str
    word: str
    unscored: str


@dataclass(frozen=True)
class CaseRow:
    case_id: str
    note: str
    fail: bool
    disagree: bool
    search: str
    kinds: str
    """The failure kinds of the row's failed steps, space-separated (`ReportView.case_kinds`)."""
    cells: list[MatrixCell]


@dataclass(frozen=True)
class GroupRows:
    key: str
    label: str
    scores: list[str]
    rows: list[CaseRow]


TOP_MODELS = 12
"""The matrix's columns built into the page: the best models; the script adds any other the reader
picks (from the page's data), so a hundred models do not make a hundred columns up front."""


@dataclass(frozen=True)
class Matrix:
    models: list[str]
    """The columns built into the page, best model first."""
    total_models: int
    legend: list[str]
    """The statuses the legend explains."""
    groups: list[GroupRows]
    total: int
    kinds: list[tuple[str, str]]
    """(kind, label): the kind filter's choices."""
    data: dict[str, Any]
    """Every cell's drill-down, for the script to build when the cell opens (`html_celldata`)."""


class _Cells:
    """Builds the matrix's cells: unique ids from the model's place in the results file (so links
    survive a change in ranking), each repeated model's verdicts over runs looked up once."""

    def __init__(self, report: ReportView, models: list[ModelResult]) -> None:
        self.models = models
        self.report = report
        self.views = report.models
        self.used: set[str] = set()
        self.data = CellData()

    def group(
        self, key: str, group: str, cases: list[tuple[str, Case | None]], kinds: dict[str, str]
    ) -> GroupRows:
        """A group's rows: its score per model, then a row per case, a cell per model."""
        rows = []
        for index, (case_id, case) in enumerate(cases):
            cells = [self._cell(number, index, case_id, case) for number in range(len(self.models))]
            rows.append(_case_row(case_id, case, cells, kinds.get(case_id, "")))
        scores = [self.report.group_cell(number, group) for number in range(len(self.models))]
        return GroupRows(key, _format.group_label(group), scores, rows)

    def _unique(self, cell_id: str, index: int) -> str:
        """`cell_id`, or (taken: case ids alike once slugged or cut at 60 characters) the first of
        `cell_id-<index>`, `cell_id-<index+1>`, ... that is free: two cells never share an id, and
        so never open each other's drill-down."""
        found, number = cell_id, index
        while found in self.used:
            found, number = f"{cell_id}-{number}", number + 1
        self.used.add(found)
        return found

    def _cell(self, number: int, index: int, case_id: str, case: Case | None) -> MatrixCell:
        shown = self.views[number]
        verdict = shown.matrix.get(case_id)
        status = "missing" if verdict is None else verdict.status
        cell_id = self._unique(f"m{shown.place}-{slug(case_id)}", index)
        symbol, word = STATUS[status]
        title = f"{case_id} · {shown.name}"
        unscored = ""
        if verdict is not None and verdict.tally is not None:
            title += f" · passed {verdict.passes}/{shown.runs} runs ({verdict.scored} scored)"
            if verdict.scored < shown.runs:  # said on the cell, not only in the hover
                title += f" · {verdict.unscored_which}"
                unscored = verdict.unscored
            word = verdict.tally
        summary = [f"{symbol} {word}", title, unscored] if number >= TOP_MODELS else None
        self.data.add(cell_id, panel(shown, case_id, case, status), number, summary)
        return MatrixCell(cell_id, status, title, symbol, word, unscored)


def _case_row(case_id: str, case: Case | None, cells: list[MatrixCell], kinds: str) -> CaseRow:
    statuses = [cell.status for cell in cells]
    return CaseRow(
        case_id=case_id,
        note=case.note if case is not None and case.note else "",
        fail=any(status != "pass" for status in statuses),
        disagree=len(set(statuses)) > 1,
        search=f"{case_id} {_prompt_text(case)}".strip(),
        kinds=kinds,
        cells=cells,
    )


def _group_keys(groups: list[str]) -> list[str]:
    """Each group's key in the page (ids, the address): its slug, made unique."""
    keys: list[str] = []
    for group in groups:
        key = slug(group)
        while key in keys:
            key += "_"
        keys.append(key)
    return keys


def matrix(run: RunResult, suite: Suite, report: ReportView) -> Matrix:
    models = [run.models[model.place] for model in report.models]  # the view's ranking
    cells = _Cells(report, models)
    kinds = report.case_kinds
    ordered = _rows(suite, models)
    keys = _group_keys([group for group, _ in ordered])
    found = [cells.group(key, group, cases, kinds) for key, (group, cases) in zip(keys, ordered, strict=True)]
    cell_ids = [cell.id for group in found for row in group.rows for cell in row.cells]
    cells.data.columns(models, cell_ids, found)
    shown = [model.model for model in models[:TOP_MODELS]]
    total = sum(len(group.rows) for group in found)
    options = list(report.kinds)
    return Matrix(shown, len(models), _legend(report), found, total, options, cells.data.page_data())


def _legend(report: ReportView) -> list[str]:
    """The statuses a cell can show here: flaky only with repeats; never `missing` (no symbol)."""
    return [status for status in STATUS if status != "missing" and (status != "flaky" or report.repeats)]

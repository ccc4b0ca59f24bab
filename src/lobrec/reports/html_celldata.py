"""A cell's drill-down as compact data for the page's script (`static/cells.js`), which builds it
when the cell is opened: at a hundred models the drill-downs built up front made a 50 MB page.

The page carries one object (`CELLS` in its script): the suite's cases once (conversation and
expected steps), each distinct run verdict once (`verdicts`: copies of a model that answer alike
share one), and per cell its case, model, status and runs, each run a verdict's index with the
run's own API calls. Every text is already `printable` (control characters spelled out); the
script sets it as text, never as markup. The words and rules stay here (`html_cells`): the script
only lays them out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lobrec.core.judge.failures import kind_label
from lobrec.core.metrics.results import ApiCall, Mismatch, ModelResult, StepVerdict
from lobrec.core.suite.format import CallStep, Case, NoCallStep
from lobrec.reports._format import DASH, cost, latency
from lobrec.reports._text import printable
from lobrec.reports.html_cells import (
    STATUS,
    Expected,
    Panel,
    RunView,
    StepView,
    call_flag,
    check_text,
    json_text,
    message_text,
    pretty_arguments,
)


def _text(value: str) -> str:
    return printable(value)


def _block(value: str) -> str:
    """Text shown as a block (`<pre>`, a message): line breaks and tabs kept."""
    return printable(value, keep_newlines=True)


def _expected_step(step: CallStep | NoCallStep) -> dict[str, Any]:
    if isinstance(step, NoCallStep):
        return {"answer": _block(step.answer) if step.answer else None}
    return {
        "calls": [
            {
                "name": _text(call.name),
                "checks": [[_text(check.arg), _text(check_text(check))] for check in call.checks],
                "result": None if call.result is None else _block(call.result),
            }
            for call in step.calls
        ]
    }


def case_data(case: Case | None) -> dict[str, Any] | None:
    """A case's side of every drill-down: its note, conversation and expected steps."""
    if case is None:
        return None
    return {
        "note": _text(case.note) if case.note else "",
        "messages": [
            [_text(message.role), _block(message_text(message))]
            for message in case.messages
            if message.role != "system"
        ],
        "steps": [_expected_step(step) for step in case.steps],
    }


def _observed(verdict: StepVerdict) -> dict[str, Any]:
    return {
        "calls": [
            {
                "name": DASH if record.name is None else _text(record.name),
                "flag": call_flag(record),
                "args": _block(pretty_arguments(record.arguments)),
                "errors": [_text(error) for error in record.schema_errors],
            }
            for record in verdict.calls
        ],
        "content": _block(verdict.content) if verdict.content else "",
        "mismatches": [
            [_text(m.path), _text(expected_text(m)), _text(json_text(m.got)), _text(m.reason)]
            for m in verdict.mismatches
        ],
        "kind": None if verdict.failure_kind is None else kind_label(verdict.failure_kind),
    }


_ARGUMENT_PATH = re.compile(r"calls\[\d+\]\.arguments\..+")


def expected_text(mismatch: Mismatch) -> str:
    """A mismatch's expected side for reading: a failed argument check's expectation is already
    words (`one of "README.md", "./README.md"`), shown as written, never quoted a second time
    (results files from before `check` existed are told by the path); any other is a JSON value."""
    words = mismatch.check is not None or _ARGUMENT_PATH.fullmatch(mismatch.path) is not None
    if words and isinstance(mismatch.expected, str):
        return mismatch.expected
    return json_text(mismatch.expected)


def _failing(shown: Expected | None) -> list[list[str]]:
    return [] if shown is None else [[_text(name), _text(arg)] for name, arg in sorted(shown.failing)]


def _step(view: StepView, index: int | None) -> dict[str, Any]:
    return {
        "number": view.number,
        "state": view.state,
        "heading": _text(f"Step {view.number} · expects {view.expects} · {view.label}"),
        "expected": index,
        "failing": _failing(view.expected),
        "names_wrong": view.expected is not None and view.expected.names_wrong,
        "observed": None if view.verdict is None else _observed(view.verdict),
    }


def _verdict(run: RunView) -> dict[str, Any]:
    """One run's verdict without its API calls (what copies of a model share)."""
    result = run.result
    if result is None:
        return {"missing": True}
    found: dict[str, Any] = {
        "status": result.status,
        "reason": None if result.status == "scored" else _text(result.reason or "no reason recorded"),
        "steps": [_step(view, view.number - 1 if view.expected is not None else None) for view in run.steps],
        "unscored": bool(run.unscored),
    }
    return found


def _api(calls: list[ApiCall]) -> list[list[str]]:
    return [
        [
            str(call.step + 1),
            str(call.attempt + 1),
            DASH if call.status is None else str(call.status),
            latency(call.latency_ms),
            cost(call.cost_usd),
            _text(call.answered_by or DASH),
            _text(call.error or ""),
        ]
        for call in calls
    ]


class CellData:
    """Collects the page's data: cases by index, verdicts by their encoded form (one copy each)."""

    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []
        self._case_index: dict[str, int] = {}
        self.verdicts: list[dict[str, Any]] = []
        self._verdict_index: dict[str, int] = {}
        self._seen: dict[tuple[int, int, bool], int] = {}
        self.cells: dict[str, list[Any]] = {}
        self._columns: list[list[Any]] = []

    def _case(self, case_id: str, case: Case | None) -> int:
        """The case's index in `cases` (each `{"id": ..., ...case_data}`), added on first use."""
        if case_id not in self._case_index:
            self._case_index[case_id] = len(self.cases)
            self.cases.append({"id": _text(case_id), "case": case_data(case)})
        return self._case_index[case_id]

    def _verdict(self, run: RunView, case: Case | None) -> int:
        # The same result object on the same case gives the same verdict (copies of a model share
        # them): shaped once. Objects stay alive for the whole render, so their ids stay theirs.
        seen = (id(run.result), id(case), bool(run.unscored))
        if seen not in self._seen:
            verdict = _verdict(run)
            key = json.dumps(verdict)  # ASCII: a lone surrogate is a key like any text
            if key not in self._verdict_index:
                self._verdict_index[key] = len(self.verdicts)
                self.verdicts.append(verdict)
            self._seen[seen] = self._verdict_index[key]
        return self._seen[seen]

    def add(self, cell_id: str, panel: Panel, model: int, summary: list[str] | None = None) -> None:
        """A cell by its element's id: [case, model, status, repeated, runs, summary] (the case's
        index in `cases`, the model's in `columns`), each run [number, status, verdict, API calls];
        `summary` ([text, title, runs not scored]) for a cell the page leaves out until the reader
        picks its model."""
        runs = [
            [
                run.number,
                run.status,
                self._verdict(run, panel.case),
                [] if run.result is None else _api(run.result.api_calls),
            ]
            for run in panel.runs
        ]
        cell = [self._case(panel.case_id, panel.case), model, panel.status, panel.repeated, runs]
        if summary is not None:
            cell.append([_text(text) for text in summary])
        self.cells[cell_id] = cell

    def columns(self, models: list[ModelResult], cell_ids: list[str], groups: list[Any]) -> None:
        """Every model's column, best first: its name, its cell ids row by row (the matrix's order),
        its score per group; the script builds a column the page left out from these."""
        count = len(models)
        self._columns = [
            [
                _text(model.model),
                cell_ids[index::count],
                [_text(group.scores[index]) for group in groups],
            ]
            for index, model in enumerate(models)
        ]

    def page_data(self) -> dict[str, Any]:
        return {
            "status": STATUS,
            "cases": self.cases,
            "verdicts": self.verdicts,
            "cells": self.cells,
            "columns": self._columns,
        }

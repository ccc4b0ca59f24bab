"""CSV and JSON Lines exports: one row per model x case x judged step, for spreadsheets and scripts.

The reports summarise; an export lets someone filter, pivot or join the judged steps themselves.
Both writers share `rows`, so a CSV file and a JSONL file of the same run hold the same rows in
the same order with the same columns (`COLUMNS`). The values are the results file's, unchanged,
except where a format cannot carry them:

- CSV (RFC 4180 via the `csv` module, CRLF line ends, quotes only where needed): lists (`reasons`,
  `calls`) are JSON text; a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets
  a leading `'`, so a spreadsheet shows it as text instead of running it as a formula; a lone
  surrogate (not encodable as UTF-8) becomes U+FFFD.
- JSONL: one compact JSON object per line, values as they are (no apostrophes); a lone surrogate
  is written as its `\\udXXX` escape, so the line is still valid UTF-8 and decodes back to it.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any

import msgspec

from lobrec.core.judge.failures import kind_label
from lobrec.core.metrics.history import History
from lobrec.core.metrics.repeats import run_outcome
from lobrec.core.metrics.results import ApiCall, CaseResult, RunResult, StepVerdict
from lobrec.core.suite.format import Suite
from lobrec.reports.caseview import cases_view

COLUMNS: tuple[str, ...] = (
    "model",
    "case_id",
    "group",
    "case_status",
    "step",
    "passed",
    "reasons",
    "calls",
    "latency_ms",
    "cost_usd",
    "case_reason",
    "run",
    "failure_kind",
    "failure_argument",
    "failure_check",
)
"""The columns, left to right, in both formats (docs/reports.md says what each holds); new columns
go at the end, so a consumer reading by position keeps working."""

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A cell starting with one of these would be a formula (or lead to one) in a spreadsheet."""

_SURROGATE = re.compile("[\ud800-\udfff]")


# --- what the rows hold --------------------------------------------------------------------------


case_outcome = run_outcome
"""`passed` or `failed` for a scored case, else its status (the core's rule, by the reports' name)."""


def step_reasons(step: StepVerdict) -> list[str]:
    """The judge's reasons for a step, in its order; empty for a passing step."""
    return [mismatch.reason for mismatch in step.mismatches]


def step_kind(step: StepVerdict) -> str | None:
    """A failed step's kind as a person reads it (its label, not the id the rows keep): `wrong
    tool`, or `arg check (date: regex)` naming the argument and the check; None for a passing step
    or one from a file before kinds."""
    if step.failure_kind is None:
        return None
    label = kind_label(step.failure_kind)
    named = [part for part in (step.failure_argument, step.failure_check) if part]
    return f"{label} ({': '.join(named)})" if named else label


def judged_call(case: CaseResult, step: StepVerdict) -> ApiCall | None:
    """The attempt whose answer was judged for `step` (the last attempt), if the results hold it."""
    found = [call for call in case.api_calls if call.step == step.index and call.judged]
    return found[-1] if found else None


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _row(model: str, run: int, case: CaseResult, group: str, step: StepVerdict | None) -> dict[str, Any]:
    base: dict[str, Any] = {
        "model": model,
        "case_id": case.id,
        "group": group,
        "case_status": case_outcome(case),
        "step": None,
        "passed": None,
        "reasons": None,
        "calls": None,
        "latency_ms": None,
        "cost_usd": None,
        "case_reason": case.reason,
        "run": run,
        "failure_kind": None,
        "failure_argument": None,
        "failure_check": None,
    }
    if step is not None:
        api = judged_call(case, step)
        base |= {
            "step": step.index + 1,
            "passed": step.passed,
            "reasons": step_reasons(step),
            "calls": [{"name": call.name, "arguments": call.arguments} for call in step.calls],
            "latency_ms": _number(api.latency_ms) if api else None,
            "cost_usd": _number(api.cost_usd) if api else None,
            "failure_kind": step.failure_kind,
            "failure_argument": step.failure_argument,
            "failure_check": step.failure_check,
        }
    return base


def rows(run: RunResult, suite: Suite) -> list[dict[str, Any]]:
    """Every row, keys in `COLUMNS` order: models in the results file's order, then runs (1 for a
    model recorded once; 1..K with `--repeat K`), cases as stored (the suite's order), steps by
    number. A case with no judged step (errored before its first answer, stale, unrecorded) has one
    row whose step fields are None; a chain that stopped at a failing step has no rows for the
    steps it never reached."""
    out: list[dict[str, Any]] = []
    for model in cases_view(run, suite).models:
        for held in model.by_run:
            steps: list[StepVerdict | None] = [*sorted(held.case.steps, key=lambda step: step.index)]
            out.extend(_row(model.name, held.run, held.case, held.group, step) for step in steps or [None])
    return out


# --- JSON Lines ----------------------------------------------------------------------------------


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value: Any) -> str:
    """Compact JSON with non-ASCII kept readable; lone surrogates escaped (valid UTF-8 out)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _SURROGATE.sub(_escape_surrogate, text)


def to_jsonl(run: RunResult, suite: Suite) -> str:
    """One JSON object per row and line, `\\n`-terminated; empty for a run with no cases."""
    return "".join(json_text(row) + "\n" for row in rows(run, suite))


# --- CSV -----------------------------------------------------------------------------------------


def safe_cell(text: str) -> str:
    """`text` as a spreadsheet shows it, never runs it: a formula start gets a leading `'`."""
    text = _SURROGATE.sub("\ufffd", text)
    return "'" + text if text.startswith(FORMULA_START) else text


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if column in ("reasons", "calls"):
        return safe_cell(json_text(value))
    return safe_cell(str(value))


def to_csv(run: RunResult, suite: Suite) -> str:
    """A header line (`COLUMNS`), then one line per row; RFC 4180 quoting, CRLF line ends."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(COLUMNS)
    for row in rows(run, suite):
        writer.writerow([_cell(column, row[column]) for column in COLUMNS])
    return buffer.getvalue()


# --- lobrec history --json ---------------------------------------------------------------------------


def encode_history(history: History) -> bytes:
    """The history as indented JSON (`lobrec history --json`): the `History` Struct, key order kept."""
    return msgspec.json.format(msgspec.json.encode(history), indent=2) + b"\n"

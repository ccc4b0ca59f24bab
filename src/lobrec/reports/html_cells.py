"""What a case's cell in the HTML report holds: its status, and its drill-down (`Panel`: which
checks failed, what each call got wrong, where a chain stopped), which `html_celldata` packs as
data for the page's script (`static/cells.js`) to lay out when the cell is opened.

Pure data: no markup here; the templates escape everything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, assert_never

from lobrec.core.metrics.repeats import CaseVerdict, run_verdict
from lobrec.core.metrics.results import CallRecord, CaseResult, StepVerdict
from lobrec.core.suite.format import (
    Absent,
    CallStep,
    Case,
    Check,
    Contains,
    Eq,
    Message,
    NoCallStep,
    OneOf,
    Present,
    Range,
    Regex,
    Subset,
)
from lobrec.reports.view import ModelView

STATUS: dict[CaseVerdict, tuple[str, str]] = {
    "pass": ("✓", "pass"),
    "fail": ("✗", "fail"),
    "errored": ("!", "errored"),
    "stale": ("↻", "stale"),
    "unrecorded": ("∅", "unrecorded"),
    "missing": ("·", "not in run"),
    "flaky": ("◐", "flaky"),
}
"""Each verdict's symbol and word (`lobrec.core.metrics.repeats.CaseVerdict`)."""
LEGEND: dict[CaseVerdict, str] = {
    "pass": "every step passed",
    "fail": "a step failed",
    "errored": "the request failed or the API answered an error; left out of every rate",
    "stale": "recorded for an older request; re-record",
    "unrecorded": "no recording; record it",
    "missing": "the case is not in this model's results",
    "flaky": "repeated runs: passed in some, failed in others",
}


def json_text(value: Any) -> str:
    """A value as JSON text for reading (not for a script: the templates escape it)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except RecursionError:
        return json.dumps("(nested too deeply to show)")


def check_text(check: Check) -> str:
    """A check in words: `path = "README.md"`, `text contains "resolved"`, `1 ≤ n ≤ 10`."""
    match check:
        case Eq():
            return f"{check.arg} = {json_text(check.value)}"
        case Subset():
            return f"{check.arg} includes {json_text(check.value)}"
        case Regex():
            return f"{check.arg} matches /{check.pattern}/i"
        case OneOf():
            return _one_of_text(check)
        case Contains():
            return f"{check.arg} contains {json_text(check.value)} (any case)"
        case Present():
            return f"{check.arg} is present"
        case Absent():
            return f"{check.arg} is absent"
        case Range():
            return _range_text(check)
        case _:
            assert_never(check)


def _one_of_text(check: OneOf) -> str:
    left_out = " (or left out)" if None in check.values else ""
    return f"{check.arg} is one of {json_text(check.values)}{left_out}"


def _range_text(check: Range) -> str:
    low = "" if check.min is None else f"{check.min:g} ≤ "
    high = "" if check.max is None else f" ≤ {check.max:g}"
    return f"{low}{check.arg}{high}"


def call_flag(record: CallRecord) -> str | None:
    """What is wrong with a call, as `subject: problem`; None for a call with nothing wrong.

    The judge records arguments that could not be read as one error in words ("arguments of
    read_file are not valid JSON"); a schema's errors each start with the JSON path (`$.path`).
    """
    if not record.offered:
        return "made-up tool: not offered"
    if record.schema_valid is not False:
        return None
    unread = [error for error in record.schema_errors if not error.startswith("$")]
    if any("not valid JSON" in error or "did not parse" in error for error in unread):
        return "arguments: not valid JSON"
    if unread:
        return "arguments: not a JSON object"
    return "arguments: do not fit the schema"


def pretty_arguments(text: str | None) -> str:
    if text is None:
        return "(no arguments)"
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than it can be shown
        return text


def message_text(message: Message) -> str:
    if message.content is not None:
        return message.content
    return json_text(message.tool_calls) if message.tool_calls else ""


_ARG_PATH = re.compile(r"^calls\[(\d+)\]\.arguments\.([^.\[]+)")


def _failing_args(verdict: StepVerdict) -> set[tuple[str, str]]:
    """(tool name, argument) pairs a mismatch points at, to highlight the expected checks."""
    failing = set()
    for mismatch in verdict.mismatches:
        found = _ARG_PATH.match(mismatch.path)
        if found is None:
            continue
        index = int(found.group(1))
        if index < len(verdict.calls) and verdict.calls[index].name is not None:
            failing.add((verdict.calls[index].name or "", found.group(2)))
    return failing


@dataclass(frozen=True)
class Expected:
    """A step's expected side, with the checks a mismatch points at."""

    step: CallStep | NoCallStep
    failing: set[tuple[str, str]] = field(default_factory=set)
    names_wrong: bool = False

    @property
    def is_call(self) -> bool:
        return isinstance(self.step, CallStep)


def expected(step: CallStep | NoCallStep, verdict: StepVerdict | None) -> Expected:
    if verdict is None:
        return Expected(step)
    return Expected(step, _failing_args(verdict), not verdict.passed and not verdict.names_match)


@dataclass(frozen=True)
class StepView:
    number: int
    state: str
    """`pass`, `fail` or `unreached`."""
    label: str
    expects: str
    expected: Expected | None
    verdict: StepVerdict | None


def _step_view(
    index: int, step: CallStep | NoCallStep | None, verdict: StepVerdict | None, stopped: int | None
) -> StepView:
    expects = "a call" if isinstance(step, CallStep) or (verdict and verdict.expects == "call") else "no call"
    if verdict is None:
        where = "" if stopped is None else f": the chain stopped at step {stopped + 1}"
        state, label = "unreached", f"not reached{where}"
    elif verdict.passed:
        state, label = "pass", "✓ passed"
    else:
        state, label = "fail", "✗ failed"
    shown = expected(step, verdict) if step is not None else None
    return StepView(index + 1, state, label, expects, shown, verdict)


@dataclass(frozen=True)
class RunView:
    """One run's verdict on a case: the result (None: not in the results), its steps when scored,
    or the suite's expected steps alone when it was not."""

    number: int
    status: str
    result: CaseResult | None
    steps: list[StepView]
    unscored: list[Expected]


def run_view(number: int, case: Case | None, result: CaseResult | None, status: str) -> RunView:
    if result is not None and result.status == "scored":
        return RunView(number, status, result, _scored_steps(case, result), [])
    unscored = [Expected(step) for step in case.steps] if case is not None and status != "missing" else []
    return RunView(number, status, result, [], unscored)


def _scored_steps(case: Case | None, result: CaseResult) -> list[StepView]:
    """Every step of the suite's case or of the verdict, whichever has more; after a chain's failed
    step, the rest as not reached."""
    suite_steps: list[CallStep | NoCallStep | None] = list(case.steps) if case is not None else []
    stopped = next((v.index for v in result.steps if not v.passed), None)
    by_index = {verdict.index: verdict for verdict in result.steps}
    return [
        _step_view(
            index, suite_steps[index] if index < len(suite_steps) else None, by_index.get(index), stopped
        )
        for index in range(max(len(suite_steps), len(result.steps)))
    ]


@dataclass(frozen=True)
class Panel:
    """A cell's drill-down: the conversation, then one run (or each of a repeated model's runs)."""

    case_id: str
    model: str
    status: str
    case: Case | None
    runs: list[RunView]
    repeated: bool


def panel(model: ModelView, case_id: str, case: Case | None, status: str) -> Panel:
    """The drill-down of `model`'s cell on `case_id`, from the view's cell (each run's result and
    status); a case the model lacks shows each run as missing."""
    verdict = model.matrix.get(case_id)
    results = verdict.results if verdict is not None else (None,) * model.runs
    if model.flaky is None:  # recorded once
        return Panel(case_id, model.name, status, case, [run_view(1, case, results[0], status)], False)
    statuses = verdict.run_statuses if verdict is not None else tuple(map(run_verdict, results))
    runs = [
        run_view(number, case, each, shown)
        for number, (each, shown) in enumerate(zip(results, statuses, strict=True), start=1)
    ]
    return Panel(case_id, model.name, status, case, runs, True)

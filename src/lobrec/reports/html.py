"""The HTML report: one self-contained file to open in a browser and explore case by case.

It holds the leaderboard, a plot of score against cost, the per-group breakdown, and a matrix of
every case against every model; each cell opens the model's calls beside the suite's expected
calls, with the failing check and the judge's reasons. The file loads nothing: styles and the
small script are inline, the plot is inline SVG, and a Content-Security-Policy forbids network
loads, so the report works offline and leaks nothing when opened.

Everything from a results file or a suite (model output above all) passes through `_esc`, which
spells out control characters and then applies `html.escape(..., quote=True)`: a reply holding
`<script>` is shown as text.

Without JavaScript the page is complete: every row shows, groups fold with `<details>` (and
CSS `:has`), each rate shows its 95% interval. The script adds the explorer, and keeps its state
in the address, keys in this order, each optional:
`#filter=failures,disagree&group=<group>&q=<text>&fold=<group>,<group>&sort=[-]<key>&open=<cell id>`
(`#open=<cell id>` alone opens a cell as before). Everything the script decides from (which rows
fail or disagree, what a search looks through, the number each leaderboard cell sorts by) is
computed here and written into `data-` attributes, so the same results give the same bytes.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple, assert_never

from lobrec import __version__
from lobrec.core.compare import RATE_METRICS
from lobrec.core.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    Mismatch,
    ModelResult,
    Rate,
    RunResult,
    StepVerdict,
)
from lobrec.core.suite import (
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
    Suite,
)
from lobrec.core.words import counted
from lobrec.reports._format import (
    DASH,
    KEY,
    NO_SCORES,
    Column,
    cost,
    count_line,
    group_cell,
    group_label,
    latency,
    model_notes,
    ordered_groups,
    percent,
    printable,
    provenance,
    ranked,
    rate_counts,
    rerecord,
)
from lobrec.reports._labels import LABEL_HEIGHT, Box, Label, place_labels, text_width
from lobrec.reports.quirks import quirks_note
from lobrec.reports.repeats import (
    REPEATS_KEY,
    any_repeats,
    leaderboard_columns,
    repeats_lines,
    run_cases,
    runs_tally,
    runs_to_record,
    unscored_runs,
    unscored_which,
)

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _esc(value: object, *, multiline: bool = False) -> str:
    """Any value as HTML text: control characters spelled out, markup characters escaped."""
    return html.escape(printable(str(value), keep_newlines=multiline), quote=True)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except RecursionError:
        return json.dumps("(nested too deeply to show)")


# --- status of a cell ------------------------------------------------------------------------------

_STATUS: dict[str, tuple[str, str]] = {
    "pass": ("✓", "pass"),
    "fail": ("✗", "fail"),
    "errored": ("!", "errored"),
    "stale": ("↻", "stale"),
    "unrecorded": ("∅", "unrecorded"),
    "missing": ("·", "not in run"),
    "flaky": ("◐", "flaky"),
}
_LEGEND = {
    "pass": "every step passed",
    "fail": "a step failed",
    "errored": "the request failed or the API answered an error; left out of every rate",
    "stale": "recorded for an older request; re-record",
    "unrecorded": "no recording; record it",
    "missing": "the case is not in this model's results",
    "flaky": "repeated runs: passed in some, failed in others",
}


def _cell_status(result: CaseResult | None) -> str:
    if result is None:
        return "missing"
    if result.status == "scored":
        return "pass" if result.passed else "fail"
    return result.status


def _runs_status(outcomes: list[str]) -> str:
    """A repeated model's cell: pass or fail when every scored run agrees, flaky when they do not,
    else (no run scored) the first run's status."""
    scored = [outcome for outcome in outcomes if outcome in ("passed", "failed")]
    if not scored:
        return outcomes[0] if outcomes else "missing"
    if all(outcome == "passed" for outcome in scored):
        return "pass"
    return "fail" if all(outcome == "failed" for outcome in scored) else "flaky"


def _badge(status: str) -> str:
    symbol, word = _STATUS[status]
    return f'<span class="badge {status}">{symbol} {word}</span>'


# --- checks and calls ------------------------------------------------------------------------------


def check_text(check: Check) -> str:
    """A check in words: `path = "README.md"`, `text contains "resolved"`, `1 ≤ n ≤ 10`."""
    match check:
        case Eq():
            return f"{check.arg} = {_json(check.value)}"
        case Subset():
            return f"{check.arg} includes {_json(check.value)}"
        case Regex():
            return f"{check.arg} matches /{check.pattern}/i"
        case OneOf():
            left_out = " (or left out)" if None in check.values else ""
            return f"{check.arg} is one of {_json(check.values)}{left_out}"
        case Contains():
            return f"{check.arg} contains {_json(check.value)} (any case)"
        case Present():
            return f"{check.arg} is present"
        case Absent():
            return f"{check.arg} is absent"
        case Range():
            low = "" if check.min is None else f"{check.min:g} ≤ "
            high = "" if check.max is None else f" ≤ {check.max:g}"
            return f"{low}{check.arg}{high}"
        case _:
            assert_never(check)


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


def _pretty_arguments(text: str | None) -> str:
    if text is None:
        return "(no arguments)"
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than it can be shown
        return text


def _expected_html(step: CallStep | NoCallStep, verdict: StepVerdict | None) -> str:
    if isinstance(step, NoCallStep):
        answer = f'<pre class="text">{_esc(step.answer, multiline=True)}</pre>' if step.answer else ""
        return f"<p>No call: a text answer.</p>{answer and '<p class=sub>Reference answer</p>' + answer}"
    failing = _failing_args(verdict) if verdict is not None else set()
    names_wrong = verdict is not None and not verdict.passed and not verdict.names_match
    items = []
    for expected in step.calls:
        checks = []
        for check in expected.checks:
            bad = (expected.name, check.arg) in failing
            mark = '<span class="mark">✗</span> ' if bad else ""
            checks.append(
                f'<li class="{"failing" if bad else "check"}">{mark}'
                f"<code>{_esc(check_text(check))}</code></li>"
            )
        body = (
            f'<ul class="checks">{"".join(checks)}</ul>'
            if checks
            else '<p class="sub">no argument checks</p>'
        )
        if expected.result is not None:
            body += (
                '<p class="sub">Result sent back for the next step</p>'
                f'<pre class="text">{_esc(expected.result, multiline=True)}</pre>'
            )
        items.append(
            f'<li><code class="name{" failing" if names_wrong else ""}">'
            f"{_esc(expected.name)}</code>{body}</li>"
        )
    count = len(step.calls)
    lead = f"{count} calls in one response:" if count > 1 else "A call:"
    return f'<p>{lead}</p><ol class="calls">{"".join(items)}</ol>'


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


def _call_html(record: CallRecord) -> str:
    flag = call_flag(record)
    flags = [] if flag is None else [f'<span class="flag bad">{_esc(flag)}</span>']
    errors = "".join(f"<li>{_esc(error)}</li>" for error in record.schema_errors)
    name = DASH if record.name is None else record.name
    return (
        f'<li><code class="name">{_esc(name)}</code> {"".join(flags)}'
        f'<pre class="args">{_esc(_pretty_arguments(record.arguments), multiline=True)}</pre>'
        f"{f'<ul class=schema-errors>{errors}</ul>' if errors else ''}</li>"
    )


def _observed_html(verdict: StepVerdict) -> str:
    parts = []
    if verdict.calls:
        parts.append(f'<ol class="calls">{"".join(_call_html(record) for record in verdict.calls)}</ol>')
    else:
        parts.append("<p>No call.</p>")
    if verdict.content:
        parts.append(
            f'<p class="sub">Text</p><pre class="text">{_esc(verdict.content, multiline=True)}</pre>'
        )
    return "".join(parts)


def _mismatches_html(mismatches: list[Mismatch]) -> str:
    if not mismatches:
        return ""
    rows = "".join(
        f'<tr><td data-label="Path"><code>{_esc(m.path)}</code></td>'
        f'<td data-label="Expected"><code>{_esc(_json(m.expected))}</code></td>'
        f'<td data-label="Got"><code>{_esc(_json(m.got))}</code></td>'
        f'<td data-label="Reason">{_esc(m.reason)}</td></tr>'
        for m in mismatches
    )
    return (
        '<table class="mismatches"><caption>✗ Why it failed</caption>'
        "<thead><tr><th>Path</th><th>Expected</th><th>Got</th><th>Reason</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _step_html(
    index: int, step: CallStep | NoCallStep | None, verdict: StepVerdict | None, stopped: int | None
) -> str:
    expects = "a call" if isinstance(step, CallStep) or (verdict and verdict.expects == "call") else "no call"
    if verdict is None:
        where = "" if stopped is None else f": the chain stopped at step {stopped + 1}"
        state, label = "unreached", f"not reached{where}"
    elif verdict.passed:
        state, label = "pass", "✓ passed"
    else:
        state, label = "fail", "✗ failed"
    expected = (
        _expected_html(step, verdict) if step is not None else '<p class="sub">not in the suite file</p>'
    )
    observed = _observed_html(verdict) if verdict is not None else '<p class="sub">—</p>'
    return (
        f'<section class="step {state}"><h4>Step {index + 1} · expects {expects} · {_esc(label)}</h4>'
        f'<div class="cols"><div><h5>Expected</h5>{expected}</div><div><h5>Model</h5>{observed}</div></div>'
        f"{_mismatches_html(verdict.mismatches) if verdict is not None else ''}</section>"
    )


def _api_html(calls: list[ApiCall]) -> str:
    if not calls:
        return ""
    rows = "".join(
        f"<tr><td>{c.step + 1}</td><td>{c.attempt + 1}</td>"
        f"<td>{_esc(DASH if c.status is None else c.status)}</td>"
        f"<td>{_esc(latency(c.latency_ms))}</td><td>{_esc(cost(c.cost_usd))}</td>"
        f"<td>{_esc(c.answered_by or DASH)}</td><td>{_esc(c.error or '')}</td></tr>"
        for c in calls
    )
    return (
        '<details class="api"><summary>API calls</summary><table class="plain">'
        "<thead><tr><th>Step</th><th>Attempt</th><th>Status</th><th>Latency</th><th>Cost</th>"
        f"<th>Answered by</th><th>Error</th></tr></thead><tbody>{rows}</tbody></table></details>"
    )


def _message_text(message: Message) -> str:
    if message.content is not None:
        return message.content
    return _json(message.tool_calls) if message.tool_calls else ""


def _conversation_html(case: Case | None) -> str:
    if case is None:
        return ""
    lines = "".join(
        f'<p class="msg"><span class="role">{_esc(message.role)}</span> '
        f"{_esc(_message_text(message), multiline=True)}</p>"
        for message in case.messages
        if message.role != "system"
    )
    note = f'<p class="sub">{_esc(case.note)}</p>' if case.note else ""
    return f'<div class="conversation">{note}{lines}</div>'


def _panel_html(
    model: ModelResult, case_id: str, case: Case | None, result: CaseResult | None, status: str
) -> str:
    parts = [
        '<div class="panel" role="dialog">',
        f'<div class="panel-head"><div><strong>{_esc(case_id)}</strong> · {_esc(model.model)} '
        f"{_badge(status)}</div>"
        '<button type="button" class="close" aria-label="Close">Close ✕</button></div>',
        _conversation_html(case),
    ]
    if model.repeats is not None:
        parts.append(_runs_html(model, case_id, case))
        parts.append("</div>")
        return "".join(parts)
    parts.extend(_result_parts(case, result, status))
    parts.append("</div>")
    return "".join(parts)


def _runs_html(model: ModelResult, case_id: str, case: Case | None) -> str:
    """A repeated model's drill-down: each run's verdict in a line, then each run's steps, the
    first run open."""
    runs = run_cases(model)
    found = [next((result for result in cases if result.id == case_id), None) for cases in runs]
    statuses = [_cell_status(result) for result in found]
    line = " · ".join(f"Run {number} {_badge(status)}" for number, status in enumerate(statuses, start=1))
    sections = [f'<p class="runs">{line}</p>']
    for number, (result, status) in enumerate(zip(found, statuses, strict=True), start=1):
        sections.append(
            f'<details class="run"{" open" if number == 1 else ""}><summary>Run {number} {_badge(status)}'
            f"</summary>{''.join(_result_parts(case, result, status))}</details>"
        )
    return "".join(sections)


def _result_parts(case: Case | None, result: CaseResult | None, status: str) -> list[str]:
    """One run's verdict: the reason when it was not scored, each step, its API attempts."""
    parts: list[str] = []
    if result is None:
        parts.append("<p class=reason>This case is not in this model's results.</p>")
    elif result.status != "scored":
        parts.append(
            f'<p class="reason {status}"><strong>{_esc(result.status.capitalize())}:</strong> '
            f"{_esc(result.reason or 'no reason recorded')}</p>"
        )
    if result is not None and result.status == "scored":
        steps: list[CallStep | NoCallStep | None] = list(case.steps) if case is not None else []
        total = max(len(steps), len(result.steps))
        stopped = next((v.index for v in result.steps if not v.passed), None)
        by_index = {verdict.index: verdict for verdict in result.steps}
        for index in range(total):
            step = steps[index] if index < len(steps) else None
            parts.append(_step_html(index, step, by_index.get(index), stopped))
    elif case is not None and status != "missing":
        for index, step in enumerate(case.steps):
            parts.append(
                f'<section class="step unreached"><h4>Step {index + 1} · expected</h4>'
                f"{_expected_html(step, None)}</section>"
            )
    if result is not None:
        parts.append(_api_html(result.api_calls))
    return parts


# --- sections --------------------------------------------------------------------------------------


def _rate_title(model: ModelResult, attribute: str) -> str:
    rate: Rate = getattr(model.metrics, attribute)
    if rate.total == 0:
        return "nothing to rate"
    interval = "" if rate.ci95 is None else f", 95% interval {_interval(rate.ci95)}"
    return f"{rate_counts(rate)}{interval}"


class SortKey(NamedTuple):
    """How one leaderboard column sorts: its name in the address, and the order of a first click."""

    key: str
    first: str
    """`desc` or `asc`: a first click puts the best first (highest rate, lowest cost, A to Z)."""
    text: bool
    value: Callable[[ModelResult], float | str | None]


def _rate_value(metric: str) -> Callable[[ModelResult], float | None]:
    def value(model: ModelResult) -> float | None:
        rate: Rate = getattr(model.metrics, metric)
        return rate.rate if model.has_scores else None

    return value


def _scored_share(model: ModelResult) -> float | None:
    return model.counts.scored / model.counts.cases if model.counts.cases else None


_LOWER_IS_BETTER = {metric for metric, _, lower in RATE_METRICS if lower}
_OTHER_SORT_KEYS: dict[str, SortKey] = {
    "Model": SortKey("model", "asc", True, lambda model: printable(model.model)),
    "p50 latency": SortKey("latency", "asc", False, lambda model: model.metrics.latency_p50_ms),
    "Cost/100 cases": SortKey("cost", "asc", False, lambda model: model.metrics.cost_per_100_cases_usd),
    "Scored": SortKey("scored", "desc", False, _scored_share),
    "Errored": SortKey("errored", "asc", False, lambda model: model.counts.errored),
    "Stale": SortKey("stale", "asc", False, lambda model: model.counts.stale + model.counts.unrecorded),
    "Runs": SortKey("runs", "desc", False, lambda model: model.run_count),
    "pass^K": SortKey(
        "pass_k",
        "desc",
        False,
        lambda model: None if model.repeats is None else model.repeats.pass_hat_k.rate,
    ),
}
DEFAULT_SORT = "-overall"
"""The leaderboard's own order (`ranked`): overall rate, best first; models without scores last."""


def sort_key(column: Column) -> SortKey:
    """The sort of a leaderboard column; a column this module does not know sorts by its text."""
    if column.metric is not None:
        first = "asc" if column.metric in _LOWER_IS_BETTER else "desc"
        return SortKey(column.metric, first, False, _rate_value(column.metric))
    known = _OTHER_SORT_KEYS.get(column.label)
    if known is not None:
        return known
    return SortKey(_slug(column.label.lower()), "asc", True, column.value)


def _sort_value(value: float | str | None) -> str:
    """What a cell's `data-sort` holds: the exact number (or text), empty for nothing to sort."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, str):
        return _esc(value)
    if isinstance(value, int):
        return str(value)
    return repr(value)


def _sort_head(column: Column) -> str:
    """A heading that sorts when clicked. Its arrow is added by the script, with the words that say
    a heading sorts: with JavaScript off nothing sorts, so nothing says it does."""
    spec = sort_key(column)
    active = DEFAULT_SORT.lstrip("-") == spec.key
    direction = "descending" if DEFAULT_SORT.startswith("-") else "ascending"
    aria = f' aria-sort="{direction}"' if active else ""
    return (
        f'<th class="{"num" if column.numeric else "text"}" scope="col"{aria}>'
        f'<button type="button" class="sort" data-key="{spec.key}" data-first="{spec.first}"'
        f"{' data-text' if spec.text else ''}>{_esc(column.label)}</button></th>"
    )


def _leaderboard_html(run: RunResult) -> str:
    columns = leaderboard_columns(run)
    head = "".join(_sort_head(column) for column in columns)
    rows = []
    for rank, model in enumerate(ranked(run)):
        cells = []
        for column in columns:
            value = column.value(model)
            attribute = column.metric
            data = f' data-sort="{_sort_value(sort_key(column).value(model))}"'
            if not column.numeric:
                cells.append(f'<th scope="row" class="text"{data}>{_esc(value)}</th>')
            elif attribute is not None and model.has_scores:
                rate: Rate = getattr(model.metrics, attribute)
                interval = (
                    "" if rate.ci95 is None else f'<span class="ci">{_esc(_interval(rate.ci95))}</span>'
                )
                cells.append(
                    f'<td class="num"{data} title="{_esc(_rate_title(model, attribute))}">'
                    f"{_esc(value)}{interval}</td>"
                )
            else:
                cells.append(f'<td class="num"{data}>{_esc(value)}</td>')
        row_class = "" if model.has_scores else ' class="no-scores"'
        rows.append(f'<tr{row_class} data-rank="{rank}">{"".join(cells)}</tr>')
    notes = "".join(
        f"<li><strong>{_esc(model.model)}</strong>: {_esc('; '.join(_model_notes(model)))}</li>"
        for model in ranked(run)
    )
    key = KEY + (f" · {REPEATS_KEY}" if any_repeats(run) else "")
    return (
        '<section id="leaderboard"><h2>Leaderboard</h2>'
        f'<div class="scroll"><table class="board leader" data-default-sort="{DEFAULT_SORT}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f'<p class="sub">{_esc(key)} · under each rate, its 95% interval (Wilson); hover a rate for its '
        'counts<span id="sort-hint"></span></p>'
        f'<ul class="notes">{notes}</ul></section>'
    )


def _model_notes(model: ModelResult) -> list[str]:
    return [count_line(model), *model_notes(model), *quirks_note(model), *_runs_notes(model)]


def _runs_notes(model: ModelResult) -> list[str]:
    """A repeated model's runs in words, and every flaky case."""
    if model.repeats is None:
        return []
    flaky = ", ".join(model.repeats.flaky) or "none"
    return [*repeats_lines(model), f"flaky ({len(model.repeats.flaky)}): {flaky}"]


def _groups_html(run: RunResult) -> str:
    models = ranked(run)
    head = "".join(f'<th class="num" scope="col">{_esc(model.model)}</th>' for model in models)
    rows = []
    for group in ordered_groups(name for model in models for name in model.groups):
        cells = []
        for model in models:
            metrics = model.groups.get(group)
            share = metrics.overall.rate if metrics is not None else None
            bar = "" if share is None else f'<span class="bar" style="width:{share:.1f}%"></span>'
            interval = metrics.overall.ci95 if metrics is not None and share is not None else None
            title = ""
            if interval is not None:
                low, high = interval
                bar += (
                    f'<span class="whisker" style="left:{low:.1f}%;width:{high - low:.1f}%" '
                    'aria-hidden="true"></span>'
                )
                title = f' title="95% interval {_esc(_interval(interval))}"'
            cells.append(
                f'<td class="num bar-cell"{title}>{bar}'
                f'<span class="value">{_esc(group_cell(model, group))}</span></td>'
            )
        rows.append(f'<tr><th scope="row" class="text">{_esc(group_label(group))}</th>{"".join(cells)}</tr>')
    return (
        '<section id="groups"><h2>By group</h2>'
        '<p class="sub">Overall rate per group, with the cases passed out of those scored; the bar is the '
        "rate, the line across it its 95% interval.</p>"
        '<div class="scroll"><table class="board groups">'
        f'<thead><tr><th class="text" scope="col">Group</th>{head}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


# --- the plot --------------------------------------------------------------------------------------


def _nice_step(span: float, count: int = 5) -> float:
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _x_axis(costs: list[float]) -> tuple[str, float, float, list[float]]:
    """(scale, low, high, ticks): logarithmic when costs span more than 20x, else linear from 0."""
    low, high = min(costs), max(costs)
    if low > 0 and high / low > 20:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        ticks = [10.0**k for k in range(first, last + 1)]
        return "log", ticks[0], ticks[-1], ticks
    step = _nice_step(high if high > 0 else 1.0)
    top = step * math.ceil((high if high > 0 else 1.0) / step)
    count = round(top / step)
    return "linear", 0.0, top, [step * i for i in range(count + 1)]


def _tick_labels(scale: str, ticks: list[float]) -> list[str]:
    """Dollar labels that share one precision on a linear axis (`$0.05`, `$0.10`), short on a log one."""
    if scale == "log":
        return [f"${tick:g}" for tick in ticks]
    places = next(
        (d for d in range(9) if all(abs(round(tick, d) - tick) <= 1e-9 * max(1.0, tick) for tick in ticks)), 8
    )
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    if step < 1:
        places = max(places, 2)
    return [f"${tick:.{places}f}" for tick in ticks]


def _interval(interval: tuple[float, float]) -> str:
    """A 95% interval as the reports write it: low and high joined by an en dash, then `%`."""
    return f"{interval[0]:.1f}–{interval[1]:.1f}%"


def _point_labels(points: list[tuple[str, float, float]], right_edge: float) -> tuple[list[Label], list[str]]:
    """A label beside each point: on its right, or on its left when the right has no room."""
    labels, sides = [], []
    for name, x, y in points:
        width = text_width(printable(name))
        if x + 10 + width <= right_edge:
            labels.append(Label(x + 10, x + 10 + width, y))
            sides.append("right")
        else:
            labels.append(Label(x - 10 - width, x - 10, y))
            sides.append("left")
    return labels, sides


def _plot_html(run: RunResult) -> str:
    plotted: list[tuple[ModelResult, float, float]] = []
    skipped: list[str] = []
    for model in ranked(run):
        rate, usd = model.metrics.overall.rate, model.metrics.cost_per_100_cases_usd
        if not model.has_scores or rate is None:
            skipped.append(f"{_esc(model.model)} ({NO_SCORES})")
        elif usd is None or not math.isfinite(usd):
            skipped.append(f"{_esc(model.model)} (no cost: a call was unpriced)")
        else:
            plotted.append((model, usd, rate))
    note = f'<p class="sub">Not plotted: {"; ".join(skipped)}.</p>' if skipped else ""
    if not plotted:
        return (
            '<section id="plot"><h2>Score against cost</h2>'
            f"<p>No model has both a score and a cost.</p>{note}</section>"
        )

    width, height = 720, 380
    left, right, top, bottom = 64, 180, 20, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    scale, low, high, ticks = _x_axis([usd for _, usd, _ in plotted])

    def x_of(usd: float) -> float:
        if scale == "log":
            share = (math.log10(usd) - math.log10(low)) / (math.log10(high) - math.log10(low))
        else:
            share = (usd - low) / (high - low)
        return left + share * plot_w

    def y_of(rate: float) -> float:
        return top + (1 - rate / 100) * plot_h

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        'aria-labelledby="plot-title">'
        '<title id="plot-title">Overall score against cost per 100 cases</title>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for value in range(0, 101, 20):
        y = y_of(value)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" class="tick" text-anchor="end">{value}%</text>')
    for tick, tick_label in zip(ticks, _tick_labels(scale, ticks), strict=True):
        x = x_of(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" class="grid"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 18}" class="tick" text-anchor="middle">'
            f"{_esc(tick_label)}</text>"
        )
    axis = "Cost per 100 cases (USD" + (", log scale)" if scale == "log" else ")")
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 12}" class="axis" text-anchor="middle">{axis}</text>'
        f'<text transform="translate(16 {top + plot_h / 2:.1f}) rotate(-90)" class="axis" '
        'text-anchor="middle">Overall score (%)</text>'
    )
    points = [(model, x_of(usd), y_of(rate), usd, rate) for model, usd, rate in plotted]
    for model, x, _, _, _ in points:
        interval = model.metrics.overall.ci95
        if interval is None:
            continue
        y_low, y_high = y_of(interval[0]), y_of(interval[1])
        parts.append(
            f'<path class="ci" d="M{x - 4:.1f} {y_high:.1f}H{x + 4:.1f}M{x:.1f} {y_high:.1f}V{y_low:.1f}'
            f'M{x - 4:.1f} {y_low:.1f}H{x + 4:.1f}"><title>{_esc(model.model)}: 95% interval '
            f"{_esc(_interval(interval))}</title></path>"
        )
    labels, sides = _point_labels([(model.model, x, y) for model, x, y, _, _ in points], width - 4)
    obstacles = [Box(x - 7, y - 7, x + 7, y + 7) for _, x, y, _, _ in points]
    # The x axis's tick labels and title sit below the frame: labels pushed down must miss them.
    obstacles += [Box(left - 40, top + plot_h + 4, left + plot_w + 40, height)]
    boxes = place_labels(labels, top=2.0, bottom=top + plot_h, obstacles=obstacles)
    for (model, x, y, usd, rate), box, side in zip(points, boxes, sides, strict=True):
        label = f"{model.model}: {percent(rate)}, {cost(usd)}"
        middle = (box.y0 + box.y1) / 2
        leader = ""
        if abs(middle - y) > LABEL_HEIGHT / 2:
            end = box.x0 - 1 if side == "right" else box.x1 + 1
            leader = f'<line class="leader" x1="{x:.1f}" y1="{y:.1f}" x2="{end:.1f}" y2="{middle:.1f}"/>'
        anchor = "" if side == "right" else ' text-anchor="end"'
        text_x = box.x0 if side == "right" else box.x1
        parts.append(
            f'<g class="point">{leader}<circle cx="{x:.1f}" cy="{y:.1f}" r="6"><title>{_esc(label)}</title>'
            f'</circle><text x="{text_x:.1f}" y="{middle + 4:.1f}" class="label"{anchor}>'
            f"{_esc(model.model)}</text></g>"
        )
    lowest = max((box.y1 for box in boxes), default=0.0)
    if lowest > height:  # more labels than fit beside the frame: grow the drawing below it
        grown = math.ceil(lowest + 4)
        parts[0] = parts[0].replace(
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}"',
            f'viewBox="0 0 {width} {grown}" width="{width}" height="{grown}"',
        )
    parts.append("</svg>")
    return (
        '<section id="plot"><h2>Score against cost</h2>'
        '<p class="sub">Up and to the left is better: a higher score for less money.</p>'
        f'<div class="scroll">{"".join(parts)}</div>{note}</section>'
    )


# --- the matrix ------------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:60] or "case"


def _rows(suite: Suite, models: list[ModelResult]) -> list[tuple[str, list[tuple[str, Case | None]]]]:
    """Cases by group, in the suite's order; cases only in results go last, in their own group."""
    groups: dict[str, list[tuple[str, Case | None]]] = {}
    for case in suite.cases:
        groups.setdefault(case.group, []).append((case.id, case))
    known = {case.id for case in suite.cases}
    extra: list[tuple[str, Case | None]] = []
    for model in models:
        for result in model.cases:
            if result.id not in known:
                known.add(result.id)
                extra.append((result.id, None))
    ordered = [(group, groups[group]) for group in ordered_groups(groups)]
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


def _filters_html(groups: list[tuple[str, str]], total: int) -> str:
    """The filter bar; `hidden` until the script shows it, since without a script it does nothing."""
    options = "".join(f'<option value="{key}">{_esc(group_label(group))}</option>' for key, group in groups)
    return (
        '<div class="filters" id="filters" role="search" aria-label="Filter the cases" hidden>'
        '<label title="rows where at least one model did not pass"><input type="checkbox" '
        'id="filter-failures"> Failures only</label>'
        '<label title="rows where the models do not all have the same verdict"><input type="checkbox" '
        'id="filter-disagree"> Models disagree</label>'
        '<label>Group <select id="filter-group"><option value="">All groups</option>'
        f"{options}</select></label>"
        '<label>Search <input type="search" id="filter-q" placeholder="case id or prompt" '
        'autocomplete="off" spellcheck="false"></label>'
        '<button type="button" id="filter-clear">Clear filters</button>'
        f'<output id="filter-count" aria-live="polite">{total} of {total} cases shown</output></div>'
    )


def _matrix_html(run: RunResult, suite: Suite) -> str:
    models = ranked(run)
    lookup = [{result.id: result for result in model.cases} for model in models]
    over_runs = [
        {} if model.repeats is None else {entry.id: entry for entry in model.repeats.cases}
        for model in models
    ]
    # Cell ids use the model's place in the results file, so links survive a change in ranking.
    place = {id(model): index for index, model in enumerate(run.models)}
    head = "".join(f'<th scope="col">{_esc(model.model)}</th>' for model in models)
    legend = "".join(
        f"<li>{_badge(status)} <span>{_esc(_LEGEND[status])}</span></li>"
        for status in _STATUS
        if status != "missing" and (status != "flaky" or any_repeats(run))
    )
    body = []
    used: set[str] = set()
    keys: list[tuple[str, str]] = []
    total = 0
    for group, cases in _rows(suite, models):
        key = _slug(group)
        while key in {known for known, _ in keys}:
            key += "_"
        keys.append((key, group))
        total += len(cases)
        scores = "".join(f'<td class="group-score">{_esc(group_cell(model, group))}</td>' for model in models)
        count = f"{len(cases)} case{'s' if len(cases) != 1 else ''}"
        rows = [
            f'<tbody class="group" id="group-{key}" data-group="{key}"><tr class="group">'
            f'<th scope="rowgroup"><details class="fold" data-group="{key}" open><summary>'
            f'{_esc(group_label(group))} <span class="group-count" data-total="{len(cases)}">{count}</span>'
            f"</summary></details></th>{scores}</tr>"
        ]
        for index, (case_id, case) in enumerate(cases):
            note = (
                f'<span class="case-note">{_esc(case.note)}</span>' if case is not None and case.note else ""
            )
            cells = []
            statuses = []
            for model_index, model in enumerate(models):
                result = lookup[model_index].get(case_id)
                status = _cell_status(result)
                repeated = over_runs[model_index].get(case_id)
                if model.repeats is not None:
                    status = _runs_status(repeated.outcomes) if repeated is not None else "missing"
                statuses.append(status)
                cell_id = f"m{place[id(model)]}-{_slug(case_id)}"
                if cell_id in used:
                    cell_id = f"{cell_id}-{index}"
                used.add(cell_id)
                symbol, word = _STATUS[status]
                title = f"{_esc(case_id)} · {_esc(model.model)}"
                unscored = ""
                if repeated is not None and model.repeats is not None:
                    runs = model.repeats.runs
                    title += f" · passed {repeated.passes}/{runs} runs ({repeated.scored} scored)"
                    if repeated.scored < runs:  # said on the cell, not only in the hover
                        title += f" · {unscored_which(repeated)}"
                        unscored = f'<span class="unscored">{_esc(unscored_runs(repeated))}</span>'
                    word = runs_tally(repeated, runs) if repeated.scored else f"0 of {runs} scored"
                cells.append(
                    f'<td class="cell {status}"><details class="cell" id="{_esc(cell_id)}">'
                    f'<summary title="{title}">{symbol} {word}{unscored}</summary>'
                    f"{_panel_html(model, case_id, case, result, status)}</details></td>"
                )
            failing = any(status != "pass" for status in statuses)
            disagree = len(set(statuses)) > 1
            search = f"{case_id} {_prompt_text(case)}".strip()
            rows.append(
                f'<tr class="case" data-fail="{int(failing)}" data-disagree="{int(disagree)}" '
                f'data-text="{_esc(search)}">'
                f'<th scope="row" class="case"><code>{_esc(case_id)}</code>{note}</th>'
                f"{''.join(cells)}</tr>"
            )
        rows.append("</tbody>")
        body.append("".join(rows))
    return (
        '<section id="cases"><h2>Cases</h2>'
        '<p class="sub">Click a cell to see the model\'s calls beside the expected ones; '
        "the address then links to that cell. Escape closes it. "
        "Click a group's name to fold it.</p>"
        f'<ul class="legend">{legend}</ul>{_filters_html(keys, total)}'
        f'<div class="scroll"><table class="matrix"><thead><tr><th scope="col">Case</th>{head}</tr></thead>'
        f"{''.join(body)}</table></div></section>"
    )


# --- page ------------------------------------------------------------------------------------------

_STYLE = """
:root {
  color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da;
  --pass: #dafbe1; --pass-ink: #116329; --fail: #ffebe9; --fail-ink: #a40e26;
  --errored: #fff1c5; --errored-ink: #7d4e00; --stale: #ede7fb; --stale-ink: #5a32a3;
  --unrecorded: #eef1f4; --unrecorded-ink: #424a53;
}
* { box-sizing: border-box; }
body {
  margin: 0 auto; max-width: 1440px; padding: 24px 32px 64px; color: var(--ink); background: #fff;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", sans-serif;
}
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; }
h4 { font-size: 14px; margin: 0 0 8px; }
h5 {
  font-size: 12px; margin: 0 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em;
}
.version { color: var(--muted); font-weight: 400; }
.sub { color: var(--muted); margin: 4px 0; font-size: 13px; }
code, pre {
  font: 12.5px/1.45 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Liberation Mono", monospace;
}
pre {
  margin: 4px 0; padding: 8px 10px; background: var(--soft); border: 1px solid var(--line);
  border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere;
}
.scroll { overflow-x: auto; }
table { border-collapse: collapse; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.text { text-align: left; }

/* leaderboard and groups */
/* Narrow padding: at 1400 px the whole leaderboard, its warning columns last, fits with repeats. */
.board th, .board td { padding: 6px 5px; border-bottom: 1px solid var(--line); white-space: nowrap; }
.board thead th {
  background: var(--soft); font-weight: 600; border-bottom: 2px solid var(--line);
  white-space: normal; vertical-align: bottom;
}
.board tbody tr:hover { background: var(--soft); }
.board tbody th { white-space: normal; min-width: 18ch; }
.board.leader tbody td:nth-of-type(1) { font-weight: 600; }
.board td[title] { cursor: help; }
tr.no-scores td { color: var(--muted); }
ul.notes { margin: 8px 0 0; padding-left: 20px; color: var(--muted); }
.groups td.bar-cell { position: relative; min-width: 130px; }
.groups .bar { position: absolute; left: 0; top: 6px; bottom: 6px; background: #ddf4ff; border-radius: 3px; }
.groups .value { position: relative; }

/* plot */
/* Never drawn so small that its labels cannot be read (12 px text at 666/720 is 11.1 px): a narrow
   screen scrolls the plot sideways instead. */
svg.plot { display: block; max-width: 100%; min-width: 666px; height: auto; }
svg .frame { fill: #fff; stroke: var(--line); }
svg .grid { stroke: #eaeef2; }
svg .tick { font-size: 11px; fill: var(--muted); }
svg .axis { font-size: 12px; fill: var(--ink); }
svg .point circle { fill: var(--accent); stroke: #fff; stroke-width: 2; }
svg .label { font-size: 12px; fill: var(--ink); }

/* statuses: a colour, and always a symbol and a word */
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0; margin: 8px 0 12px; }
.badge {
  display: inline-block; padding: 0 7px; border-radius: 10px; font-weight: 600; font-size: 12px;
  border: 1px solid currentColor; white-space: nowrap;
}
.pass { background: var(--pass); color: var(--pass-ink); }
.fail { background: var(--fail); color: var(--fail-ink); }
.errored { background: var(--errored); color: var(--errored-ink); }
.stale { background: var(--stale); color: var(--stale-ink); }
.unrecorded { background: var(--unrecorded); color: var(--unrecorded-ink); }
.missing { background: #fff; color: var(--muted); }
.flaky { background: #fff1e5; color: #953800; }
p.runs { margin: 8px 0; }
details.run { margin: 8px 0; }
details.run > summary { cursor: pointer; font-weight: 600; }

/* the case matrix */
.matrix { min-width: 100%; }
.matrix th, .matrix td { border: 1px solid var(--line); padding: 0; }
.matrix thead th { background: var(--soft); padding: 6px 10px; position: sticky; top: 0; z-index: 1; }
.matrix thead th:first-child { text-align: left; }
.matrix th.case { text-align: left; padding: 4px 10px; font-weight: 400; width: 420px; max-width: 420px; }
.case-note { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden;
  color: var(--muted); font-size: 12px; line-height: 1.35; }
.matrix tr.group th { text-align: left; background: #eef2f6; padding: 6px 10px; font-size: 13px; }
.matrix tr.group td { background: #eef2f6; text-align: center; font-size: 12px; color: var(--muted); }
td.cell > details > summary {
  display: block; list-style: none; cursor: pointer; padding: 8px 10px; text-align: center;
  font-weight: 600; font-size: 13px; white-space: nowrap;
}
td.cell > details > summary::-webkit-details-marker { display: none; }
td.cell .unscored { display: block; font-size: 11px; color: var(--muted); white-space: nowrap; }
td.cell > details > summary:hover { text-decoration: underline; }
td.cell > details > summary:focus-visible, details.cell[open] > summary {
  outline: 3px solid var(--accent); outline-offset: -3px;
}

/* an open cell: a panel on the right */
details.cell > .panel {
  position: fixed; top: 12px; right: 12px; max-height: calc(100vh - 24px);
  width: min(780px, calc(100% - 24px));
  overflow: auto; z-index: 10; background: #fff; color: var(--ink); border: 1px solid var(--line);
  border-radius: 10px; box-shadow: 0 12px 40px rgba(31, 35, 40, .25); padding: 0 18px 18px;
  text-align: left; font-weight: 400;
}
.panel-head {
  position: sticky; top: 0; z-index: 1; background: #fff; display: flex; justify-content: space-between;
  align-items: center; gap: 12px; padding: 14px 0 10px; border-bottom: 1px solid var(--line);
  margin-bottom: 12px;
}
.close {
  font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px;
  background: var(--soft); cursor: pointer;
}
.conversation .msg { margin: 4px 0; white-space: pre-wrap; }
.role {
  display: inline-block; min-width: 64px; color: var(--muted); font-size: 12px; text-transform: uppercase;
}
.reason { padding: 8px 12px; border-radius: 6px; border: 1px solid currentColor; }
.step {
  border: 1px solid var(--line); border-left-width: 5px; border-radius: 6px;
  padding: 10px 12px; margin: 12px 0;
}
.step.pass, .step.fail { background: #fff; color: var(--ink); }
.step.pass { border-left-color: var(--pass-ink); }
.step.fail { border-left-color: var(--fail-ink); }
.step.unreached { border-left-color: var(--line); color: var(--muted); }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.cols > div { min-width: 0; }
ol.calls { margin: 0; padding-left: 20px; }
ol.calls > li { margin-bottom: 6px; }
ul.checks { margin: 2px 0; padding-left: 18px; }
li.failing { color: var(--fail-ink); font-weight: 600; background: var(--fail); border-radius: 4px; }
code.name.failing { background: var(--fail); color: var(--fail-ink); }
.mark { color: var(--fail-ink); }
.flag { display: inline-block; margin-left: 6px; font-size: 12px; padding: 0 6px; border-radius: 4px; }
.flag.bad { background: var(--fail); color: var(--fail-ink); }
ul.schema-errors { margin: 2px 0; color: var(--fail-ink); font-size: 12px; }
table.mismatches { width: 100%; margin-top: 10px; font-size: 13px; background: var(--fail); }
table.mismatches caption { text-align: left; font-weight: 600; color: var(--fail-ink); padding: 4px 0; }
table.mismatches th, table.mismatches td {
  text-align: left; vertical-align: top; padding: 4px 8px; border: 1px solid #f5c2c0;
  overflow-wrap: break-word;
}
table.mismatches th { white-space: nowrap; }
table.plain th, table.plain td { padding: 2px 8px; border-bottom: 1px solid var(--line); text-align: left; }
table.plain { font-size: 12px; }
details.api { margin-top: 12px; }
details.api > summary { cursor: pointer; color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }

/* the plot: each point's interval, labels with a halo, leader lines to moved labels */
svg .ci { stroke: #0550ae; stroke-width: 1.5; fill: none; }
svg .leader { stroke: var(--muted); stroke-width: 1; }
svg .label { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }

/* sortable leaderboard headings: buttons, with an arrow on the sorted one */
.board thead th button.sort {
  font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0; margin: 0;
  cursor: default; text-align: inherit;
}
.js .board thead th button.sort { cursor: pointer; }
.js .board thead th button.sort:hover { color: var(--accent); }
.board thead th button.sort:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.arrow { display: inline-block; min-width: 1.1em; font-size: 10px; color: var(--accent); text-align: center; }
.arrow:empty::after { content: "↕"; color: #afb8c1; }
.board td .ci { display: block; font-size: 11px; line-height: 1.2; color: var(--muted); font-weight: 400; }
.groups .whisker {
  position: absolute; bottom: 2px; height: 6px; border-left: 1.5px solid #0550ae;
  border-right: 1.5px solid #0550ae;
}
.groups .whisker::before {
  content: ""; position: absolute; left: 0; right: 0; top: 2.25px; border-top: 1.5px solid #0550ae;
}

/* the case filters and folded groups */
.filters {
  display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; margin: 8px 0 12px; padding: 8px 12px;
  background: var(--soft); border: 1px solid var(--line); border-radius: 8px;
}
.filters[hidden], .matrix [hidden] { display: none; }
.filters input[type="search"] { width: 24ch; }
.filters input, .filters select, .filters button { font: inherit; }
.filters button {
  padding: 1px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; cursor: pointer;
}
#filter-count { margin-left: auto; color: var(--muted); font-variant-numeric: tabular-nums; }
details.fold > summary { cursor: pointer; }
details.fold > summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.group-count { margin-left: 6px; font-weight: 400; font-size: 12px; color: var(--muted); }
tbody.folded > tr.case { display: none; }
tbody:has(> tr.group details.fold:not([open])) > tr.case { display: none; }

/* a phone: the page's margins shrink, an open cell's expected and observed calls stack, long values
   wrap, and "Why it failed" becomes one block per mismatch with each value under its column's name */
details.cell > .panel code { overflow-wrap: anywhere; }
@media (max-width: 640px) {
  body { padding: 16px 12px 48px; }
  details.cell > .panel { top: 6px; right: 6px; width: calc(100% - 12px); max-height: calc(100vh - 12px);
    padding: 0 12px 12px; }
  .cols { grid-template-columns: 1fr; gap: 8px; }
  table.mismatches, table.mismatches tbody, table.mismatches tr, table.mismatches td { display: block; }
  table.mismatches thead { display: none; }
  table.mismatches tr { border-top: 1px solid #f5c2c0; padding: 4px 0; }
  table.mismatches td { border: 0; padding: 2px 8px; }
  table.mismatches td::before {
    content: attr(data-label); display: block; font-size: 11px; font-weight: 600; color: var(--fail-ink);
  }
}
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var ORDER = ["filter", "group", "q", "fold", "sort", "open"];
  var CELL = /^[A-Za-z0-9_.-]+$/;
  var state = {};
  var each = function (list, visit) { Array.prototype.forEach.call(list, visit); };
  var board = document.querySelector("table.leader");
  var matrix = document.querySelector("table.matrix");
  var bar = document.getElementById("filters");
  var controls = {
    failures: document.getElementById("filter-failures"),
    disagree: document.getElementById("filter-disagree"),
    group: document.getElementById("filter-group"),
    q: document.getElementById("filter-q"),
    count: document.getElementById("filter-count")
  };

  /* The address: #key=value&key=value, keys in ORDER; #open=<cell> alone still opens a cell. */
  function readHash() {
    var found = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 1) return;
      try { found[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1)); } catch (error) { /* skip */ }
    });
    return found;
  }
  function writeHash() {
    var parts = [];
    ORDER.forEach(function (key) {
      if (state[key]) parts.push(key + "=" + encodeURIComponent(state[key]).replace(/%2C/g, ","));
    });
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash === location.hash) return;
    try { history.replaceState(null, "", hash || location.pathname + location.search); } catch (error) {
      /* file: URLs may refuse */
    }
  }
  function list(value) { return value ? value.split(",").filter(Boolean) : []; }

  /* --- the leaderboard: sort by a column, numbers as numbers, nothing-to-sort always last --- */
  function sortBoard() {
    if (!board) return;
    var spec = state.sort || board.getAttribute("data-default-sort");
    var descending = spec.charAt(0) === "-";
    var key = descending ? spec.slice(1) : spec;
    var heads = board.tHead.rows[0].cells;
    var column = -1;
    var text = false;
    each(heads, function (head, index) {
      var button = head.querySelector("button.sort");
      if (button && button.getAttribute("data-key") === key) {
        column = index;
        text = button.hasAttribute("data-text");
      }
    });
    if (column < 0) return;
    each(heads, function (head, index) {
      var arrow = head.querySelector(".arrow");
      if (index === column) {
        head.setAttribute("aria-sort", descending ? "descending" : "ascending");
      } else {
        head.removeAttribute("aria-sort");
      }
      if (arrow) arrow.textContent = index === column ? (descending ? "\u25BC" : "\u25B2") : "";
    });
    var body = board.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function value(row) {
      var raw = row.cells[column].getAttribute("data-sort");
      if (raw === null || raw === "") return null;
      return text ? raw.toLowerCase() : Number(raw);
    }
    rows.sort(function (a, b) {
      var x = value(a);
      var y = value(b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) {
        return (x < y ? -1 : 1) * (descending ? -1 : 1);
      }
      return Number(a.getAttribute("data-rank")) - Number(b.getAttribute("data-rank"));
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  if (board) {
    board.tHead.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest("button.sort") : null;
      if (!button) return;
      var key = button.getAttribute("data-key");
      var current = state.sort || board.getAttribute("data-default-sort");
      var next;
      if (current === key) next = "-" + key;
      else if (current === "-" + key) next = key;
      else next = button.getAttribute("data-first") === "desc" ? "-" + key : key;
      state.sort = next === board.getAttribute("data-default-sort") ? "" : next;
      writeHash();
      sortBoard();
    });
  }

  /* --- the matrix: filters, folded groups, the open cell --- */
  function openCell() {
    return CELL.test(state.open || "") ? document.getElementById(state.open) : null;
  }
  function applyMatrix() {
    if (!matrix) return;
    var flags = list(state.filter);
    var failures = flags.indexOf("failures") >= 0;
    var disagree = flags.indexOf("disagree") >= 0;
    var group = state.group || "";
    var query = (state.q || "").trim().toLowerCase();
    var folded = list(state.fold);
    var filtering = failures || disagree || group !== "" || query !== "";
    var open = openCell();
    var shown = 0;
    var total = 0;
    each(matrix.tBodies, function (body) {
      var key = body.getAttribute("data-group");
      var fold = body.querySelector("details.fold");
      var isFolded = folded.indexOf(key) >= 0;
      if (fold && fold.open === isFolded) fold.open = !isFolded;
      body.classList.toggle("folded", isFolded);
      var matched = 0;
      var rows = body.querySelectorAll("tr.case");
      each(rows, function (row) {
        var match = (group === "" || group === key) &&
          (!failures || row.getAttribute("data-fail") === "1") &&
          (!disagree || row.getAttribute("data-disagree") === "1") &&
          (query === "" || row.getAttribute("data-text").toLowerCase().indexOf(query) >= 0);
        var pinned = open !== null && row.contains(open);
        if (match) matched += 1;
        row.hidden = !(match || pinned) || (isFolded && !pinned);
      });
      shown += matched;
      total += rows.length;
      body.hidden = matched === 0 && !(open !== null && body.contains(open));
      var count = body.querySelector(".group-count");
      if (count) {
        var all = rows.length + " case" + (rows.length === 1 ? "" : "s");
        count.textContent = filtering ? matched + " of " + all : all;
      }
    });
    if (controls.count) controls.count.textContent = shown + " of " + total + " cases shown";
  }
  function syncControls() {
    var flags = list(state.filter);
    if (controls.failures) controls.failures.checked = flags.indexOf("failures") >= 0;
    if (controls.disagree) controls.disagree.checked = flags.indexOf("disagree") >= 0;
    if (controls.group) {
      controls.group.value = state.group || "";
      if (controls.group.value !== (state.group || "")) { controls.group.value = ""; state.group = ""; }
    }
    if (controls.q && controls.q.value !== (state.q || "")) controls.q.value = state.q || "";
  }
  function readControls() {
    var flags = [];
    if (controls.failures && controls.failures.checked) flags.push("failures");
    if (controls.disagree && controls.disagree.checked) flags.push("disagree");
    state.filter = flags.join(",");
    state.group = controls.group ? controls.group.value : "";
    state.q = controls.q ? controls.q.value : "";
    writeHash();
    applyMatrix();
  }
  if (bar) {
    bar.hidden = false;
    bar.addEventListener("change", readControls);
    bar.addEventListener("input", readControls);
    var clear = document.getElementById("filter-clear");
    if (clear) {
      clear.addEventListener("click", function () {
        state.filter = "";
        state.group = "";
        state.q = "";
        syncControls();
        writeHash();
        applyMatrix();
      });
    }
  }
  function showOpen() {
    var cell = openCell();
    if (!cell || cell.tagName !== "DETAILS") return;
    var body = cell.closest("tbody");
    var key = body ? body.getAttribute("data-group") : null;
    if (key && list(state.fold).indexOf(key) >= 0) {
      state.fold = list(state.fold).filter(function (other) { return other !== key; }).join(",");
    }
    applyMatrix();
    if (!cell.open) cell.open = true;
    cell.scrollIntoView({ block: "center" });
  }
  function openCells() { return document.querySelectorAll("details.cell[open]"); }
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (!target.classList) return;
    if (target.classList.contains("fold")) {
      var key = target.getAttribute("data-group");
      var folded = list(state.fold).filter(function (other) { return other !== key; });
      if (!target.open) folded.push(key);
      var keys = [];
      each(document.querySelectorAll("details.fold"), function (fold) {
        var name = fold.getAttribute("data-group");
        if (folded.indexOf(name) >= 0) keys.push(name);
      });
      if (keys.join(",") === (state.fold || "")) return;
      state.fold = keys.join(",");
      writeHash();
      applyMatrix();
      return;
    }
    if (!target.classList.contains("cell")) return;
    if (target.open) {
      each(openCells(), function (other) { if (other !== target) other.open = false; });
      state.open = target.id;
      writeHash();
    } else if (state.open === target.id) {
      state.open = "";
      writeHash();
      applyMatrix();
    }
  }, true);
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.close") : null;
    if (button) { button.closest("details").open = false; }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") each(openCells(), function (cell) { cell.open = false; });
  });
  /* Sorting needs this script: its arrows and the words that offer it come with it. */
  document.documentElement.classList.add("js");
  if (board) {
    each(board.querySelectorAll("button.sort"), function (button) {
      var arrow = document.createElement("span");
      arrow.className = "arrow";
      arrow.setAttribute("aria-hidden", "true");
      button.appendChild(arrow);
    });
    var hint = document.getElementById("sort-hint");
    if (hint) hint.textContent = " \u00B7 click a heading to sort by it, again to reverse";
  }
  function fromHash() {
    state = readHash();
    if (!CELL.test(state.open || "")) state.open = "";
    each(openCells(), function (cell) { if (cell.id !== state.open) cell.open = false; });
    syncControls();
    sortBoard();
    applyMatrix();
    showOpen();
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""


def _suite_changes_html(run: RunResult) -> str:
    if run.suite_changes is None:
        return ""
    from lobrec.reports.suite_changes import render_suite_changes_html

    return render_suite_changes_html(run.suite_changes) + "\n"


def _runs_to_record(run: RunResult) -> list[str]:
    """List items for runs 2..K of repeated models with cases to record."""
    return [
        f"<li><strong>{_esc(model.model)}</strong> run {number}: {'; '.join(parts)}</li>"
        for model, number, parts in runs_to_record(run, lambda case: f"<code>{_esc(case)}</code>")
    ]


def render_html(run: RunResult, suite: Suite) -> str:
    """The whole report as one HTML document; `suite` supplies the expected calls and checks."""
    title = f"{run.suite.name} {run.suite.version}"
    models = ranked(run)
    cases = max((len(model.cases) for model in models), default=len(suite.cases))
    again = rerecord(run)
    runs = _runs_to_record(run)
    rerecord_html = ""
    if again or runs:
        items = []
        for model, stale, unrecorded in again:
            found = []
            if stale:
                found.append("stale: " + ", ".join(f"<code>{_esc(case)}</code>" for case in stale))
            if unrecorded:
                found.append("unrecorded: " + ", ".join(f"<code>{_esc(case)}</code>" for case in unrecorded))
            items.append(f"<li><strong>{_esc(model)}</strong>: {'; '.join(found)}</li>")
        items.extend(runs)
        rerecord_html = (
            f'<section id="rerecord"><h2>Needs re-recording</h2><ul>{"".join(items)}</ul></section>'
        )
    mismatch_note = ""
    if (suite.name, suite.version) != (run.suite.name, run.suite.version):
        mismatch_note = (
            f'<p class="reason errored">These results are for {_esc(title)}, but the suite file given is '
            f"{_esc(suite.name)} {_esc(suite.version)}: expected calls may not match.</p>"
        )
    return "".join(
        [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>lobrec · {_esc(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n",
            f"<header><h1>Tool calling on {_esc(run.suite.name)} "
            f'<span class="version">{_esc(run.suite.version)}'
            "</span></h1>",
            f'<p class="sub">{counted(len(models), "model")} · {counted(cases, "case")} · '
            "a score is comparable only to another score on the same suite version</p>",
            f'<p class="sub provenance">{_esc(provenance(run))}</p>',
            f"{mismatch_note}</header>\n",
            _leaderboard_html(run),
            "\n",
            _plot_html(run),
            "\n",
            _groups_html(run),
            "\n",
            rerecord_html,
            _suite_changes_html(run),
            _matrix_html(run, suite),
            f"\n<footer>Made by lobrec {_esc(__version__)} · results format {run.results_format} · "
            "this file loads nothing from the network</footer>\n",
            f"<script>{_SCRIPT}</script>\n</body>\n</html>\n",
        ]
    )

"""The Markdown report: the leaderboard as a GitHub table, for a README or a pull-request comment.

Names from a results file are escaped for Markdown: a `|` would end a table cell, a newline would
end the row, and `*`, `_`, `<`, `[` and friends would format or link. Each is backslash-escaped
(CommonMark allows that for any ASCII punctuation) after `printable` has spelled out control
characters, so a name renders exactly as it was written. `$` is escaped too: GitHub reads
`$...$` as inline math, and costs are full of dollars. An `@name` or `#12` from outside would ping
that user or cross-reference that issue where the report is posted: `no_pings` stops both.

Every list is written in full (a results file may be read by nobody else): the failing and errored
cases per model, the cases to re-record, the unpriced calls counted. Nothing depends on the clock
or the machine, so the same results give the same bytes.
"""

from __future__ import annotations

import math
import re

from lobrec.core.compare import RATE_METRICS
from lobrec.core.metrics import COST_DECIMALS
from lobrec.core.results import ModelResult, Rate, RunResult
from lobrec.core.words import counted
from lobrec.reports._format import (
    DASH,
    KEY,
    cost,
    count_line,
    group_cell,
    group_label,
    model_notes,
    ordered_groups,
    printable,
    provenance,
    ranked,
    rate_counts,
    rerecord,
)
from lobrec.reports.export import case_outcome
from lobrec.reports.insight import (
    ROUTING_HEADER,
    failure_rows,
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
    run_cases,
    runs_to_record,
    spread_rows,
)

_SPECIAL = frozenset("\\`*_[]<>|~#!&$")
spelled = printable
"""`printable`, which spells out lone surrogates too (UTF-8 cannot hold them, so one would stop the
report from being written); the name `summary.py` imports."""


def md(text: str) -> str:
    """`text` as literal Markdown inline text, safe inside a table cell, that pings nobody."""
    return no_pings("".join("\\" + char if char in _SPECIAL else char for char in printable(text)))


_REFERENCE = re.compile(r"((?<!\w)@|(?<!&)#)(?=\w)")


def no_pings(text: str) -> str:
    """Escaped `text` with a zero-width space (`&#8203;`) after every `@` or `#` before a word (an
    `@` right after a letter or digit, as in `a@b.c` or `pass@3`, is no mention and stays):
    GitHub links `@name` (a mention, which notifies) and `#12` (a cross-reference) on the rendered
    text, after backslash escapes are gone, so only a character between them stops it (as Renovate
    does in the pull requests it writes). The page shows `@name` as it was. A `#` right after `&`
    begins an HTML character reference (`&#x27;`), never a reference to an issue."""
    return _REFERENCE.sub(lambda found: found.group(1) + "&#8203;", text)


def table(header: list[str], rows: list[list[str]], *, left: tuple[int, ...] = (0,)) -> str:
    """A GitHub table; cells must already be escaped. Columns not in `left` (numbers) align right."""
    align = [":---" if index in left else "---:" for index in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def leaderboard(run: RunResult) -> str:
    """The leaderboard table alone."""
    columns = with_tier(leaderboard_columns(run), run)
    header = [md(column.label) for column in columns]
    rows = [[md(column.value(model)) for column in columns] for model in ranked(run)]
    return table(header, rows)


def groups(run: RunResult) -> str:
    """Overall rate per group (rows) and model (columns)."""
    models = ranked(run)
    header = ["Group", *(md(model.model) for model in models)]
    rows = [
        [md(group_label(group)), *(md(group_cell(model, group)) for model in models)]
        for group in ordered_groups(name for model in models for name in model.groups)
    ]
    return table(header, rows)


def interval(ci95: tuple[float, float] | None) -> str:
    """A 95% interval, its ends with one decimal like the rates joined by an en dash; else a dash."""
    return DASH if ci95 is None else f"{ci95[0]:.1f}–{ci95[1]:.1f}%"


def interval_cell(model: ModelResult, metric: str) -> str:
    """A rate's 95% interval with the counts behind it, `(8/11)`; a dash when it has none."""
    rate: Rate = getattr(model.metrics, metric)
    if not model.has_scores or rate.ci95 is None:
        return DASH
    return f"{interval(rate.ci95)} ({rate_counts(rate)})"


def intervals(run: RunResult) -> str:
    """Each rate's 95% interval (Wilson) per model, in the leaderboard's order."""
    header = ["Model", *(md(label + (" ↓" if lower else "")) for _, label, lower in RATE_METRICS)]
    rows = [
        [md(model.model), *(md(interval_cell(model, metric)) for metric, _, _ in RATE_METRICS)]
        for model in ranked(run)
    ]
    return table(header, rows)


def priced_cost_note(model: ModelResult) -> list[str]:
    """When unpriced calls hide a model's cost: what its scored cases' priced calls cost.

    The leaderboard's dash stays (no true total is known); this gives the figure that is known, a
    lower bound, and how many calls were unpriced.
    """
    unpriced = len(model.metrics.unpriced_calls)
    if model.metrics.cost_per_100_cases_usd is not None or not model.has_scores or not unpriced:
        return []
    calls = "call" if unpriced == 1 else "calls"
    priced = [
        call.cost_usd
        for cases in run_cases(model)
        for case in cases
        if case.status == "scored"
        for call in case.api_calls
        if call.cost_usd is not None and math.isfinite(call.cost_usd)
    ]
    if not priced:
        return [f"cost not shown: {unpriced} unpriced {calls}, none of the scored cases' calls priced"]
    per_100 = round(math.fsum(priced) / model.counts.scored * 100, COST_DECIMALS)
    return [
        f"cost not shown: {unpriced} unpriced {calls}; the scored cases' {len(priced)} priced "
        f"{'call' if len(priced) == 1 else 'calls'} cost {cost(per_100)} per 100 cases (a lower bound)"
    ]


def failing(run: RunResult) -> str:
    """Per model with any, every failing and every errored case id, in the suite's order."""
    lines = []
    for model in ranked(run):
        if model.repeats is not None:
            found = _failing_over_runs(model)
        else:
            found = []
            for label, outcome in (("failing", "failed"), ("errored", "errored")):
                ids = [case.id for case in model.cases if case_outcome(case) == outcome]
                if ids:
                    found.append(f"{label} ({len(ids)}): " + ", ".join(md(case) for case in ids))
        if found:
            lines.append(f"- **{md(model.model)}**: {'; '.join(found)}")
    return "\n".join(lines)


def _failing_over_runs(model: ModelResult) -> list[str]:
    """A repeated model's cases failed in every run they were scored in, and errored in any run
    (the flaky ones are listed under "Repeated runs")."""
    assert model.repeats is not None
    found = []
    never = [case.id for case in model.repeats.cases if case.scored and not case.passes]
    errored = [case.id for case in model.repeats.cases if "errored" in case.outcomes]
    for label, ids in (("failing in every run", never), ("errored in some run", errored)):
        if ids:
            found.append(f"{label} ({len(ids)}): " + ", ".join(md(case) for case in ids))
    return found


def repeated_runs(run: RunResult) -> str:
    """Per repeated model: each rate per run with its mean, min, max and sample sd; pass^K and
    pass@K with their intervals; every flaky case."""
    parts = []
    for model in ranked(run):
        repeats = model.repeats
        if repeats is None:
            continue
        k = repeats.runs
        header = ["Metric", *(f"Run {n}" for n in range(1, k + 1)), "Mean", "Min", "Max", "SD"]
        rows = [
            [md(label), *map(md, per_run), *map(md, summary)]
            for label, per_run, summary in spread_rows(model)
        ]
        flaky = ", ".join(md(case) for case in repeats.flaky) or "none"
        parts.extend(
            [
                f"**{md(model.model)}**, {k} runs: "
                + "; ".join(md(line) for line in repeats_lines(model)[1:]),
                table(header, rows),
                f"Flaky ({len(repeats.flaky)}): {flaky}",
            ]
        )
    return "\n\n".join(parts)


def render_markdown(run: RunResult) -> str:
    """The whole report: suite line, leaderboard, counts and notes, intervals, groups, failing cases,
    cases to re-record."""
    models = ranked(run)
    cases = max((len(model.cases) for model in models), default=0)
    parts = [
        f"### Tool calling on {md(run.suite.name)} {md(run.suite.version)}",
        f"Suite **{md(run.suite.name)}** version {md(run.suite.version)}, {counted(cases, 'case')}, "
        f"{counted(len(models), 'model')}. "
        "A score is comparable only to another score on the same suite version. " + md(provenance(run)),
        leaderboard(run),
        md(KEY) + (f"  \n{md(REPEATS_KEY)}" if any_repeats(run) else ""),
        "\n".join(
            f"- **{md(model.model)}**: "
            + "; ".join(
                [
                    md(count_line(model)),
                    *model_notes(model, md),
                    *map(md, quirks_note(model)),
                    *map(md, priced_cost_note(model)),
                ]
            )
            for model in models
        ),
        "#### 95% intervals",
        "Each rate's Wilson 95% interval, with the cases or calls it counts.",
        intervals(run),
        "#### By group",
        "Overall rate per group, with the cases passed out of those scored.",
        groups(run),
    ]
    if any_repeats(run):
        parts.extend(
            [
                "#### Repeated runs",
                "Each rate per run, and its mean, min, max and sample standard deviation over the runs; "
                "pass^K counts the cases passed in every run, pass@K those passed in at least one, both "
                "of the cases scored in every run.",
                repeated_runs(run),
            ]
        )
    parts.extend(insight_sections(run))
    failed = failing(run)
    if failed:
        parts.extend(["#### Failing cases", failed])
    again = rerecord(run)
    runs = _runs_to_record(run)
    if again or runs:
        parts.append("#### Needs re-recording")
        lines = []
        for model, stale, unrecorded in again:
            found = []
            if stale:
                found.append("stale: " + ", ".join(md(case) for case in stale))
            if unrecorded:
                found.append("unrecorded: " + ", ".join(md(case) for case in unrecorded))
            lines.append(f"- **{md(model)}**: {'; '.join(found)}")
        parts.append("\n".join([*lines, *runs]))
    if run.suite_changes is not None:
        from lobrec.reports.suite_changes import render_suite_changes_markdown

        parts.append(render_suite_changes_markdown(run.suite_changes))
    return "\n\n".join(part for part in parts if part) + "\n"


def insight_sections(run: RunResult) -> list[str]:
    """Failure kinds per model, the resolution and tiers, and each routed model's routing."""
    parts = []
    header, rows = failure_rows(run)
    if rows:
        parts.extend(
            [
                "#### Failure kinds",
                'Failed steps of scored cases by kind (docs/metrics.md, "Failure kinds"); '
                "repeats count every run.",
                table([md(cell) for cell in header], [[md(cell) for cell in row] for row in rows]),
            ]
        )
    line = resolution_line(run)
    if line:
        parts.extend(
            [
                "#### Tiers and resolution",
                md("Models sharing a tier cannot be told apart by the paired test (Holm-corrected). " + line),
            ]
        )
    for model in routed(run):
        parts.append(f"#### Routing of {md(model.model)}")
        for heading, figures in routing_rows(model):
            parts.append(md(heading[0].upper() + heading[1:]))
            parts.append(
                table([md(cell) for cell in ROUTING_HEADER], [[md(cell) for cell in row] for row in figures])
            )
        parts.append("\n".join(f"- {md(note)}" for note in routing_notes(model)))
    return parts


def _runs_to_record(run: RunResult) -> list[str]:
    """One list item per run 2..K of a repeated model with cases to record."""
    return [
        f"- **{md(model.model)}** run {number}: {'; '.join(parts)}"
        for model, number, parts in runs_to_record(run, md)
    ]

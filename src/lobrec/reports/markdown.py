"""The Markdown report: the leaderboard as a GitHub table, for a README or a pull-request comment.

Names from a results file are escaped for Markdown: a `|` would end a table cell, a newline would
end the row, and `*`, `_`, `<`, `[` and friends would format or link. Each is backslash-escaped
(CommonMark allows that for any ASCII punctuation) after `printable` has spelled out control
characters, so a name renders exactly as it was written. `$` is escaped too: GitHub reads
`$...$` as inline math, and costs are full of dollars.
"""

from __future__ import annotations

from lobrec.core.results import RunResult
from lobrec.reports._format import (
    KEY,
    LEADERBOARD,
    count_line,
    group_cell,
    group_label,
    model_notes,
    ordered_groups,
    printable,
    ranked,
    rerecord,
)
from lobrec.reports.quirks import quirks_note

_SPECIAL = frozenset("\\`*_[]<>|~#!&$")


def md(text: str) -> str:
    """`text` as literal Markdown inline text, safe inside a table cell."""
    return "".join("\\" + char if char in _SPECIAL else char for char in printable(text))


def table(header: list[str], rows: list[list[str]], *, left: tuple[int, ...] = (0,)) -> str:
    """A GitHub table; cells must already be escaped. Columns not in `left` (numbers) align right."""
    align = [":---" if index in left else "---:" for index in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def leaderboard(run: RunResult) -> str:
    """The leaderboard table alone."""
    header = [md(column.label) for column in LEADERBOARD]
    rows = [[md(column.value(model)) for column in LEADERBOARD] for model in ranked(run)]
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


def render_markdown(run: RunResult) -> str:
    """The whole report: suite line, leaderboard, counts and notes, groups, cases to re-record."""
    models = ranked(run)
    cases = max((model.counts.cases for model in models), default=0)
    parts = [
        f"### Tool calling on {md(run.suite.name)} {md(run.suite.version)}",
        f"Suite **{md(run.suite.name)}** version {md(run.suite.version)}, {cases} cases, "
        f"{len(models)} model{'s' if len(models) != 1 else ''}. "
        "A score is comparable only to another score on the same suite version.",
        leaderboard(run),
        md(KEY),
        "\n".join(
            f"- **{md(model.model)}**: "
            + "; ".join([md(count_line(model)), *model_notes(model, md), *map(md, quirks_note(model))])
            for model in models
        ),
        "#### By group",
        "Overall rate per group, with the cases passed out of those scored.",
        groups(run),
    ]
    again = rerecord(run)
    if again:
        parts.append("#### Needs re-recording")
        lines = []
        for model, stale, unrecorded in again:
            found = []
            if stale:
                found.append("stale: " + ", ".join(md(case) for case in stale))
            if unrecorded:
                found.append("unrecorded: " + ", ".join(md(case) for case in unrecorded))
            lines.append(f"- **{md(model)}**: {'; '.join(found)}")
        parts.append("\n".join(lines))
    if run.suite_changes is not None:
        from lobrec.reports.suite_changes import render_suite_changes_markdown

        parts.append(render_suite_changes_markdown(run.suite_changes))
    return "\n\n".join(part for part in parts if part) + "\n"

"""A compact Markdown summary for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`).

The full Markdown report is too long for a job page; this keeps what a reviewer looks at first:
one leaderboard row per model with its overall rate and 95% interval, then per model the cases
that failed or errored, folded in a `<details>` so the page stays short. Lists are never cut.

Text inside `<summary>` is in an HTML block, where Markdown backslash escapes do not apply, so it
is HTML-escaped; the lists below it are Markdown again (a blank line ends the HTML block) and are
escaped like the Markdown report.
"""

from __future__ import annotations

import html

from lobrec.core.results import CaseResult, ModelResult, RunResult
from lobrec.core.suite import Suite
from lobrec.reports._format import group_label, percent, provenance, ranked, rate_counts
from lobrec.reports.export import case_group, case_outcome, step_reasons
from lobrec.reports.markdown import interval, md, spelled, table


def _overall(model: ModelResult) -> list[str]:
    rate = model.metrics.overall
    shown = rate if model.has_scores else None
    return [
        percent(shown.rate if shown else None),
        interval(shown.ci95 if shown else None),
        rate_counts(rate) if model.has_scores else "—",
    ]


def _row(model: ModelResult) -> list[str]:
    counts = model.counts
    cells = [
        model.model,
        *_overall(model),
        f"{counts.scored}/{counts.cases}",
        str(sum(case_outcome(case) == "failed" for case in model.cases)),
        str(counts.errored),
        str(counts.stale + counts.unrecorded),
    ]
    return [md(cell) for cell in cells]


def _why(case: CaseResult) -> str:
    if case.status == "errored":
        return case.reason or "errored"
    for step in sorted(case.steps, key=lambda step: step.index):
        if not step.passed:
            return f"step {step.index + 1}: " + ("; ".join(step_reasons(step)) or "failed")
    return "no step was judged"


def _details(model: ModelResult, suite: Suite) -> str | None:
    failing = [case for case in model.cases if case_outcome(case) == "failed"]
    errored = [case for case in model.cases if case.status == "errored"]
    if not failing and not errored:
        return None
    heading = ", ".join(
        f"{len(cases)} {label}" for cases, label in ((failing, "failing"), (errored, "errored")) if cases
    )
    items = [
        f"- {'errored: ' if case.status == 'errored' else ''}{md(case.id)} "
        f"({md(group_label(case_group(suite, case)))}): {md(_why(case))}"
        for case in (*failing, *errored)
    ]
    summary = f"<b>{html.escape(spelled(model.model))}</b>: {heading}"
    return f"<details><summary>{summary}</summary>\n\n" + "\n".join(items) + "\n\n</details>"


def to_summary(run: RunResult, suite: Suite) -> str:
    """The summary: a heading, the leaderboard, then a folded list of failing cases per model."""
    models = ranked(run)
    header = ["Model", "Overall", "95% interval", "Passed", "Scored", "Failing", "Errored", "Stale"]
    parts = [
        f"### lobrec: {md(run.suite.name)} {md(run.suite.version)}",
        table(header, [_row(model) for model in models]),
        "Overall: the share of scored cases whose every step passed; the interval is Wilson's. "
        "Stale counts stale and unrecorded cases.",
        md(provenance(run)),
    ]
    parts.extend(block for model in models if (block := _details(model, suite)) is not None)
    return "\n\n".join(parts) + "\n"

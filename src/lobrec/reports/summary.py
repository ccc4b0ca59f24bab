"""A compact Markdown summary for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`).

The full Markdown report is too long for a job page; this keeps what a reviewer looks at first:
one leaderboard row per model with its overall rate and 95% interval, then per model the cases
that failed or errored, folded in a `<details>` so the page stays short. Lists are never cut. A
model recorded K times counts every run in every column, and lists each case that failed or
errored in any run with every run's verdict.

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
from lobrec.reports.insight import kinds_text
from lobrec.reports.markdown import interval, md, no_pings, spelled, table
from lobrec.reports.repeats import any_repeats, run_cases, run_verdicts, runs_by_case


def _overall(model: ModelResult) -> list[str]:
    rate = model.metrics.overall
    shown = rate if model.has_scores else None
    return [
        percent(shown.rate if shown else None),
        interval(shown.ci95 if shown else None),
        rate_counts(rate) if model.has_scores else "—",
    ]


def _row(model: ModelResult) -> list[str]:
    """Passed, Scored, Failing, Errored and Stale all count every run of a repeated model, so
    Passed + Failing = Scored and Scored + Errored + Stale = the cases of every run."""
    counts = model.counts
    cells = [
        model.model,
        *_overall(model),
        f"{counts.scored}/{counts.cases}",
        str(sum(case_outcome(case) == "failed" for cases in run_cases(model) for case in cases)),
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


def _repeated_details(model: ModelResult, suite: Suite) -> str | None:
    """A repeated model's cases that failed or errored in any run, each with every run's verdict
    and the first such run's reason."""
    items = []
    counted = {"failing": 0, "errored": 0}
    for case_id, runs in runs_by_case(model):
        outcomes = ["unrecorded" if case is None else case_outcome(case) for case in runs]
        worst = "failed" if "failed" in outcomes else "errored" if "errored" in outcomes else None
        if worst is None:
            continue
        counted["failing" if worst == "failed" else "errored"] += 1
        first = next(case for case in runs if case is not None and case_outcome(case) == worst)
        items.append(
            f"- {'errored: ' if worst == 'errored' else ''}{md(case_id)} "
            f"({md(group_label(case_group(suite, first)))}): {md(run_verdicts(outcomes))}; {md(_why(first))}"
        )
    if not items:
        return None
    heading = ", ".join(f"{n} {label} in some run" for label, n in counted.items() if n)
    summary = f"<b>{no_pings(html.escape(spelled(model.model)))}</b>: {heading}{_kinds(model)}"
    return f"<details><summary>{summary}</summary>\n\n" + "\n".join(items) + "\n\n</details>"


def _details(model: ModelResult, suite: Suite) -> str | None:
    if model.repeats is not None:
        return _repeated_details(model, suite)
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
    summary = f"<b>{no_pings(html.escape(spelled(model.model)))}</b>: {heading}{_kinds(model)}"
    return f"<details><summary>{summary}</summary>\n\n" + "\n".join(items) + "\n\n</details>"


def _kinds(model: ModelResult) -> str:
    """The model's failed steps by kind, for its `<summary>` line (every run's, with repeats)."""
    return f"; {html.escape(kinds_text(model))}" if model.failures else ""


def to_summary(run: RunResult, suite: Suite) -> str:
    """The summary: a heading, the leaderboard, then a folded list of failing cases per model."""
    models = ranked(run)
    header = ["Model", "Overall", "95% interval", "Passed", "Scored", "Failing", "Errored", "Stale"]
    parts = [
        f"### lobrec: {md(run.suite.name)} {md(run.suite.version)}",
        table(header, [_row(model) for model in models]),
        "Overall: the share of scored cases whose every step passed; the interval is Wilson's. "
        "Stale counts stale and unrecorded cases."
        + (
            " With repeated runs, Overall is the mean over runs and every count adds up the cases "
            "of every run."
            if any_repeats(run)
            else ""
        ),
        md(provenance(run)),
    ]
    parts.extend(block for model in models if (block := _details(model, suite)) is not None)
    return "\n\n".join(parts) + "\n"

"""A compact Markdown summary for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`).

The full Markdown report is too long for a job page; this keeps what a reviewer looks at first:
the run's verdict with each failed gate in one line (given by the CLI once the gates are checked),
one leaderboard row per model with its overall rate and 95% interval, then per model the cases
that failed or errored, folded in a `<details>` so the page stays short. Lists are never cut. A
model recorded K times counts every run in every column, and lists each case that failed or
errored in any run with every run's verdict.

Text inside `<summary>` is in an HTML block, where Markdown backslash escapes do not apply, so the
block is a template (`templates/_summary_details.html.j2`) rendered with the HTML report's
autoescaping; the lists below it are Markdown again (a blank line ends the HTML block) and are
escaped like the Markdown report.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from lobrec.core.metrics.repeats import CaseVerdict, case_verdict, run_outcome
from lobrec.core.metrics.results import CaseResult, RunResult
from lobrec.core.suite.format import Suite
from lobrec.reports._format import group_label, percent, rate_counts
from lobrec.reports.caseview import CaseOverRuns, ModelCases, cases_view
from lobrec.reports.export import step_reasons
from lobrec.reports.html_page import render_template
from lobrec.reports.markdown import interval
from lobrec.reports.markdown_syntax import md, table
from lobrec.reports.repeats import run_verdicts
from lobrec.reports.view import ModelView, ReportView, report_view, verdict_labels


def _row(view: ReportView, model: ModelView, cases: ModelCases) -> list[str]:
    """Passed, Scored, Failing, Errored and Stale all count every run of a repeated model, so
    Passed + Failing = Scored and Scored + Errored + Stale = the cases of every run."""
    overall = model.cell(view.headings, "overall")
    cells = [
        model.name,
        percent(overall.rate.rate if overall.rate else None),  # the mean over runs, no spread
        interval(overall.rate.ci95 if overall.rate else None),
        rate_counts(overall.rate) if overall.rate else "—",
        model.cell(view.headings, "scored").text,
        str(sum(outcome == "failed" for case in cases.cases for outcome in case.outcomes)),
        model.cell(view.headings, "errored").text,
        model.cell(view.headings, "stale").text,
    ]
    return [md(cell) for cell in cells]


def _why(case: CaseResult) -> str:
    if case.status == "errored":
        return case.reason or "errored"
    for step in sorted(case.steps, key=lambda step: step.index):
        if not step.passed:
            return f"step {step.index + 1}: " + ("; ".join(step_reasons(step)) or "failed")
    return "no step was judged"


_LISTED: tuple[CaseVerdict, ...] = ("fail", "flaky", "errored")
"""The verdicts a case is listed for, in this order for a model recorded once."""


def _item(entry: CaseOverRuns) -> str | None:
    """A case whose verdict is fail, flaky or errored as a list item: why, from the first run that
    failed (errored, for an errored case), after every run's verdict with repeats; None otherwise."""
    verdict = case_verdict(entry.outcomes)
    if verdict not in _LISTED:
        return None
    worst = "errored" if verdict == "errored" else "failed"
    first = next(case for _, case in entry.judged if run_outcome(case) == worst)
    why = md(_why(first))
    if entry.repeated:  # a flaky case's run verdicts start with `flaky (passed 1 of 3 scored runs)`
        why = f"{md(run_verdicts(entry.outcomes))}; {why}"
    label = "errored: " if verdict == "errored" else ""
    return f"- {label}{md(entry.id)} ({md(group_label(entry.group))}): {why}"


def _details(model: ModelView, cases: ModelCases) -> str | None:
    """The model's cases whose verdict is fail, flaky or errored in a `<details>` block: by verdict
    for a model recorded once, every case in order with repeats."""
    found = _listed(cases)
    if not found:
        return None
    return render_template(
        "_summary_details.html.j2",
        model=model.name,
        heading=_details_heading(found, cases.repeated),
        kinds=model.failure_kinds or "",  # every run's, with repeats
        items=Markup("\n".join(item for _, item in found)),  # Markdown, escaped by `md`
    )


def _listed(cases: ModelCases) -> list[tuple[CaseVerdict, str]]:
    """Each listed case's verdict and list item: grouped by verdict (`_LISTED`'s order, stable) for
    a model recorded once, in case order with repeats."""
    found = [(case_verdict(entry.outcomes), item) for entry in cases.cases if (item := _item(entry))]
    if not cases.repeated:
        found.sort(key=lambda pair: _LISTED.index(pair[0]))
    return found


def _details_heading(found: Sequence[tuple[CaseVerdict, str]], repeated: bool) -> str:
    """How many cases are listed per verdict, e.g. `2 failing, 1 errored`; a verdict with none is left out."""
    labels = verdict_labels(repeated)
    tally = {verdict: sum(said == verdict for said, _ in found) for verdict in _LISTED}
    return ", ".join(f"{n} {labels[verdict]}" for verdict, n in tally.items() if n)


def _verdict(view: ReportView, failed: Sequence[str] | None) -> list[str]:
    """The heading, with the run's verdict when the gates are known (`lobrec passed: ...`), then each
    failed gate in one line."""
    suite = f"{md(view.suite_name)} {md(view.suite_version)}"
    if failed is None:
        return [f"### lobrec: {suite}"]
    if not failed:
        return [f"### lobrec passed: {suite}", "Every gate passed."]
    gates = "\n".join(f"- gate failed: {md(line)}" for line in failed)
    return [f"### lobrec failed: {suite}", gates]


def to_summary(run: RunResult, suite: Suite, failed: Sequence[str] | None = None) -> str:
    """The summary: a heading with the verdict and each failed gate (`failed`: their lines, empty
    when the run passed; None when no gate was checked), the leaderboard, then a folded list of
    failing cases per model."""
    view, every = report_view(run), cases_view(run, suite).models
    models = [(model, every[model.place]) for model in view.models]  # best first
    header = ["Model", "Overall", "95% interval", "Passed", "Scored", "Failing", "Errored", "Stale"]
    parts = [
        *_verdict(view, failed),
        table(header, [_row(view, model, cases) for model, cases in models]),
        "Overall: the share of scored cases whose every step passed; the interval is Wilson's. "
        "Stale counts stale and unrecorded cases."
        + (
            " With repeated runs, Overall is the mean over runs and every count adds up the cases "
            "of every run."
            if view.repeats
            else ""
        ),
        md(view.provenance),
    ]
    parts.extend(block for model, cases in models if (block := _details(model, cases)) is not None)
    return "\n\n".join(parts) + "\n"

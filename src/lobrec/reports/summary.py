"""A compact Markdown summary for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`).

The full Markdown report is too long for a job page; this keeps what a reviewer looks at first:
the run's verdict with each failed gate in one line (given by the CLI once the gates are checked),
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
from collections.abc import Sequence

from lobrec.core.repeats import run_outcome
from lobrec.core.results import CaseResult, CaseRuns, ModelResult, RunResult
from lobrec.core.runs import runs_of
from lobrec.core.suite import Suite
from lobrec.reports._format import group_label, percent, provenance, ranked, rate_counts
from lobrec.reports.export import case_group, step_reasons
from lobrec.reports.insight import kinds_text
from lobrec.reports.markdown import interval, spelled
from lobrec.reports.markdown_syntax import md, no_pings, table
from lobrec.reports.repeats import any_repeats, run_verdicts


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
        str(sum(run_outcome(case) == "failed" for run in runs_of(model).runs for case in run.cases)),
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


def _item(suite: Suite, entry: CaseRuns, results: list[CaseResult | None], repeated: bool) -> str | None:
    """A case that failed or errored (in any run) as a list item: why, from the first such run
    (after every run's verdict, with repeats); None for any other case."""
    worst = "failed" if "failed" in entry.outcomes else "errored" if "errored" in entry.outcomes else None
    if worst is None:
        return None
    first = next(case for case in results if case is not None and run_outcome(case) == worst)
    why = md(_why(first))
    if repeated:
        why = f"{md(run_verdicts(entry.outcomes))}; {why}"
    label = "errored: " if worst == "errored" else ""
    return f"- {label}{md(entry.id)} ({md(group_label(case_group(suite, first)))}): {why}"


def _details(model: ModelResult, suite: Suite) -> str | None:
    """The model's cases that failed or errored (in any run) in a `<details>` block: failing cases
    first for a model recorded once, every case in order with repeats."""
    runs = runs_of(model)
    found = [
        (entry, item)
        for entry, results in runs.by_case()
        if (item := _item(suite, entry, results, runs.repeated))
    ]
    if not found:
        return None
    failing = sum("failed" in entry.outcomes for entry, _ in found)
    tally = {"failing": failing, "errored": len(found) - failing}
    if not runs.repeated:
        found.sort(key=lambda pair: "failed" not in pair[0].outcomes)
    scope = " in some run" if runs.repeated else ""
    heading = ", ".join(f"{n} {label}{scope}" for label, n in tally.items() if n)
    summary = f"<b>{no_pings(html.escape(spelled(model.model)))}</b>: {heading}{_kinds(model)}"
    items = "\n".join(item for _, item in found)
    return f"<details><summary>{summary}</summary>\n\n{items}\n\n</details>"


def _kinds(model: ModelResult) -> str:
    """The model's failed steps by kind, for its `<summary>` line (every run's, with repeats)."""
    return f"; {html.escape(kinds_text(model))}" if model.failures else ""


def _verdict(run: RunResult, failed: Sequence[str] | None) -> list[str]:
    """The heading, with the run's verdict when the gates are known (`lobrec passed: ...`), then each
    failed gate in one line."""
    suite = f"{md(run.suite.name)} {md(run.suite.version)}"
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
    models = ranked(run)
    header = ["Model", "Overall", "95% interval", "Passed", "Scored", "Failing", "Errored", "Stale"]
    parts = [
        *_verdict(run, failed),
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

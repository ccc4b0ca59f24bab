"""The Markdown report: the leaderboard as a GitHub table, for a README or a pull-request comment.

Names from a results file are escaped for Markdown (`markdown_syntax.md`: literal text that pings
nobody), so a name renders exactly as it was written.

Every list is written in full (a results file may be read by nobody else): the failing and errored
cases per model, the cases to re-record, the unpriced calls counted. Nothing depends on the clock
or the machine, so the same results give the same bytes.
"""

from __future__ import annotations

from lobrec.core.metrics.compare import RATE_METRICS, Comparison
from lobrec.core.metrics.history import History
from lobrec.core.metrics.results import Rate, RunResult
from lobrec.core.words import counted
from lobrec.reports import diffview, historyview
from lobrec.reports._format import DASH, GLOSSARY, cost, fixed, rate_counts
from lobrec.reports.markdown_syntax import md, table
from lobrec.reports.suite_changes import SuiteChangesView
from lobrec.reports.view import ModelView, ReportView, Rerecord, report_view


def leaderboard(run: RunResult) -> str:
    """The leaderboard table alone."""
    return _leaderboard(report_view(run))


def _leaderboard(view: ReportView) -> str:
    columns = view.columns(without=("interval",))
    header = [md(column.label) for column in columns]
    rows = [[md(cell.text) for cell in view.row(model, columns)] for model in view.models]
    return table(header, rows)


def _groups(view: ReportView) -> str:
    """Overall rate per group (rows) and model (columns)."""
    header = ["Group", *(md(model.name) for model in view.models)]
    rows = [[md(group.label), *map(md, group.cells)] for group in view.groups]
    return table(header, rows)


def interval(ci95: tuple[float, float] | None) -> str:
    """A 95% interval, its ends with one decimal like the rates joined by an en dash; else a dash."""
    return DASH if ci95 is None else f"{fixed(ci95[0])}–{fixed(ci95[1])}%"


def _interval_cell(view: ReportView, model: ModelView, metric: str) -> str:
    """A rate's 95% interval with the counts behind it, `(8/11)`; a dash when it has none."""
    rate: Rate | None = model.cell(view.headings, metric).rate
    if rate is None or rate.ci95 is None:
        return DASH
    return f"{interval(rate.ci95)} ({rate_counts(rate)})"


def _intervals(view: ReportView) -> str:
    """Each rate's 95% interval (Wilson) per model, in the leaderboard's order."""
    header = ["Model", *(md(label + (" ↓" if lower else "")) for _, label, lower in RATE_METRICS)]
    rows = [
        [md(model.name), *(md(_interval_cell(view, model, metric)) for metric, _, _ in RATE_METRICS)]
        for model in view.models
    ]
    return table(header, rows)


def _priced_cost_note(model: ModelView) -> list[str]:
    """When unpriced calls hide a model's cost: what its scored cases' priced calls cost (the
    leaderboard's dash stays), a lower bound."""
    priced = model.priced_cost
    if priced is None:
        return []
    unpriced = counted(priced.unpriced, "unpriced call")
    if priced.per_100_usd is None:
        return [f"cost not shown: {unpriced}, none of the scored cases' calls priced"]
    return [
        f"cost not shown: {unpriced}; the scored cases' {counted(priced.priced_calls, 'priced call')} "
        f"cost {cost(priced.per_100_usd)} per 100 cases (a lower bound)"
    ]


def _failing(view: ReportView) -> str:
    """Per model with any, every failing and every errored case id, in the suite's order (over
    repeated runs: failing in every run, errored in some run; the flaky ones are listed apart)."""
    lines = []
    for model in view.models:
        found = [
            f"{found.label} ({len(found.ids)}): " + ", ".join(map(md, found.ids)) for found in model.failing
        ]
        if found:
            lines.append(f"- **{md(model.name)}**: {'; '.join(found)}")
    return "\n".join(lines)


def _repeated_runs(view: ReportView) -> str:
    """Per repeated model: each rate per run with its mean, min, max and sample sd; pass^K and
    pass@K with their intervals; every flaky case."""
    parts = []
    for model in view.models:
        if model.flaky is None:
            continue
        header = ["Metric", *(f"Run {n}" for n in range(1, model.runs + 1)), "Mean", "Min", "Max", "SD"]
        rows = [[md(row.label), *map(md, row.per_run), *map(md, row.summary)] for row in model.spread]
        flaky = ", ".join(map(md, model.flaky)) or "none"
        parts.extend(
            [
                f"**{md(model.name)}**, {model.runs} runs: " + "; ".join(map(md, model.repeats[1:])),
                table(header, rows),
                f"Flaky ({len(model.flaky)}): {flaky}",
            ]
        )
    return "\n\n".join(parts)


def _model_line(model: ModelView) -> str:
    """A model's counts and notes in one list item."""
    notes = [model.count_line, *model.notes, *model.quirks, *_priced_cost_note(model)]
    return f"- **{md(model.name)}**: " + "; ".join(map(md, notes))


def _rerecord_line(entry: Rerecord) -> str:
    label = f"**{md(entry.model)}**" + ("" if entry.run == 1 else f" run {entry.run}")
    if entry.missing:
        return f"- {label}: not recorded"
    found = []
    if entry.stale:
        found.append("stale: " + ", ".join(map(md, entry.stale)))
    if entry.unrecorded:
        found.append("unrecorded: " + ", ".join(map(md, entry.unrecorded)))
    return f"- {label}: {'; '.join(found)}"


TIERS_LEAD = "Models sharing a tier cannot be told apart by the paired test (Holm-corrected)."
REPEATED_RUNS_LEAD = (
    "Each rate per run, and its mean, min, max and sample standard deviation over the runs; "
    "pass^K counts the cases passed in every run, pass@K those passed in at least one, both "
    "of the cases scored in every run."
)


def render_markdown(run: RunResult) -> str:
    """The whole report: suite line, leaderboard, counts and notes, intervals, groups, failing cases,
    cases to re-record."""
    view = report_view(run)
    name, version = md(view.suite_name), md(view.suite_version)
    parts = [
        f"### Tool calling on {name} {version}",
        f"Suite **{name}** version {version}, {counted(view.case_count or 0, 'case')}, "
        f"{counted(len(view.models), 'model')}. "
        "A score is comparable only to another score on the same suite version. " + md(view.provenance),
        _leaderboard(view),
        "  \n".join(md(line).replace(md(GLOSSARY), f"`{GLOSSARY}`") for line in view.key),
        "\n".join(map(_model_line, view.models)),
        "#### 95% intervals",
        "Each rate's Wilson 95% interval, with the cases or calls it counts.",
        _intervals(view),
        "#### By group",
        "Overall rate per group, with the cases passed out of those scored.",
        _groups(view),
    ]
    if view.repeats:
        parts.extend(["#### Repeated runs", REPEATED_RUNS_LEAD, _repeated_runs(view)])
    parts.extend(_insight_sections(view))
    failed = _failing(view)
    if failed:
        parts.extend(["#### Failing cases", failed])
    if view.rerecord:
        parts.extend(["#### Needs re-recording", "\n".join(map(_rerecord_line, view.rerecord))])
    if view.suite_changes is not None:
        parts.append(_suite_changes(view.suite_changes))
    return "\n\n".join(part for part in parts if part) + "\n"


def _suite_changes(changes: SuiteChangesView) -> str:
    """The section as Markdown: a heading, the summary list, a table and the flips per model."""
    first, *rest = changes.summary
    parts = ["#### Suite changes", md(first), "\n".join(f"- {md(line)}" for line in rest)]
    for model in changes.models:
        header = ["Metric", md(changes.old), md(changes.new), "Δ"]
        parts.append(f"**{md(model.model)}**")
        parts.append(table(header, [[md(cell) for cell in row] for row in model.rows]))
        parts.append("\n".join(f"- {md(line)}" for line in model.flips))
    return "\n\n".join(parts)


def _md_table(header: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> str:
    return table([md(cell) for cell in header], [[md(cell) for cell in row] for row in rows])


def _insight_sections(view: ReportView) -> list[str]:
    """Failure kinds per model, the resolution and tiers, and each routed model's routing."""
    parts = []
    if view.failure_rows:
        parts.extend(
            [
                "#### Failure kinds",
                'Failed steps of scored cases by kind (docs/metrics.md, "Failure kinds"); '
                "repeats count every run.",
                _md_table(view.failure_header, view.failure_rows),
            ]
        )
    if view.resolution:
        parts.extend(
            [
                "#### Tiers and resolution",
                md(TIERS_LEAD + " " + view.resolution),
            ]
        )
    for model in view.models:
        if not model.routing_notes:  # a routed model has notes even with no candidate recorded
            continue
        parts.append(f"#### Routing of {md(model.name)}")
        for routing in model.routing:
            parts.append(md(routing.heading[0].upper() + routing.heading[1:]))
            parts.append(_md_table(view.routing_header, routing.rows))
        parts.append("\n".join(f"- {md(note)}" for note in model.routing_notes))
    return parts


# --- lobrec diff -------------------------------------------------------------------------------------


def _markdown_metrics(cmp: Comparison) -> str:
    rows = [
        [md(row.label), md(row.a), md(row.b), md(row.delta), row.verdict] for row in diffview.metric_rows(cmp)
    ]
    header = ["Metric", f"A: {md(cmp.model_a)}", f"B: {md(cmp.model_b)}", "B − A", ""]
    return table(header, rows, left=(0, 4))


def _markdown_lists(cmp: Comparison) -> list[str]:
    """The flipped and the left-out cases, every one of them."""
    lists = [
        f"- **{label}** ({len(ids)}): {', '.join(md(case) for case in ids)}"
        for label, ids in diffview.flip_lists(cmp)
        if ids
    ]
    lists.extend(
        f"- Left out, {md(label)} ({len(ids)}): {', '.join(md(case) for case in ids)}"
        for label, ids in diffview.left_out(cmp)
    )
    return ["\n".join(lists)] if lists else []


def render_diff_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown: a heading, the metric table, the test and the case lists, in
    full (a file is read later and elsewhere; only the terminal shortens them)."""
    parts = [
        f"### Comparing {md(cmp.model_a)} (A) with {md(cmp.model_b)} (B)",
        _markdown_metrics(cmp),
        *(md(line) for line in diffview.summary_lines(cmp)),
    ]
    if cmp.kinds:
        header = ["Failure kind", "A", "B", "B − A", ""]
        parts.append(
            table(header, [[md(cell) for cell in row] for row in diffview.kind_rows(cmp)], left=(0, 4))
        )
    parts.append(md(diffview.kinds_note(cmp)))
    parts.extend(_markdown_lists(cmp))
    return "\n\n".join(parts) + "\n"


# --- lobrec history ----------------------------------------------------------------------------------


def render_history_markdown(history: History) -> str:
    """The history as Markdown: the files, the table with its key, the notes and every step."""
    runs = [
        [
            md(historyview.run_heading(run)),
            md(run.label),
            md(historyview.suite_text(run)),
            md(historyview.recorded_date(run)),
            str(run.models),
        ]
        for run in history.runs
    ]
    header = ["Model", *(md(historyview.run_heading(run)) for run in history.runs)]
    rows = []
    for model in history.models:
        points = historyview.points_by_run(model)
        rows.append([md(model.model), *(md(historyview.cell(points.get(run.run))) for run in history.runs)])
    parts = [
        f"### {md(historyview.title(history))}",
        table(["Run", "File", "Suite", "Newest recording", "Models"], runs, left=(0, 1, 2, 3)),
        table(header, rows, left=(0,)),
        md(historyview.KEY),
        *(md(line) for line in historyview.notes(history)),
    ]
    steps = [
        [
            md(row.model),
            md(f"#{row.step.since} → #{row.after.run}"),
            md(historyview.delta_text(row)),
            md(historyview.verdict_text(row.step)),
            md(historyview.test_text(row.step)),
            md(historyview.provenance_text(row.step)),
        ]
        for row in historyview.step_rows(history)
    ]
    if steps:
        parts.append(
            table(["Model", "Step", "Overall", "Verdict", "Test", "Recordings"], steps, left=(0, 1, 3, 4, 5))
        )
    return "\n\n".join(parts) + "\n"

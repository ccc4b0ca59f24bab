"""The HTML report: one self-contained file to open in a browser and explore case by case.

It holds the leaderboard (with tiers), a plot of score against cost, the per-group breakdown,
what the scores mean (failure kinds per model, the run's resolution, `auto`'s routing), and a matrix of
every case against every model; each cell opens the model's calls beside the suite's expected
calls, with the failing check and the judge's reasons. The file loads nothing: styles and the
small script are inline, the plot is inline SVG, and a Content-Security-Policy forbids network
loads, so the report works offline and leaks nothing when opened.

The page is `templates/report.html.j2` (extending `base.html.j2`) rendered by `html_page`'s
autoescaping environment: everything from a results file or a suite (model output above all) is
shown as text, control characters spelled out. The data the templates show is shaped in
`html_data` (tables), `html_cells` (a cell's drill-down) and `html_plot` (the plot's geometry).

Without JavaScript the page is complete: every row shows, groups fold with `<details>` (and
CSS `:has`), each rate shows its 95% interval. The script (`static/report.js`) adds the explorer,
and keeps its state in the address, keys in this order, each optional: `#filter=failures,disagree`
`&group=<group>&kind=<failure kind>&q=<text>&cols=<i>,<j>&fold=<group>,<group>&sort=[-]<key>&open=<cell id>`
(`#open=<cell id>` alone opens a cell as before). Everything the script decides from (which rows
fail or disagree, what a search looks through, the number each leaderboard cell sorts by) is
computed here and written into `data-` attributes, so the same results give the same bytes.
"""

from __future__ import annotations

from lobrec.core.metrics.compare import Comparison
from lobrec.core.metrics.history import History
from lobrec.core.metrics.results import RunResult
from lobrec.core.suite.format import Suite
from lobrec.core.words import counted
from lobrec.reports import diffview, historyview, html_cells, html_data, html_insight, html_plot
from lobrec.reports._format import DASH
from lobrec.reports.html_cells import call_flag, check_text
from lobrec.reports.html_data import DEFAULT_SORT, sort_key
from lobrec.reports.html_page import CSP, json_for_script, render_template, static
from lobrec.reports.view import report_view

__all__ = ["CSP", "DEFAULT_SORT", "call_flag", "check_text", "render_html", "sort_key"]

_HELPERS = {
    "DASH": DASH,
    "DEFAULT_SORT": DEFAULT_SORT,
    "HEIGHT": html_plot.HEIGHT,
    "LEGEND": html_cells.LEGEND,
    "STATUS": html_cells.STATUS,
    "WIDTH": html_plot.WIDTH,
    "interval_text": html_plot.interval_text,
}
"""The constants the report's templates show: owned by the modules that shape the data."""


def render_html(run: RunResult, suite: Suite) -> str:
    """The whole report as one HTML document; `suite` supplies the expected calls and checks."""
    report = report_view(run)
    models = [model.name for model in report.models]
    cases = len(suite.cases) if report.case_count is None else report.case_count
    matrix = html_data.matrix(run, suite, report)
    script = static("data.js")
    return render_template(
        "report.html.j2",
        **_HELPERS,
        script=script + static("cells.js") + static("columns.js") + static("report.js"),
        view=report,
        suite=suite,
        title=f"{report.suite_name} {report.suite_version}",
        counts=f"{counted(len(models), 'model')} · {counted(cases, 'case')}",
        provenance=report.provenance,
        suite_mismatch=(suite.name, suite.version) != (report.suite_name, report.suite_version),
        board=html_data.leaderboard(report),
        plot=html_plot.plot(report),
        models=models,
        groups=html_data.groups(report),
        insight=html_insight.insight(report),
        suite_changes=report.suite_changes,
        matrix=matrix,
        data=json_for_script(matrix.data),
    )


# --- lobrec diff -------------------------------------------------------------------------------------


def render_diff_html(cmp: Comparison) -> str:
    """The comparison as one self-contained page in the HTML report's style (`lobrec diff --html`):
    the metric deltas, the test, the cases that moved and those left out, the failure kinds."""
    return render_template(
        "diff.html.j2",
        cmp=cmp,
        metrics=diffview.metric_rows(cmp),
        summary=diffview.summary_lines(cmp),
        tables=diffview.case_tables(cmp),
        kinds=diffview.kind_rows(cmp),
        kinds_note=diffview.kinds_note(cmp),
        counted=counted,
    )


# --- lobrec history ----------------------------------------------------------------------------------


def render_history_html(history: History) -> str:
    """The history as one self-contained page in the report's style: the files, a line per model
    across them (inline SVG), the table with its marks, and every step with its test."""
    steps = [
        (
            row.model,
            f"#{row.step.since} → #{row.after.run}",
            historyview.delta_text(row),
            row.step,
            historyview.test_text(row.step),
        )
        for row in historyview.step_rows(history)
    ]
    return render_template(
        "history.html.j2",
        heading=historyview.title(history),
        history=history,
        run_heading=historyview.run_heading,
        suite_text=historyview.suite_text,
        recorded_date=historyview.recorded_date,
        rows=historyview.html_rows(history),
        chart=historyview.chart(history),
        key=historyview.KEY,
        notes=historyview.notes(history),
        steps=steps,
        verdict_text=historyview.verdict_text,
        provenance_text=historyview.provenance_text,
        extra_css=static("history.css"),
    )

"""`lobrec history RESULTS...`: a leaderboard's runs over time, from its results files in order.

The files are read and lined up in the order given (docs/reports.md, "History"); the suites that
steps across versions need are the bundled suite, its kept history (`suite/history/`) and any
`--suite FILE`. The rules live in `lobrec.core.metrics.history`, the words in
`lobrec.reports.historyview`, each format's layout in its report module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lobrec.cli._exits import Exit
from lobrec.cli._options import also_write
from lobrec.cli._output import fail
from lobrec.cli._reports import one_stdout, report_console, write_report

if TYPE_CHECKING:
    from lobrec.core.metrics.results import RunResult
    from lobrec.core.suite.format import Suite


def known_suites(given: list[Path]) -> list[tuple[str, Suite]]:
    """(fingerprint, suite) for every suite text lobrec can use: `--suite` files first, then the
    bundled suite and its kept versions. A `--suite` file that cannot be read is an error."""
    from lobrec.cassette.manifest import suite_fingerprint
    from lobrec.suite_file import read_suite, shipped_suites

    suites = [*(read_suite(path) for path in given), *shipped_suites()]
    return [(suite_fingerprint(suite), suite) for suite in suites]


def _needs_suites(runs: list[RunResult]) -> bool:
    from lobrec.core.metrics.history import same_suite

    return any(not same_suite(runs[0].suite, run.suite) for run in runs[1:])


def history_command(
    files: list[Path] = typer.Argument(
        ..., metavar="RESULTS...", help="Two or more results JSON files, oldest first."
    ),
    markdown_out: str | None = also_write("--markdown", "history as Markdown"),
    html_out: str | None = also_write("--html", "history as an HTML page with a chart"),
    json_out: str | None = also_write("--json", "history data as JSON"),
    suite_paths: list[Path] = typer.Option(
        [],
        "--suite",
        metavar="FILE",
        help="A suite version the files were judged with that lobrec does not ship; repeatable.",
    ),
) -> None:
    """Show a leaderboard's results files over time, steps tested.

    One results file per run, oldest first, in the order given. Each model's overall rate in
    every file, each step marked better or worse only when the paired test (exact McNemar; the
    sign test with repeats) finds it real, rescored runs (the same recordings re-judged) and
    suite-version changes marked. Across suite versions only the cases whose request and checks
    did not change are compared.
    """
    from lobrec.core.metrics.history import build_history
    from lobrec.reports.export import encode_history
    from lobrec.reports.html import render_history_html
    from lobrec.reports.markdown import render_history_markdown
    from lobrec.reports.terminal import render_history
    from lobrec.results_file import read_results

    one_stdout({"markdown": markdown_out, "html": html_out, "json": json_out})
    if len(files) < 2:
        raise fail(f"{files[0]}: history needs two results files or more, oldest first")
    runs = [read_results(path) for path in files]
    suites = known_suites(suite_paths) if suite_paths or _needs_suites(runs) else []
    history = build_history([(str(path), run) for path, run in zip(files, runs, strict=True)], suites)
    if markdown_out:
        write_report(markdown_out, render_history_markdown(history), "--markdown", example="history.md")
    if html_out:
        write_report(html_out, render_history_html(history), "--html", example="history.html")
    if json_out:
        write_report(json_out, encode_history(history).decode(), "--json", example="history.json")
    render_history(history, report_console(stderr="-" in (markdown_out, html_out, json_out)))
    raise typer.Exit(Exit.OK)

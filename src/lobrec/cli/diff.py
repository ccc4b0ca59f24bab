"""`lobrec diff A B`: compare two recordings case by case, with an exact McNemar test (an exact sign
test on per-case pass rates when either side has repeated runs).

Each side is a model's cassette directory (re-judged offline, as `rescore` would) or a results JSON
file holding one model; with `--model M`, a results file of several models (the results of two CI
runs) or the folder holding the model folders, from which model M is taken.
"""

from __future__ import annotations

from pathlib import Path

import typer

from lobrec.cli._exits import Exit
from lobrec.cli._options import SuitePath, also_write
from lobrec.cli._reports import one_stdout, report_console, write_report


def diff_command(
    a: Path = typer.Argument(
        ..., metavar="A", help="A model's cassette folder (e.g. cassettes/auto) or results JSON file."
    ),
    b: Path = typer.Argument(
        ..., metavar="B", help="The other model's cassette folder or results JSON file."
    ),
    suite_path: SuitePath = None,
    markdown_out: str | None = also_write("--markdown", "comparison as Markdown"),
    html_out: str | None = also_write("--html", "comparison as an HTML page, case by case"),
    allow_newer_suite: bool = typer.Option(
        False,
        "--allow-newer-suite",
        help="Compare cassettes (or results) recorded with a newer suite version than the judging one.",
    ),
    every: bool = typer.Option(
        False, "--all", help="List every flipped and left-out case (the terminal shows the first 20)."
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        metavar="MODEL",
        help="Compare this model of each side: results files of several models, or cassette folders "
        "of several model folders (e.g. two CI runs' results.json).",
    ),
) -> None:
    """Compare two recordings case by case.

    Shows the metric deltas, the cases that flipped between pass and fail, and an exact McNemar
    p-value for the flips. With repeated runs on either side (run folders under runs/, or a results file
    holding repeats), it compares per-case pass rates with an exact sign test and says whether the
    difference is within the run-to-run spread. A cassette folder is re-judged offline, as rescore
    would.
    """
    from lobrec.cli._diff_side import load_side
    from lobrec.core.metrics.compare import compare
    from lobrec.core.metrics.tiers import with_resolution
    from lobrec.reports.html import render_diff_html
    from lobrec.reports.markdown import render_diff_markdown
    from lobrec.reports.terminal import render_diff

    one_stdout({"markdown": markdown_out, "html": html_out})
    side_a = load_side(a, suite_path, model, allow_newer_suite)
    side_b = load_side(b, suite_path, model, allow_newer_suite)
    comparison = with_resolution(compare(side_a, side_b), side_a, side_b)
    if markdown_out:
        write_report(markdown_out, render_diff_markdown(comparison), "--markdown", example="diff.md")
    if html_out:
        write_report(html_out, render_diff_html(comparison), "--html", example="diff.html")
    render_diff(comparison, report_console(stderr="-" in (markdown_out, html_out)), every=every)
    raise typer.Exit(Exit.OK)

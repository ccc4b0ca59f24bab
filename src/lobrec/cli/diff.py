"""`lobrec diff A B`: compare two recordings case by case, with an exact McNemar test (an exact sign
test on per-case pass rates when either side has repeated runs).

Each side is a model's cassette directory (re-judged offline, as `rescore` would) or a results JSON
file holding one model; with `--model M`, a results file of several models (the results of two CI
runs) or the folder holding the model folders, from which model M is taken.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lobrec.cli._shared import Exit, fail, report_console, write_report

MAX_RESULTS_BYTES = 64 * 1024 * 1024
"""A results file larger than this is refused unread: a case keeps at most `MAX_CASE_BYTES` in it."""

if TYPE_CHECKING:
    from lobrec.core.results import ModelResult
    from lobrec.core.suite import Suite


def load_side(
    path: Path, suite_path: Path | None, model: str | None = None, allow_newer_suite: bool = False
) -> ModelResult:
    """One side of the comparison; raises LobrecError with a one-line reason naming the path.

    With `model` (`--model`), a results file may hold several models and a folder may be the one
    holding the model folders: the side is that model's entry, or its folder.
    """
    import asyncio

    import msgspec

    from lobrec.cassette.layout import MANIFEST, model_dir_name
    from lobrec.cassette.manifest import newer_suite_problem
    from lobrec.core.results import decode_results
    from lobrec.core.words import counted
    from lobrec.errors import LobrecError, VersionMismatch
    from lobrec.files import read_capped
    from lobrec.replay import rescore_directories
    from lobrec.suite_file import load_suite

    if path.is_dir():
        if model is not None and not (path / MANIFEST).is_file():
            path = path / model_dir_name(model)
            if not path.is_dir():
                raise LobrecError(f"{path}: no such model folder for --model {model}")
        if not (path / MANIFEST).is_file():
            raise LobrecError(
                f"{path}: not a model cassette directory (no {MANIFEST}); name e.g. cassettes/auto"
            )
        suite: Suite = load_suite(suite_path)
        outcome = asyncio.run(rescore_directories(suite, [path], allow_newer_suite=allow_newer_suite))
        (found,) = outcome.run.models
        if model is not None and found.model != model:
            raise LobrecError(f"{path}: holds model {found.model}, not --model {model}")
        return found
    data = read_capped(path, MAX_RESULTS_BYTES, "results file", LobrecError, follow=True)
    try:
        run = decode_results(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise LobrecError(f"{path}: not a lobrec results file: {exc}") from None
    names = ", ".join(m.model for m in run.models) or "none"
    if model is not None:
        chosen = [m for m in run.models if m.model == model]
        if not chosen:
            raise LobrecError(f"{path}: no model {model} in it (it holds {names})")
    elif len(run.models) != 1:
        raise LobrecError(
            f"{path}: holds {counted(len(run.models), 'model')} ({names}); pick one with --model, "
            "or compare one model directory each"
        )
    else:
        chosen = run.models
    (entry,) = chosen[:1]
    # only the compared model's provenance matters: the file's other models are not judged here
    for recording in [] if allow_newer_suite else entry.recorded:
        problem = newer_suite_problem(path, recording.suite.version, run.suite)
        if problem is not None:
            raise VersionMismatch(f"{problem} (model {entry.model}, run {recording.run})")
    return entry


def diff_command(
    a: Path = typer.Argument(
        ..., metavar="A", help="A model's cassette folder (e.g. cassettes/auto) or results JSON file."
    ),
    b: Path = typer.Argument(
        ..., metavar="B", help="The other model's cassette folder or results JSON file."
    ),
    suite_path: Path | None = typer.Option(
        None, "--suite", metavar="FILE", help="Suite file (default: the suite bundled with lobrec)."
    ),
    markdown_out: str | None = typer.Option(
        None, "--markdown", metavar="FILE", help="Also write the comparison as Markdown (- for stdout)."
    ),
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
    from lobrec.core.compare import compare
    from lobrec.core.tiers import with_resolution
    from lobrec.errors import LobrecError
    from lobrec.reports.diff import render_diff, render_diff_markdown

    try:
        side_a = load_side(a, suite_path, model, allow_newer_suite)
        side_b = load_side(b, suite_path, model, allow_newer_suite)
        comparison = with_resolution(compare(side_a, side_b), side_a, side_b)
    except LobrecError as exc:
        raise fail(str(exc)) from None
    if markdown_out:
        write_report(markdown_out, render_diff_markdown(comparison), "--markdown", example="diff.md")
    render_diff(comparison, report_console(stderr=markdown_out == "-"), every=every)
    raise typer.Exit(Exit.OK)

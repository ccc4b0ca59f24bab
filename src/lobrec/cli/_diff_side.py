"""One side of `lobrec diff`: a model's cassette folder re-judged offline, or its entry in a results
file, picked by `--model` when the file or folder holds several."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.errors import LobrecError
from lobrec.results_file import read_results

if TYPE_CHECKING:
    from lobrec.core.metrics.results import ModelResult, RunResult


def load_side(
    path: Path, suite_path: Path | None, model: str | None = None, allow_newer_suite: bool = False
) -> ModelResult:
    """One side of the comparison; raises LobrecError with a one-line reason naming the path.

    With `model` (`--model`), a results file may hold several models and a folder may be the one
    holding the model folders: the side is that model's entry, or its folder.
    """
    if path.is_dir():
        return _cassette_side(path, suite_path, model, allow_newer_suite)
    run = read_results(path)
    entry = _chosen(run, path, model)
    if not allow_newer_suite:  # only the compared model's provenance matters: the others are not judged
        _refuse_newer(run, entry, path)
    return entry


def _cassette_side(
    path: Path, suite_path: Path | None, model: str | None, allow_newer_suite: bool
) -> ModelResult:
    import asyncio

    from lobrec.cassette.layout import MANIFEST, model_dir_name
    from lobrec.running.replay import rescore_directories
    from lobrec.suite_file import read_suite

    if model is not None and not (path / MANIFEST).is_file():
        path = path / model_dir_name(model)
        if not path.is_dir():
            raise LobrecError(f"{path}: no such model folder for --model {model}")
    if not (path / MANIFEST).is_file():
        raise LobrecError(f"{path}: not a model cassette directory (no {MANIFEST}); name e.g. cassettes/auto")
    suite = read_suite(suite_path)
    outcome = asyncio.run(rescore_directories(suite, [path], allow_newer_suite=allow_newer_suite))
    (found,) = outcome.run.models
    if model is not None and found.model != model:
        raise LobrecError(f"{path}: holds model {found.model}, not --model {model}")
    return found


def _chosen(run: RunResult, path: Path, model: str | None) -> ModelResult:
    """The entry of `model`, or the file's only one when no model is named."""
    from lobrec.core.words import counted

    names = ", ".join(m.model for m in run.models) or "none"
    if model is None:
        if len(run.models) != 1:
            raise LobrecError(
                f"{path}: holds {counted(len(run.models), 'model')} ({names}); pick one with --model, "
                "or compare one model directory each"
            )
        return run.models[0]
    for entry in run.models:
        if entry.model == model:
            return entry
    raise LobrecError(f"{path}: no model {model} in it (it holds {names})")


def _refuse_newer(run: RunResult, entry: ModelResult, path: Path) -> None:
    from lobrec.cassette.manifest import newer_suite_problem
    from lobrec.errors import VersionMismatch

    for recording in entry.recorded:
        problem = newer_suite_problem(path, recording.suite.version, run.suite)
        if problem is not None:
            raise VersionMismatch(f"{problem} (model {entry.model}, run {recording.run})")

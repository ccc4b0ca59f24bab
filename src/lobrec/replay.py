"""Replay mode: re-judge recorded cassettes offline, through the same runner and judge as live mode.

No key, no network: answers come straight from the decoded cassettes (`lobrec.playback`), with no
HTTP client at all, and the socket layer is shut for the duration, so any attempt to reach a network
fails loudly. Recorded retries replay
without sleeping; latency and cost come from the recorded headers.

Across suite versions: a model recorded on another major version is not re-judged (each of its
cases is errored with the reason; other models still score); within a major version every case is
re-judged with the current checks. A case whose request content changed since it was recorded (its
fingerprint in the manifest differs, or the runner asks for a request the cassette lacks, e.g. a
chain that now goes further) is `stale`; a case with no cassette is `unrecorded`. Both are left out of
every rate and listed so they can be recorded again with `lobrec record --model X --missing`.
"""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lobrec.cassettes import (
    Manifest,
    case_file_name,
    case_fingerprint,
    load_manifest,
    model_dir_name,
    model_directories,
    model_from_dir_name,
)
from lobrec.core.metrics import model_result
from lobrec.core.results import CaseResult, RunResult, SuiteRef
from lobrec.core.suite import SEMVER, Case, Suite
from lobrec.errors import CassetteError
from lobrec.playback import ReplayExchange, open_for_replay
from lobrec.runner import Progress, no_sleep, run_case, run_jobs, temperature_ignored


class NetworkShut(RuntimeError):
    """Replay tried to open a socket."""


@contextlib.contextmanager
def sockets_shut() -> Iterator[None]:
    """Make any connection attempt in this process raise while replaying."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NetworkShut("replay tried to reach the network; replay must be offline")

    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection, socket.getaddrinfo)
    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex, socket.create_connection, socket.getaddrinfo = saved  # type: ignore[method-assign,assignment]


@dataclass(kw_only=True)
class ReplayModel:
    """One model directory being replayed."""

    model: str
    directory: Path
    manifest: Manifest | None
    problem: str | None = None
    """Set when the whole directory is unusable (bad manifest): every case is errored with it."""
    unreadable: list[str] = field(default_factory=list)
    """Ids of cases whose cassette (or manifest) could not be read."""
    fingerprints: dict[str, str] = field(default_factory=dict)
    """Case fingerprints by id, computed once: `rescore` shares one dict between all its models."""

    async def replay_case(self, suite: Suite, case: Case) -> CaseResult:
        def status(kind: str, reason: str) -> CaseResult:
            return CaseResult(id=case.id, group=case.group, status=kind, reason=reason)  # type: ignore[arg-type]

        if self.problem is not None:
            self.unreadable.append(case.id)
            return status("errored", self.problem)
        path = self.directory / case_file_name(case.id)
        if not path.exists() and not path.is_symlink():
            return status("unrecorded", "no cassette")
        entry = self.manifest.cases.get(case.id) if self.manifest else None
        if entry is None:
            return status("stale", f"{path}: not listed in the manifest")
        fingerprint = self.fingerprints.get(case.id)
        if fingerprint is None:
            fingerprint = self.fingerprints[case.id] = case_fingerprint(suite, case)
        if entry.fingerprint != fingerprint:
            return status(
                "stale", "the case's messages, tools or scripted results changed since it was recorded"
            )
        try:
            cassette = open_for_replay(path)
        except CassetteError as exc:
            self.unreadable.append(case.id)
            return status("errored", str(exc))
        return await run_case(ReplayExchange(cassette), suite, case, self.model, sleep=no_sleep)


def open_model_directory(directory: Path, suite: Suite) -> ReplayModel:
    """Read a model directory's manifest; a bad one errors every case of that directory, not the run."""
    fallback = model_from_dir_name(directory.name)
    try:
        manifest = load_manifest(directory)
    except CassetteError as exc:
        return ReplayModel(model=fallback, directory=directory, manifest=None, problem=str(exc))
    try:
        expected_dir = model_dir_name(manifest.model)
    except Exception as exc:
        return ReplayModel(
            model=fallback, directory=directory, manifest=None, problem=f"{directory}/manifest.json: {exc}"
        )
    if expected_dir != directory.name:
        return ReplayModel(
            model=fallback,
            directory=directory,
            manifest=None,
            problem=f"{directory}/manifest.json: model {manifest.model!r} does not belong in this directory",
        )
    if not SEMVER.match(manifest.suite.version):
        return ReplayModel(
            model=manifest.model,
            directory=directory,
            manifest=None,
            problem=f"{directory}/manifest.json: suite version {manifest.suite.version!r} is not a version",
        )
    if manifest.suite.version.split(".")[0] != suite.version.split(".")[0]:
        # Only this model cannot be re-judged: the others in the folder still are.
        return ReplayModel(
            model=manifest.model,
            directory=directory,
            manifest=None,
            problem=(
                f"{directory}: recorded on suite {manifest.suite.name} {manifest.suite.version}, "
                f"the suite is {suite.name} {suite.version}: another major version cannot be re-judged"
            ),
        )
    return ReplayModel(model=manifest.model, directory=directory, manifest=manifest)


def build_run_result(suite: Suite, cases_by_model: dict[str, list[CaseResult]]) -> RunResult:
    """Per-model metrics, models sorted by name, so record and rescore give identical files."""
    models = [
        model_result(suite, model, cases, temperature_ignored(cases))
        for model, cases in sorted(cases_by_model.items())
    ]
    return RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=models)


@dataclass(kw_only=True)
class RescoreOutcome:
    run: RunResult
    models: list[ReplayModel] = field(default_factory=list)


async def rescore(
    suite: Suite, root: Path, progress: Progress | None = None, concurrency: int = 8
) -> RescoreOutcome:
    """Re-judge every model directory under `root`."""
    return await rescore_directories(suite, model_directories(root), progress, concurrency)


async def rescore_against(
    suite: Suite, old: Suite, root: Path, progress: Progress | None = None, concurrency: int = 8
) -> RescoreOutcome:
    """Re-judge under `suite` and under `old`; the run is `suite`'s with a `suite_changes` section.

    Within a major version the cassettes serve both: a minor bump changes checks, not requests.
    """
    import msgspec

    from lobrec.core.suitechanges import suite_changes
    from lobrec.core.suitediff import diff_suites

    outcome = await rescore(suite, root, progress, concurrency)
    before = await rescore(old, root, None, concurrency)
    changes = suite_changes(diff_suites(old, suite), before.run, outcome.run)
    outcome.run = msgspec.structs.replace(outcome.run, suite_changes=changes)
    return outcome


async def rescore_directories(
    suite: Suite, directories: list[Path], progress: Progress | None = None, concurrency: int = 8
) -> RescoreOutcome:
    """Re-judge the given model directories (each holding a manifest)."""
    progress = progress or Progress()
    models = [open_model_directory(directory, suite) for directory in directories]
    fingerprints: dict[str, str] = {}
    for replay in models:
        replay.fingerprints = fingerprints
    results: dict[str, dict[str, CaseResult]] = {m.model: {} for m in models}

    with sockets_shut():
        jobs = [
            functools.partial(_replay_into, results, suite, case, replay, progress)
            for replay in models
            for case in suite.cases
        ]
        await run_jobs(jobs, concurrency)
    order = {case.id: n for n, case in enumerate(suite.cases)}
    by_model = {model: sorted(found.values(), key=lambda r: order[r.id]) for model, found in results.items()}
    return RescoreOutcome(run=build_run_result(suite, by_model), models=models)


async def _replay_into(
    results: dict[str, dict[str, CaseResult]],
    suite: Suite,
    case: Case,
    replay: ReplayModel,
    progress: Progress,
) -> None:
    progress.started(replay.model, case.id)
    result = await replay.replay_case(suite, case)
    results[replay.model][case.id] = result
    progress.finished(replay.model, result)

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

Repeated runs (docs/cassettes.md, "Repeated runs"): a model folder holding `runs/2/`..`runs/K/` is
replayed once per run, each run with its own manifest (a bad one errors that run's cases only, a
missing run folder leaves that run unrecorded), and the runs are put together by
`lobrec.core.repeats.combine_runs`. A model recorded once gives exactly the entry it always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.context
import os
import signal
import socket
import sys
import threading
import types
from collections.abc import Coroutine, Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from lobrec import __version__
from lobrec.cassettes import (
    Manifest,
    case_file_name,
    case_fingerprint,
    load_manifest,
    model_dir_name,
    model_directories,
    model_from_dir_name,
    refuse_while_recording,
    run_directories,
    suite_fingerprint,
)
from lobrec.core.metrics import model_result
from lobrec.core.repeats import combine_runs
from lobrec.core.results import CaseResult, ModelResult, Recording, RunResult, SuiteRef
from lobrec.core.routing import ROUTER, routing
from lobrec.core.suite import SEMVER, Case, Suite, version_order
from lobrec.core.tiers import rank_run
from lobrec.errors import CassetteError, VersionMismatch
from lobrec.playback import ReplayExchange, open_for_replay
from lobrec.runner import Progress, no_sleep, run_case, temperature_ignored

T = TypeVar("T")


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
    run: int = 1
    """Which run of the model this folder holds: 1 is the model folder, n its `runs/<n>/`."""
    absent: bool = False
    """A run folder missing below the highest run: the run counts, with every case unrecorded."""

    async def replay_case(self, suite: Suite, case: Case) -> CaseResult:
        def status(kind: str, reason: str) -> CaseResult:
            return CaseResult(id=case.id, group=case.group, status=kind, reason=reason)  # type: ignore[arg-type]

        if self.absent:
            return status("unrecorded", f"{self.directory}: no such folder, run {self.run} is not recorded")
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
    return _open_run(directory, suite, directory.name, 1)


def open_run_directories(model_dir: Path, suite: Suite) -> list[ReplayModel]:
    """Every run of a model folder, run 1 first (`cassettes.run_directories`), each opened on its own:
    a bad run manifest errors that run's cases only; run folders that cannot be used (too many
    missing) error every case of the model, with the reason."""
    try:
        directories = run_directories(model_dir)
    except CassetteError as exc:
        fallback = model_from_dir_name(model_dir.name)
        return [ReplayModel(model=fallback, directory=model_dir, manifest=None, problem=str(exc))]
    return [
        _open_run(directory, suite, model_dir.name, number)
        for number, directory in enumerate(directories, start=1)
    ]


def _open_run(directory: Path, suite: Suite, owner: str, run: int) -> ReplayModel:
    """One run's folder; `owner` is the model folder's name, which the manifest's model must give."""
    fallback = model_from_dir_name(owner)

    def unusable(problem: str, model: str = fallback) -> ReplayModel:
        return ReplayModel(model=model, directory=directory, manifest=None, problem=problem, run=run)

    if run > 1 and not directory.exists() and not directory.is_symlink():
        return ReplayModel(model=fallback, directory=directory, manifest=None, run=run, absent=True)
    try:
        manifest = load_manifest(directory)
    except CassetteError as exc:
        return unusable(str(exc))
    try:
        expected_dir = model_dir_name(manifest.model)
    except Exception as exc:
        return unusable(f"{directory}/manifest.json: {exc}")
    if expected_dir != owner:
        return unusable(
            f"{directory}/manifest.json: model {manifest.model!r} does not belong in this directory"
        )
    if not SEMVER.match(manifest.suite.version):
        return unusable(
            f"{directory}/manifest.json: suite version {manifest.suite.version!r} is not a version",
            manifest.model,
        )
    if manifest.suite.version.split(".")[0] != suite.version.split(".")[0]:
        # Only this model (this run) cannot be re-judged: the others in the folder still are.
        return unusable(
            f"{directory}: recorded on suite {manifest.suite.name} {manifest.suite.version}, "
            f"the suite is {suite.name} {suite.version}: another major version cannot be re-judged",
            manifest.model,
        )
    return ReplayModel(model=manifest.model, directory=directory, manifest=manifest, run=run)


def newer_suite_problem(where: Path, recorded: str, suite: Suite | SuiteRef) -> str | None:
    """Why cassettes recorded with suite version `recorded` must not be judged with `suite` silently:
    a newer suite may have cases, requests or checks this one lacks, so the scores would differ
    without a word. None when `recorded` is not newer. One rule for rescore, diff and record."""
    old, new = version_order(suite.version), version_order(recorded)
    if new[0] != old[0] or new <= old:  # another major version is never re-judged: errored, not refused
        return None
    return (
        f"{where}: recorded with suite {suite.name} {recorded}, newer than the judging suite "
        f"{suite.version}; judge it with that suite (--suite FILE) or pass --allow-newer-suite"
    )


def refuse_newer_suite(models: list[ReplayModel], suite: Suite) -> None:
    """Raise VersionMismatch naming the first run folder recorded with a newer suite than `suite`."""
    for replay in models:
        if replay.manifest is None:
            continue
        problem = newer_suite_problem(replay.directory, replay.manifest.suite.version, suite)
        if problem is not None:
            raise VersionMismatch(problem)


def with_provenance(run: RunResult, suite: Suite, models: list[ReplayModel]) -> RunResult:
    """The run stamped with what judged it (lobrec's version, the suite's content hash) and, per model,
    the manifests its cases came from: all read from the inputs, so rescores stay byte-identical."""
    recorded: dict[str, list[Recording]] = {}
    for replay in sorted(models, key=lambda r: (r.run, str(r.directory))):
        manifest = replay.manifest
        if manifest is None:
            continue
        recorded.setdefault(replay.model, []).append(
            Recording(
                run=replay.run,
                suite=SuiteRef(name=manifest.suite.name, version=manifest.suite.version),
                lobrec_version=manifest.lobrec_version,
                started_at=manifest.started_at,
                finished_at=manifest.finished_at,
            )
        )
    return msgspec.structs.replace(
        run,
        lobrec_version=__version__,
        suite=msgspec.structs.replace(run.suite, sha256=suite_fingerprint(suite)),
        models=[
            msgspec.structs.replace(model, recorded=recorded.get(model.model, [])) for model in run.models
        ],
    )


def build_run_result(suite: Suite, cases_by_model: dict[str, list[CaseResult]]) -> RunResult:
    """Per-model metrics, models sorted by name, so record and rescore give identical files."""
    models = [
        model_result(suite, model, cases, temperature_ignored(cases))
        for model, cases in sorted(cases_by_model.items())
    ]
    return finish_run(suite, RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=models))


def finish_run(suite: Suite, run: RunResult) -> RunResult:
    """What needs every model of the run at once: tiers, the resolution, and `auto`'s routing."""
    models = [
        model
        if model.model != ROUTER
        else msgspec.structs.replace(model, routing=routing(suite, model, run.models))
        for model in run.models
    ]
    return rank_run(msgspec.structs.replace(run, models=models))


@dataclass(kw_only=True)
class RescoreOutcome:
    run: RunResult
    models: list[ReplayModel] = field(default_factory=list)


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


async def rescore(
    suite: Suite,
    root: Path,
    progress: Progress | None = None,
    concurrency: int = 8,
    jobs: int = 1,
    *,
    allow_newer_suite: bool = False,
) -> RescoreOutcome:
    """Re-judge every model directory under `root`; refused while a `lobrec record` writes any
    (its cassettes are not complete: every case it has not reached would read as unrecorded)."""
    directories = model_directories(root)
    refuse_while_recording(directories)
    return await rescore_directories(
        suite, directories, progress, concurrency, jobs, allow_newer_suite=allow_newer_suite
    )


async def rescore_against(
    suite: Suite,
    old: Suite,
    root: Path,
    progress: Progress | None = None,
    concurrency: int = 8,
    jobs: int = 1,
    *,
    allow_newer_suite: bool = False,
) -> RescoreOutcome:
    """Re-judge under `suite` and under `old`; the run is `suite`'s with a `suite_changes` section.

    Within a major version the cassettes serve both: a minor bump changes checks, not requests.
    Judging with `old`, older than the recording, is the point here, so it is never refused.
    """
    from lobrec.core.suitechanges import suite_changes
    from lobrec.core.suitediff import diff_suites

    outcome = await rescore(suite, root, progress, concurrency, jobs, allow_newer_suite=allow_newer_suite)
    before = await rescore(old, root, None, concurrency, jobs, allow_newer_suite=True)
    changes = suite_changes(diff_suites(old, suite), before.run, outcome.run)
    outcome.run = msgspec.structs.replace(outcome.run, suite_changes=changes)
    return outcome


async def rescore_directories(
    suite: Suite,
    directories: list[Path],
    progress: Progress | None = None,
    concurrency: int = 8,
    jobs: int = 1,
    *,
    allow_newer_suite: bool = False,
) -> RescoreOutcome:
    """Re-judge the given model directories (each holding a manifest), every run of each.

    A run folder recorded with a newer suite version than `suite` raises VersionMismatch before
    anything is judged, unless `allow_newer_suite`.

    `jobs` > 1 spreads the run folders over that many processes (never more than there are
    folders); the results are the same as with one. `concurrency` is kept for callers: replay
    never waits on anything, so its cases run one after another, which is fastest. The outcome's
    `models` has one `ReplayModel` per run folder (`run` says which), run 1 first for each model.
    """
    del concurrency
    progress = progress or Progress()
    models = [replay for directory in directories for replay in open_run_directories(directory, suite)]
    if not allow_newer_suite:
        refuse_newer_suite(models, suite)
    progress.planned(len(models) * len(suite.cases))
    if jobs > 1 and len(models) > 1:
        run = await _replay_in_processes(suite, models, progress, jobs)
    else:
        replayed = await _replay_here(suite, models, progress)
        entries = [
            model_result(suite, replay.model, cases, temperature_ignored(cases))
            for replay, cases in zip(models, replayed, strict=True)
        ]
        run = _assemble(suite, models, entries)
    return RescoreOutcome(run=with_provenance(run, suite, models), models=models)


def _assemble(suite: Suite, models: list[ReplayModel], entries: list[ModelResult]) -> RunResult:
    """The results from one entry per run folder: folders of one model and one run (two spellings of
    a name) are merged as `_by_model` does, then each model's runs are put together."""
    folders: dict[str, dict[int, list[int]]] = {}
    for index, replay in enumerate(models):
        folders.setdefault(replay.model, {}).setdefault(replay.run, []).append(index)
    results = []
    for model in sorted(folders):
        runs = folders[model]
        per_run = []
        for number in range(1, max(runs) + 1):
            indexes = runs[number]  # each folder lists its runs 1..K without gaps (run_directories)
            if len(indexes) == 1:
                per_run.append(entries[indexes[0]])
                continue
            (merged,) = _by_model(
                suite, [models[i] for i in indexes], [entries[i].cases for i in indexes]
            ).values()
            per_run.append(model_result(suite, model, merged, temperature_ignored(merged)))
        results.append(combine_runs(suite, per_run))
    return finish_run(
        suite, RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=results)
    )


def _by_model(
    suite: Suite, models: list[ReplayModel], replayed: list[list[CaseResult]]
) -> dict[str, list[CaseResult]]:
    """Each model's cases in suite order; two directories of one model share one list (the later
    directory's result of a case wins)."""
    results: dict[str, dict[str, CaseResult]] = {}
    for replay, cases in zip(models, replayed, strict=True):
        results.setdefault(replay.model, {}).update((case.id, case) for case in cases)
    order = {case.id: n for n, case in enumerate(suite.cases)}
    return {model: sorted(found.values(), key=lambda r: order[r.id]) for model, found in results.items()}


@types.coroutine
def _let_the_loop_run() -> Generator[None, None, None]:
    """One turn of the event loop, as `asyncio.sleep(0)` gives, without asking for a sleep (replay
    never sleeps, and tests check that it never asks to)."""
    yield


def _drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a replay coroutine to its end at once: replay awaits nothing real (answers come from
    memory, retries do not sleep), so the event loop's scheduling would only add cost."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("replay awaited something: it must never wait on I/O")


def _replay_model(suite: Suite, replay: ReplayModel, progress: Progress) -> list[CaseResult]:
    results = []
    for case in suite.cases:
        progress.started(replay.model, case.id)
        result = _drive(replay.replay_case(suite, case))
        results.append(result)
        progress.finished(replay.model, result)
    return results


async def _replay_here(suite: Suite, models: list[ReplayModel], progress: Progress) -> list[list[CaseResult]]:
    fingerprints: dict[str, str] = {}
    replayed: list[list[CaseResult]] = []
    with sockets_shut():
        for replay in models:
            replay.fingerprints = fingerprints
            replayed.append(_replay_model(suite, replay, progress))
            await _let_the_loop_run()  # between directories, a signal handler (Ctrl-C) may run
    return replayed


# --- several processes -----------------------------------------------------------------------------

_worker_suite: Suite | None = None
_worker_fingerprints: dict[str, str] = {}
_model_result = msgspec.msgpack.Decoder(ModelResult)


def _start_worker(suite: Suite) -> None:
    """A worker keeps the suite and the case fingerprints for every directory it replays; Ctrl-C
    is the parent's to handle (it cancels what is left)."""
    global _worker_suite
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_suite = suite
    _worker_fingerprints.clear()


def _replay_in_worker(replay: ReplayModel) -> tuple[list[str], bytes]:
    """One run folder in a worker: its unreadable cases and that run's entry in the results, metrics
    included (msgpack: Structs go across faster that way than pickled)."""
    suite = _worker_suite
    assert suite is not None
    replay.fingerprints = _worker_fingerprints
    with sockets_shut():
        (cases,) = _by_model(suite, [replay], [_replay_model(suite, replay, Progress())]).values()
    return replay.unreadable, msgspec.msgpack.encode(
        model_result(suite, replay.model, cases, temperature_ignored(cases))
    )


def _process_context() -> multiprocessing.context.BaseContext:
    """fork when it is safe (cheapest: nothing to import again); otherwise a fresh interpreter."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and (sys.version_info < (3, 12) or threading.active_count() == 1):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


async def _replay_in_processes(
    suite: Suite, models: list[ReplayModel], progress: Progress, jobs: int
) -> RunResult:
    """Each run folder in a worker, its metrics included; the runs of a model, and the folders of
    one model and run (two spellings of one name), are put together here, as in one process."""
    loop = asyncio.get_running_loop()
    entries: list[ModelResult | None] = [None] * len(models)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(models)),
        mp_context=_process_context(),
        initializer=_start_worker,
        initargs=(suite,),
    )
    try:
        pending = {
            loop.run_in_executor(pool, _replay_in_worker, replay): index
            for index, replay in enumerate(models)
        }
        while pending:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                unreadable, encoded = future.result()
                replay = models[index]
                replay.unreadable.extend(unreadable)
                entry = entries[index] = _model_result.decode(encoded)
                for case in entry.cases:
                    progress.started(replay.model, case.id)
                    progress.finished(replay.model, case)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    finished = [entry for entry in entries if entry is not None]
    assert len(finished) == len(models)  # a worker's failure raised above
    return _assemble(suite, models, finished)

"""Replay mode: re-judge recorded cassettes offline, through the same runner and judge as live mode.

No key, no network: answers come straight from the decoded cassettes (`lobrec.running.playback`), with no
HTTP client at all, so replay cannot reach a network and touches nothing outside itself (other
tasks and threads of a program calling `lobrec.rescore` keep theirs). Recorded retries replay
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
`lobrec.core.metrics.repeats.combine_runs`. A model recorded once gives exactly the entry it always did.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import multiprocessing.context
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from lobrec.cassette.format import Manifest
from lobrec.cassette.layout import case_file_name, model_directories, model_from_dir_name, run_directories
from lobrec.cassette.locks import refuse_while_recording
from lobrec.cassette.manifest import (
    case_fingerprint,
    file_present,
    load_manifest,
    manifest_problems,
    newer_suite_problem,
    recording_problem,
)
from lobrec.core.metrics.results import CaseResult, ModelResult, RunResult
from lobrec.core.suite.format import Case, Suite
from lobrec.defaults import DEFAULT_CASSETTES
from lobrec.errors import CassetteError, VersionMismatch
from lobrec.running.playback import ReplayExchange, open_for_replay
from lobrec.running.run_result import assemble, by_model, entry, with_provenance
from lobrec.running.runner import Progress, replay_case

NotReplayed = Literal["errored", "stale", "unrecorded"]


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
    other_major: str | None = None
    """The suite version the folder was recorded on, when it is of another major version than the
    judging suite: its cases are errored with `problem`, and are not unreadable (the recording is
    whole; the suite of its own version judges it)."""
    listed: frozenset[str] | None = None
    """The folder's file names, read once when the first case asks (`present`)."""

    def replay_case(self, suite: Suite, case: Case) -> CaseResult:
        refused = self._refusal(suite, case)
        if refused is not None:
            return CaseResult(id=case.id, group=case.group, status=refused[0], reason=refused[1])
        path = self.directory / case_file_name(case.id)
        try:
            cassette = open_for_replay(path)
        except CassetteError as exc:
            self.unreadable.append(case.id)
            return CaseResult(id=case.id, group=case.group, status="errored", reason=str(exc))
        return replay_case(ReplayExchange(cassette), suite, case, self.model)

    def _refusal(
        self, suite: Suite, case: Case
    ) -> tuple[Literal["errored", "stale", "unrecorded"], str] | None:
        """Why the case is not replayed from this folder, or None."""
        if self.absent:
            return "unrecorded", f"{self.directory}: no such folder, run {self.run} is not recorded"
        if self.problem is not None:
            if self.other_major is None:
                self.unreadable.append(case.id)
            return "errored", self.problem

        def fingerprint() -> str:
            if case.id not in self.fingerprints:
                self.fingerprints[case.id] = case_fingerprint(suite, case)
            return self.fingerprints[case.id]

        return recording_problem(self.manifest, self.directory, case.id, fingerprint, self.present)

    def present(self, path: Path) -> bool:
        """`file_present`, read from one listing of the folder (a stat per case cost a tenth of
        replaying it); a name the listing lacks is asked of the file system, so the answer is
        `file_present`'s even on a file system that ignores case."""
        if self.listed is None:
            try:
                self.listed = frozenset(os.listdir(self.directory))
            except OSError:
                self.listed = frozenset()
        return path.name in self.listed or file_present(path)


def open_run_directories(model_dir: Path, suite: Suite) -> list[ReplayModel]:
    """Every run of a model folder, run 1 first (`cassette.layout.run_directories`), each opened on its own:
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
    """One run's folder; `owner` is the model folder's name, which the manifest's model must give.
    A manifest that breaks a rule (`lobrec.cassette.manifest`) errors every case of the folder."""
    fallback = model_from_dir_name(owner)
    if run > 1 and not directory.exists() and not directory.is_symlink():
        return ReplayModel(model=fallback, directory=directory, manifest=None, run=run, absent=True)
    try:
        manifest = load_manifest(directory)
    except CassetteError as exc:
        return ReplayModel(model=fallback, directory=directory, manifest=None, problem=str(exc), run=run)
    for problem in manifest_problems(manifest, directory, owner, suite):
        if problem.reason is not None:
            # A version problem is the manifest's own model's; another model's folder is not.
            model = manifest.model if problem.kind in ("version", "major") else fallback
            other = manifest.suite.version if problem.kind == "major" else None
            return ReplayModel(
                model=model,
                directory=directory,
                manifest=None,
                problem=problem.reason,
                run=run,
                other_major=other,
            )
    return ReplayModel(model=manifest.model, directory=directory, manifest=manifest, run=run)


def refuse_newer_suite(models: list[ReplayModel], suite: Suite) -> None:
    """Raise VersionMismatch naming the first run folder recorded with a newer suite than `suite`."""
    for replay in models:
        if replay.manifest is None:
            continue
        problem = newer_suite_problem(replay.directory, replay.manifest.suite.version, suite)
        if problem is not None:
            raise VersionMismatch(problem)


def open_cassette_folders(
    suite: Suite, directories: list[Path], *, allow_newer_suite: bool = False
) -> list[ReplayModel]:
    """The one way into model folders to judge (rescore, diff, a record's own results, a dry run):
    the lock rule, then the manifest rules, then the version rules, in that order.

    - Lock: refused (`RecordInProgress`) while a `lobrec record` in another process writes any of
      them: its cassettes are not complete, and every case it has not reached would read as
      unrecorded. A record of this process reading the folders it holds is the writer itself.
    - Manifest (`cassette.manifest.manifest_problems`): a folder whose manifest breaks a rule, or
      is of another major suite version, errors its cases with the reason.
    - Version: a folder recorded with a newer suite than `suite` raises `VersionMismatch`, unless
      `allow_newer_suite`.
    """
    refuse_while_recording(directories)
    models = [replay for directory in directories for replay in open_run_directories(directory, suite)]
    if not allow_newer_suite:
        refuse_newer_suite(models, suite)
    return models


@dataclass(frozen=True, kw_only=True)
class RescoreOptions:
    """What `rescore` re-judges, and how, as `RecordOptions` says it for `record`."""

    cassettes: Path = Path(DEFAULT_CASSETTES)
    """The folder of model cassette folders."""
    jobs: int = 1
    """Processes to spread the run folders over (`default_jobs()`: the CPUs); the same results for any."""
    allow_newer_suite: bool = False
    """Judge folders recorded with a newer suite version instead of raising `VersionMismatch`."""
    against: Suite | None = None
    """An older suite: also re-judge under it, and give the run a `suite_changes` section."""


class RescoreOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What `rescore` judged: the results, and each run folder as it was read. Frozen: a caller
    that wants another run makes a copy (`msgspec.structs.replace`)."""

    run: RunResult
    models: list[ReplayModel] = msgspec.field(default_factory=list)


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


async def rescore(
    suite: Suite,
    options: RescoreOptions | str | os.PathLike[str],
    progress: Progress | None = None,
    jobs: int = 1,
    *,
    allow_newer_suite: bool = False,
) -> RescoreOutcome:
    """Re-judge every model folder under `options.cassettes` (`open_cassette_folders` applies the
    rules), as `record(suite, gateway, options, progress)` records them. The older call,
    `rescore(suite, root, progress, jobs, allow_newer_suite=...)`, still works: `jobs` and
    `allow_newer_suite` are read only with a folder in place of the options."""
    if not isinstance(options, RescoreOptions):
        options = RescoreOptions(cassettes=Path(options), jobs=jobs, allow_newer_suite=allow_newer_suite)
    directories = model_directories(options.cassettes)
    outcome = await rescore_directories(
        suite, directories, progress, options.jobs, allow_newer_suite=options.allow_newer_suite
    )
    if options.against is None:
        return outcome
    # Within a major version the cassettes serve both: a minor bump changes checks, not requests.
    # Judging with `against`, older than the recording, is the point here, so it is never refused.
    from lobrec.core.suite.changes import suite_changes
    from lobrec.core.suite.versioning import diff_suites

    before = await rescore_directories(
        options.against, directories, None, options.jobs, allow_newer_suite=True
    )
    changes = suite_changes(diff_suites(options.against, suite), before.run, outcome.run)
    return msgspec.structs.replace(outcome, run=msgspec.structs.replace(outcome.run, suite_changes=changes))


async def rescore_directories(
    suite: Suite,
    directories: list[Path],
    progress: Progress | None = None,
    jobs: int = 1,
    *,
    allow_newer_suite: bool = False,
) -> RescoreOutcome:
    """Re-judge the given model directories (each holding a manifest), every run of each.

    A run folder recorded with a newer suite version than `suite` raises VersionMismatch before
    anything is judged, unless `allow_newer_suite`.

    `jobs` > 1 spreads the run folders over that many processes (never more than there are
    folders); the results are the same as with one. Replay never waits on anything, so its cases
    run one after another, which is fastest. The outcome's `models` has one `ReplayModel` per run
    folder (`run` says which), run 1 first for each model.
    """
    progress = progress or Progress()
    models = open_cassette_folders(suite, directories, allow_newer_suite=allow_newer_suite)
    progress.planned(len(models) * len(suite.cases))
    with _results_kept() as keep:
        if jobs > 1 and len(models) > 1:
            run = await _replay_in_processes(suite, models, progress, jobs, keep)
        else:
            replayed = await _replay_here(suite, models, progress, keep)
            entries = [
                entry(suite, replay.model, cases) for replay, cases in zip(models, replayed, strict=True)
            ]
            run = assemble(suite, models, entries)
    return RescoreOutcome(run=with_provenance(run, suite, models), models=models)


@contextmanager
def _results_kept() -> Iterator[Callable[[], None]]:
    """What a rescore judges stays alive until the results are put together (every model's cases,
    the suite, the folders): `keep()`, called after each model, moves what is alive out of the
    collector's generations (`gc.freeze`), so its full collections stop walking them all again
    (a tenth of the parent's CPU at 100 models). At the end they go back (`gc.unfreeze`): nothing
    is kept from the collector past the run. A program that froze objects itself (a server before
    it forks) keeps its collector as it set it: nothing is frozen or unfrozen then."""
    if gc.get_freeze_count():
        yield lambda: None
        return
    gc.freeze()
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


def _replay_model(suite: Suite, replay: ReplayModel, progress: Progress) -> list[CaseResult]:
    results = []
    for case in suite.cases:
        progress.started(replay.model, case.id)
        result = replay.replay_case(suite, case)
        results.append(result)
        progress.finished(replay.model, result)
    return results


async def _replay_here(
    suite: Suite, models: list[ReplayModel], progress: Progress, keep: Callable[[], None]
) -> list[list[CaseResult]]:
    fingerprints: dict[str, str] = {}
    replayed: list[list[CaseResult]] = []
    for replay in models:
        replay.fingerprints = fingerprints
        replayed.append(_replay_model(suite, replay, progress))
        keep()
        await asyncio.sleep(0)  # between directories, a signal handler (Ctrl-C) may run
    return replayed


# --- several processes -----------------------------------------------------------------------------

_worker_suite: Suite | None = None
_worker_models: list[ReplayModel] = []
_worker_fingerprints: dict[str, str] = {}
_model_result = msgspec.msgpack.Decoder(ModelResult)


def _start_worker(suite: Suite, models: list[ReplayModel]) -> None:
    """A worker keeps the suite, the run folders and the case fingerprints for every folder it
    replays (forked, it inherits them without a copy), so a task is the folder's index; Ctrl-C is
    the parent's to handle (it cancels what is left)."""
    global _worker_suite, _worker_models
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_suite = suite
    _worker_models = models
    _worker_fingerprints.clear()


def _replay_in_worker(index: int) -> tuple[int, list[str], bytes]:
    """Run folder `index` in a worker: the index, its unreadable cases and that run's entry in the
    results, metrics included (msgpack: Structs go across faster that way than pickled)."""
    suite = _worker_suite
    assert suite is not None
    replay = _worker_models[index]
    replay.fingerprints = _worker_fingerprints
    (cases,) = by_model(suite, [replay], [_replay_model(suite, replay, Progress())]).values()
    return index, replay.unreadable, msgspec.msgpack.encode(entry(suite, replay.model, cases))


def _process_context() -> multiprocessing.context.BaseContext:
    """fork when it is safe (cheapest: nothing to import again); otherwise a fresh interpreter."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and (sys.version_info < (3, 12) or threading.active_count() == 1):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


async def _replay_in_processes(
    suite: Suite, models: list[ReplayModel], progress: Progress, jobs: int, keep: Callable[[], None]
) -> RunResult:
    """Each run folder in a worker, its metrics included; the runs of a model, and the folders of
    one model and run (two spellings of one name), are put together here, as in one process."""
    loop = asyncio.get_running_loop()
    entries: list[ModelResult | None] = [None] * len(models)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(models)),
        mp_context=_process_context(),
        initializer=_start_worker,
        initargs=(suite, models),
    )
    try:
        # as_completed waits on each folder once (asyncio.wait in a loop re-armed every pending
        # one at each turn: quadratic in folders)
        pending = [loop.run_in_executor(pool, _replay_in_worker, index) for index in range(len(models))]
        for next_done in asyncio.as_completed(pending):
            index, unreadable, encoded = await next_done
            replay = models[index]
            replay.unreadable.extend(unreadable)
            judged = entries[index] = _model_result.decode(encoded)
            keep()
            for case in judged.cases:
                progress.started(replay.model, case.id)
                progress.finished(replay.model, case)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    finished = [judged for judged in entries if judged is not None]
    assert len(finished) == len(models)  # a worker's failure raised above
    return assemble(suite, models, finished)

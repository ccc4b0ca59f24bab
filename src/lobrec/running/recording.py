"""Live mode: run the suite against the gateway and record every exchange into cassettes.

Each case of each model runs in its own task with its own cassette; a cassette is saved (atomically)
only when its case has finished, scored or errored, and the model's manifest right after it. An
interrupted run therefore leaves whole cassettes for finished cases and nothing for the rest, and
`--missing` resumes it. The files are written by one writer thread (`_Writer`), in the order the
cases finished, so the event loop keeps serving the other cases while the disk works. Cases not run
now (`--case`, `--missing`) are scored from their existing cassettes through replay, so the results
always cover the whole suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import httpx
import msgspec

from lobrec._version import __version__
from lobrec.cassette.format import Manifest, ManifestCase, ManifestSuite, encode_pretty
from lobrec.cassette.layout import MANIFEST, case_file_name, model_dir_name, run_directories, run_folder
from lobrec.cassette.locks import writer_lock
from lobrec.cassette.manifest import (
    case_fingerprint,
    load_manifest,
    newer_suite_problem,
    recording_problem,
    same_major,
    save_manifest,
)
from lobrec.cassette.vcrpy import cassette_bytes, new_for_recording
from lobrec.core.metrics.results import CaseResult, RunResult
from lobrec.core.suite.format import Case, Suite
from lobrec.defaults import DEFAULT_CASSETTES, DEFAULT_CONCURRENCY
from lobrec.errors import CassetteError, ConfigError, VersionMismatch
from lobrec.files import file_mode, real_folder, write_atomic
from lobrec.running.gateway import Gateway
from lobrec.running.live import MAX_REPLY_BYTES, LiveLink
from lobrec.running.replay import ReplayModel, open_cassette_folders, rescore_directories
from lobrec.running.run_result import build_run_result, with_provenance
from lobrec.running.runner import Progress, RetryPolicy, Sleep, lasting_failure, run_case, run_jobs
from lobrec.running.throttle import Throttle, ThrottledExchange


@dataclass(kw_only=True)
class RecordOptions:
    """What `record` records, and how: the models, the folder, which cases, how fast, at what cost."""

    models: list[str]
    cassettes: Path = Path(DEFAULT_CASSETTES)
    case_ids: list[str] = field(default_factory=list)
    missing: bool = False
    concurrency: int = DEFAULT_CONCURRENCY
    adaptive: bool = True
    """Fewer requests in flight on 429/503 answers, more as calls succeed (`lobrec.running.throttle`)."""
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_reply_bytes: int = MAX_REPLY_BYTES
    max_cost_usd: float | None = None
    """A cap on this run's recorded cost: cases start only while the spend, with the cases in
    flight priced at the mean so far, stays within it (`_Session.budget`); cases in flight finish."""
    repeat: int = 1
    """Runs of every case (`--repeat K`): run 1 in the model folder, runs 2..K in `runs/<n>/`."""
    retry_errored: bool = False
    """Record only the cases (of every run) whose cassette ended errored (with `--missing`: those too)."""
    allow_newer_suite: bool = False
    """Add to (and judge) folders recorded with a newer suite version (`--allow-newer-suite`)."""


class RecordOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What `record` did: the results of the whole suite per model, and how the run went. Frozen:
    a caller that wants another run (its suite source, say) makes a copy (`msgspec.structs.replace`)."""

    run: RunResult
    recorded: dict[str, list[str]]
    """Per model, the ids of the cases recorded by this run."""
    interrupted: bool
    throttle: Throttle | None = None
    """How the requests in flight adapted (None when nothing was recorded)."""
    spent_usd: float = 0.0
    """What the recorded answers of this run cost (their `x-lobstack-cost-usd`)."""
    not_started: int = 0
    """Cases left unstarted because `--max-cost` was reached."""
    stopped: dict[str, str] = msgspec.field(default_factory=dict)
    """Per model that failed fast (`FAIL_FAST_CASES`), why; its unstarted cases are in `unstarted`."""
    unstarted: dict[str, int] = msgspec.field(default_factory=dict)
    """Per model that failed fast, the cases it did not start."""


FAIL_FAST_CASES = 3
"""A model's first this many cases to finish, all errored for the same lasting reason
(`runner.lasting_failure`: a refused key, an unknown model, an unreachable or silent gateway), stop
it: no further case of it is started. Each of those cases had its full retries; one such case
could be bad luck, three in a row with nothing else in between is the gateway telling every case
the same thing. Docs: methodology.md, "A run"."""


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def _open_manifest(directory: Path, suite: Suite, model: str, allow_newer_suite: bool = False) -> Manifest:
    fresh = Manifest(
        model=model,
        suite=ManifestSuite(name=suite.name, version=suite.version),
        lobrec_version=__version__,
        started_at=_now(),
    )
    if not (directory / MANIFEST).exists():
        return fresh
    old = load_manifest(directory)
    if old.model != model:
        raise CassetteError(f"{directory}/manifest.json: records model {old.model!r}, not {model!r}")
    if not same_major(old.suite.version, suite.version):
        raise VersionMismatch(
            f"{directory}: recorded on suite {old.suite.version}, the suite is {suite.version}; "
            "a new major version needs a new cassette directory"
        )
    problem = None if allow_newer_suite else newer_suite_problem(directory, old.suite.version, suite)
    if problem is not None:
        raise VersionMismatch(problem)
    return Manifest(
        model=model,
        suite=fresh.suite,
        lobrec_version=__version__,
        started_at=fresh.started_at,
        cases=dict(old.cases),
    )


def _select(suite: Suite, options: RecordOptions, directory: Path, manifest: Manifest) -> list[Case]:
    """The cases of one run folder this call records: `--case`, then `--missing`/`--retry-errored`."""
    cases = _named_cases(suite, options.case_ids)
    if not (options.missing or options.retry_errored):
        return cases
    errored = _errored_cases(suite, manifest, directory) if options.retry_errored else set()
    return [
        case
        for case in cases
        if case.id in errored or (options.missing and _needs_recording(suite, case, directory, manifest))
    ]


def _named_cases(suite: Suite, case_ids: list[str]) -> list[Case]:
    """The cases `--case` names (every case without it); an id the suite lacks is a ConfigError."""
    if not case_ids:
        return suite.cases
    unknown = sorted(set(case_ids) - {case.id for case in suite.cases})
    if unknown:
        raise ConfigError(f"no such case in suite {suite.version}: {', '.join(unknown)}")
    return [case for case in suite.cases if case.id in case_ids]


def _errored_cases(suite: Suite, manifest: Manifest, directory: Path) -> set[str]:
    """The cases whose cassette, replayed as it is, ends errored (the run cannot have judged them)."""
    replay = ReplayModel(model=manifest.model, directory=directory, manifest=manifest)
    return {case.id for case in suite.cases if replay.replay_case(suite, case).status == "errored"}


@dataclass(kw_only=True)
class PlannedRun:
    """One run of one model that this `record` call writes: its folder, manifest and cases."""

    model: str
    run: int
    directory: Path
    manifest: Manifest
    cases: list[Case]


def run_count(options: RecordOptions, model_dir: Path) -> int:
    """Runs this call looks at: `--repeat K`; with `--missing` or `--retry-errored`, also every run
    the folder already has, so those fill or retry them all."""
    existing = len(run_directories(model_dir))
    return max(options.repeat, existing) if options.missing or options.retry_errored else options.repeat


def plan(suite: Suite, options: RecordOptions) -> list[PlannedRun]:
    """What a `record` call will write, read from the folders as they are (nothing is written).

    With K > 1, a run that is already recorded (it has a manifest) is kept as it is, unless
    `--missing`, `--retry-errored` or `--case` ask for some of its cases: `--repeat` adds runs and
    never rewrites recorded ones. With K = 1 (the default), run 1 is recorded as always.
    """
    planned = []
    for model in options.models:
        model_dir = options.cassettes / model_dir_name(model)
        real_folder(model_dir, options.cassettes, CassetteError, create=False)
        for run in range(1, run_count(options, model_dir) + 1):
            directory = run_folder(model_dir, run)
            real_folder(directory, options.cassettes, CassetteError, create=False)
            selective = options.missing or options.retry_errored or bool(options.case_ids)
            if options.repeat > 1 and (directory / MANIFEST).exists() and not selective:
                continue
            manifest = _open_manifest(directory, suite, model, options.allow_newer_suite)
            planned.append(
                PlannedRun(
                    model=model,
                    run=run,
                    directory=directory,
                    manifest=manifest,
                    cases=_select(suite, options, directory, manifest),
                )
            )
    return planned


def replaced(suite: Suite, planned: PlannedRun) -> int:
    """How many of the cases `planned` records already have a fresh cassette there, which this
    run replaces (what `--missing` would have skipped)."""
    return sum(
        not _needs_recording(suite, case, planned.directory, planned.manifest) for case in planned.cases
    )


def _needs_recording(suite: Suite, case: Case, directory: Path, manifest: Manifest) -> bool:
    """No current recording: what rescore calls unrecorded or stale (a dangling link included)."""
    if not (directory / case_file_name(case.id)).exists():
        return True
    return recording_problem(manifest, directory, case.id, lambda: case_fingerprint(suite, case)) is not None


class _Writer:
    """The one thread that writes a run's files, in the order the cases finished.

    Each finished case asks for its cassette, then its model's manifest (which lists it); a
    manifest is skipped when a newer one of the same model is already queued, since that one lists
    this case too. So the manifest never lists a cassette not yet written, and many cases
    finishing together cost one manifest write. A write already asked for is done even if the run
    is cancelled meanwhile (`close` waits for them all).

    When a write fails (a full disk), whether a cassette's or a manifest's, the cassettes written
    since that model's manifest was last written are removed again, new files only (their manifest
    writes may have been skipped for the one that failed), and nothing more is written for that
    manifest: every later job of it fails with the same error, and the recorder leaves the last
    manifest written as it is. A folder never holds a whole cassette its manifest does not list,
    which rescore would call stale, at any concurrency.
    """

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lobrec-writer")
        self._newest: dict[Path, int] = {}
        self._unlisted: dict[Path, list[Path]] = {}
        """Per manifest, cassettes written since it was last written that did not exist before."""
        self.failed: dict[Path, OSError] = {}
        """Per manifest, the write that failed: nothing more is written for it."""
        self._lock = threading.Lock()
        self._mode = file_mode()

    async def save(self, cassette: Path, data: bytes, manifest: Path, listing: bytes) -> None:
        with self._lock:
            version = self._newest[manifest] = self._newest.get(manifest, 0) + 1
        job = asyncio.wrap_future(
            self._thread.submit(self._write, cassette, data, manifest, listing, version)
        )
        try:
            await asyncio.shield(job)
        except asyncio.CancelledError:
            # The write goes on; if it fails, nobody is left to hear it, so asyncio must not either.
            job.add_done_callback(lambda done: done.cancelled() or done.exception())
            raise

    def _write(self, cassette: Path, data: bytes, manifest: Path, listing: bytes, version: int) -> None:
        earlier = self.failed.get(manifest)
        if earlier is not None:
            raise OSError(earlier.errno, earlier.strerror, earlier.filename)
        unlisted = self._unlisted.setdefault(manifest, [])
        try:
            is_new = not os.path.lexists(cassette)
            write_atomic(cassette, data, self._mode)
            if is_new:
                unlisted.append(cassette)
            with self._lock:
                newest = self._newest[manifest] == version
            if newest:
                write_atomic(manifest, listing, self._mode)
                unlisted.clear()
        except OSError as exc:
            self.failed[manifest] = exc
            for path in unlisted:
                path.unlink(missing_ok=True)
            unlisted.clear()
            raise

    def close(self) -> None:
        self._thread.shutdown(wait=True)


@dataclass(kw_only=True)
class _Session:
    """What every case of one `record` call shares; each finished case is saved at once."""

    link: LiveLink
    writer: _Writer
    throttle: Throttle
    suite: Suite
    options: RecordOptions
    progress: Progress
    sleep: Sleep | None = None
    """How retries wait (None: really); `record_waiting_with` sets it, tests pass a recorder."""
    runs: dict[tuple[str, int], PlannedRun] = field(default_factory=dict)
    results: dict[str, dict[str, CaseResult]] = field(default_factory=dict)
    """Run 1's results per model (the results file of a one-run folder is built from them)."""
    recorded: dict[str, list[str]] = field(default_factory=dict)
    spent_usd: float = 0.0
    finished: int = 0
    """Cases of this call finished (their cost is in `spent_usd`): the budget's price of a case."""
    not_started: int = 0
    first_failures: dict[str, list[str]] = field(default_factory=dict)
    """Per model still on probation, the lasting reasons its first finished cases errored with."""
    settled: set[str] = field(default_factory=set)
    """Models past probation: a case of theirs finished without a lasting failure."""
    stopped: dict[str, str] = field(default_factory=dict)
    unstarted: dict[str, int] = field(default_factory=dict)
    in_flight: dict[str, int] = field(default_factory=dict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    """Notified whenever a case ends: cases waiting on a model's probation look again."""

    def fail_fast(self, model: str, result: CaseResult) -> None:
        """Stop starting `model`'s cases once its first `FAIL_FAST_CASES` all errored the same
        lasting way (any other outcome first clears it for good), and say so at once."""
        if model in self.settled or model in self.stopped:
            return
        reason = lasting_failure(result)
        seen = self.first_failures.setdefault(model, [])
        if reason is None or (seen and seen[0] != reason):
            self.settled.add(model)
            return
        seen.append(reason)
        if len(seen) >= FAIL_FAST_CASES:
            self.stopped[model] = f"{reason} ({result.reason})"
            self.progress.note(
                f"{model}: its first {len(seen)} cases all errored: {self.stopped[model]}; "
                "no more of its cases are started"
            )

    def budget(self) -> Literal["start", "wait", "stop"]:
        """Whether `--max-cost` lets one more case start now, the bound that keeps the spend within
        about one case's cost of the cap (docs/performance.md, "A budget"): a case starts only
        while the spend so far plus every case in flight and this one, each at the mean cost of the
        cases finished so far, stays within the cap. The first case runs alone, to price a case
        (until one is priced, one more runs per case finished); a case that would not fit waits
        for those in flight (they may cost less), and when none is left in flight it is not
        started."""
        cap = self.options.max_cost_usd
        if cap is None:
            return "start"
        if self.spent_usd >= cap:
            return "stop"
        flying = sum(self.in_flight.values())
        if not self.spent_usd:  # no price seen yet: one more in flight for each case finished
            return "start" if flying <= self.finished else "wait"
        estimate = self.spent_usd / self.finished
        if self.spent_usd + (flying + 1) * estimate <= cap:
            return "start"
        return "wait" if flying else "stop"

    def on_probation(self, model: str) -> bool:
        """A case of `model` errored for a lasting reason and none has shown otherwise yet."""
        return (
            model not in self.settled and model not in self.stopped and bool(self.first_failures.get(model))
        )

    async def record_case(self, model: str, run: int, case: Case) -> None:
        # While the model is on probation, a new case waits for those in flight to say whether it
        # stops (otherwise a wrong port costs a second round of retries); with none in flight it
        # starts, as the next probe.
        async with self.changed:
            await self.changed.wait_for(
                lambda: (
                    (not self.on_probation(model) or not self.in_flight.get(model, 0))
                    and (model in self.stopped or self.budget() != "wait")
                )
            )
            if model in self.stopped:
                self.unstarted[model] = self.unstarted.get(model, 0) + 1
                return
            if self.budget() == "stop":
                self.not_started += 1
                return
            self.in_flight[model] = self.in_flight.get(model, 0) + 1
        try:
            await self._record_case(model, run, case)
        finally:
            async with self.changed:
                self.in_flight[model] -= 1
                self.changed.notify_all()

    async def _record_case(self, model: str, run: int, case: Case) -> None:
        self.progress.started(model, case.id)
        planned = self.runs[(model, run)]
        directory = planned.directory
        cassette = new_for_recording(directory / case_file_name(case.id))
        result = await run_case(
            ThrottledExchange(self.link.recording_into(cassette), self.throttle, model),
            self.suite,
            case,
            model,
            policy=self.options.policy,
            sleep=self.sleep,
        )
        planned.manifest.cases[case.id] = ManifestCase(fingerprint=case_fingerprint(self.suite, case))
        data, listing = cassette_bytes(cassette), encode_pretty(planned.manifest)
        try:
            await self.writer.save(Path(cassette.path), data, directory / MANIFEST, listing)
        except asyncio.CancelledError:
            # Cancelled while the files were being written: they still are (see `_Writer`), so the
            # case counts as recorded, as its files will say.
            self._done(model, run, result)
            raise
        self._done(model, run, result)
        self.progress.finished(model, result)
        self.fail_fast(model, result)

    def _done(self, model: str, run: int, result: CaseResult) -> None:
        self.spent_usd += math.fsum(c.cost_usd for c in result.api_calls if c.cost_usd is not None)
        self.finished += 1
        if run == 1:
            self.results[model][result.id] = result
        self.recorded[model].append(result.id)


POOL_SIZE = 8
"""Connections per httpx pool. httpcore's pool looks at every connection it holds for each request
(a poll syscall for each idle one), so at concurrency 64 one pool spent more CPU than lobrec itself;
the link spreads requests over several small pools instead (`LiveLink`)."""


def _link(gateway: Gateway, options: RecordOptions) -> LiveLink:
    headers = {"accept-encoding": "identity", "user-agent": f"lobrec/{__version__}"}
    if gateway.api_key:
        headers["authorization"] = f"Bearer {gateway.api_key}"
    # A plain-http gateway (a loopback one: a key is never sent over http) never does TLS, so no CA
    # bundle is loaded (a third of the client's start-up); redirects are never followed.
    verify = urlsplit(gateway.chat_url).scheme != "http"
    concurrency = max(1, options.concurrency)
    count = -(-concurrency // POOL_SIZE)
    limits = httpx.Limits(max_connections=-(-concurrency // count))
    pools = [httpx.AsyncHTTPTransport(limits=limits, retries=0, verify=verify) for _ in range(count)]
    # The link's deadline covers the whole exchange; httpx's own timeouts (per read) would race it.
    return LiveLink(
        pools,
        gateway.chat_url,
        headers=headers,
        secrets=(gateway.api_key or "",),
        max_reply_bytes=options.max_reply_bytes,
        deadline_s=options.policy.timeout_s,
    )


async def record(
    suite: Suite, gateway: Gateway, options: RecordOptions, progress: Progress | None = None
) -> RecordOutcome:
    """Record the selected cases of every model live, then score the whole suite for each model."""
    return await record_waiting_with(None, suite, gateway, options, progress)


async def record_waiting_with(
    sleep: Sleep | None,
    suite: Suite,
    gateway: Gateway,
    options: RecordOptions,
    progress: Progress | None = None,
) -> RecordOutcome:
    """`record`, its retries waiting through `sleep` (tests pass a recorder so they never wait). A
    test hook, not a public option: `lobrec.record` is the API."""
    with contextlib.ExitStack() as locks:
        for model in options.models:
            locks.enter_context(writer_lock(options.cassettes / model_dir_name(model)))
        return await _record_locked(suite, gateway, options, progress, sleep)


async def _record_locked(
    suite: Suite, gateway: Gateway, options: RecordOptions, progress: Progress | None, sleep: Sleep | None
) -> RecordOutcome:
    writer = _Writer()
    async with _link(gateway, options) as link:
        session = _Session(
            link=link,
            writer=writer,
            throttle=Throttle(ceiling=max(1, options.concurrency), adaptive=options.adaptive),
            suite=suite,
            options=options,
            progress=progress or Progress(),
            sleep=sleep,
        )
        queue = _queue(session)
        jobs = [functools.partial(session.record_case, model, run, case) for model, run, case in queue]
        try:
            completed = await run_jobs(jobs, options.concurrency)
        finally:
            writer.close()
    _close_manifests(session, completed)
    return RecordOutcome(
        run=await _results(suite, options, session),
        recorded=session.recorded,
        interrupted=not completed,
        throttle=session.throttle,
        spent_usd=session.spent_usd,
        not_started=session.not_started,
        stopped=session.stopped,
        unstarted=session.unstarted,
    )


def _queue(session: _Session) -> list[tuple[str, int, Case]]:
    """Every (model, run, case) to record, in the order to start them; each planned run folder is
    made and its manifest written first, and the progress told what is planned."""
    options = session.options
    for model in options.models:
        session.results[model] = {}
        session.recorded[model] = []
    queue: list[tuple[str, int, Case]] = []
    for planned in plan(session.suite, options):
        if not planned.cases:  # nothing to record: its files, manifest included, stay as they are
            continue
        session.runs[(planned.model, planned.run)] = planned
        real_folder(planned.directory, options.cassettes, CassetteError)
        save_manifest(planned.directory, planned.manifest)
        queue.extend((planned.model, planned.run, case) for case in planned.cases)
    # Run by run, longest cases first: a 4-step chain started last would end the run 3 round
    # trips after the rest (the benchmark's live run at concurrency 16 took 8 round trips
    # instead of 7); and a case's run n starts after its run n - 1 did.
    queue.sort(key=lambda item: (item[1], -len(item[2].steps)))
    session.progress.planned(len(queue))
    per_model = {model: 0 for model in options.models}
    for model, _, _ in queue:
        per_model[model] += 1
    session.progress.planned_models(per_model)
    return queue


def _close_manifests(session: _Session, completed: bool) -> None:
    """Write each run's manifest a last time (finished, when the run completed)."""
    for planned in session.runs.values():
        if planned.directory / MANIFEST in session.writer.failed:
            continue  # the last manifest written lists exactly the cassettes left (`_Writer`)
        if completed:
            planned.manifest.finished_at = _now()
        save_manifest(planned.directory, planned.manifest)


async def _results(suite: Suite, options: RecordOptions, session: _Session) -> RunResult:
    """The whole suite for every model: one-run folders from this run's judgements plus replay of
    the cases not run now; a folder with several runs is re-read as `rescore` reads it, so record's
    results file always equals rescore's."""
    model_dirs = [options.cassettes / model_dir_name(model) for model in options.models]
    if any(len(run_directories(directory)) > 1 for directory in model_dirs):
        return (await rescore_directories(suite, model_dirs, allow_newer_suite=True)).run
    results = session.results
    replays = []
    for model, directory in zip(options.models, model_dirs, strict=True):
        planned = session.runs.get((model, 1))
        if planned is not None:  # the manifest this run has just written, cases judged live above
            replay = ReplayModel(model=model, directory=directory, manifest=planned.manifest)
        else:  # a folder this call did not write: read as every reader reads one
            replay = open_cassette_folders(suite, [directory], allow_newer_suite=True)[0]
        replays.append(replay)
        for case in suite.cases:
            if case.id not in results[model]:
                results[model][case.id] = replay.replay_case(suite, case)
                await asyncio.sleep(0)  # replay never waits: here a signal handler (Ctrl-C) may run
    run = build_run_result(suite, {model: list(results[model].values()) for model in options.models})
    return with_provenance(run, suite, replays)

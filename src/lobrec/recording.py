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
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from lobrec import __version__
from lobrec.cassettes import (
    MANIFEST,
    Manifest,
    ManifestCase,
    ManifestSuite,
    case_file_name,
    case_fingerprint,
    encode_pretty,
    file_mode,
    load_manifest,
    model_dir_name,
    save_manifest,
    write_atomic,
    writer_lock,
)
from lobrec.core.results import CaseResult, RunResult
from lobrec.core.suite import Case, Suite
from lobrec.errors import CassetteError, ConfigError, VersionMismatch
from lobrec.gateway import Gateway
from lobrec.replay import ReplayModel, build_run_result
from lobrec.runner import Progress, RetryPolicy, Sleep, run_case, run_jobs
from lobrec.throttle import Throttle, ThrottledExchange
from lobrec.transport import MAX_REPLY_BYTES, LiveLink, cassette_bytes, new_for_recording


@dataclass(kw_only=True)
class RecordOptions:
    models: list[str]
    cassettes: Path = Path("cassettes")
    case_ids: list[str] = field(default_factory=list)
    missing: bool = False
    concurrency: int = 8
    adaptive: bool = True
    """Fewer requests in flight on 429/503 answers, more as calls succeed (`lobrec.throttle`)."""
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    max_reply_bytes: int = MAX_REPLY_BYTES
    sleep: Sleep | None = None
    """How retries wait; tests pass a recorder so they never wait."""


@dataclass(kw_only=True)
class RecordOutcome:
    run: RunResult
    recorded: dict[str, list[str]]
    """Per model, the ids of the cases recorded by this run."""
    interrupted: bool
    throttle: Throttle | None = None
    """How the requests in flight adapted (None when nothing was recorded)."""


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def _open_manifest(directory: Path, suite: Suite, model: str) -> Manifest:
    fresh = Manifest(
        model=model,
        suite=ManifestSuite(name=suite.name, version=suite.version),
        lobrec_version=__version__,
        started_at=_now(),
    )
    if not (directory / "manifest.json").exists():
        return fresh
    old = load_manifest(directory)
    if old.model != model:
        raise CassetteError(f"{directory}/manifest.json: records model {old.model!r}, not {model!r}")
    if old.suite.version.split(".")[0] != suite.version.split(".")[0]:
        raise VersionMismatch(
            f"{directory}: recorded on suite {old.suite.version}, the suite is {suite.version}; "
            "a new major version needs a new cassette directory"
        )
    return Manifest(
        model=model,
        suite=fresh.suite,
        lobrec_version=__version__,
        started_at=fresh.started_at,
        cases=dict(old.cases),
    )


def _select(suite: Suite, options: RecordOptions, directory: Path, manifest: Manifest) -> list[Case]:
    cases = suite.cases
    if options.case_ids:
        unknown = sorted(set(options.case_ids) - {case.id for case in suite.cases})
        if unknown:
            raise ConfigError(f"no such case in suite {suite.version}: {', '.join(unknown)}")
        cases = [case for case in cases if case.id in options.case_ids]
    if options.missing:
        cases = [case for case in cases if _needs_recording(suite, case, directory, manifest)]
    return cases


def _needs_recording(suite: Suite, case: Case, directory: Path, manifest: Manifest) -> bool:
    entry = manifest.cases.get(case.id)
    if not (directory / case_file_name(case.id)).exists() or entry is None:
        return True
    return entry.fingerprint != case_fingerprint(suite, case)


class _Writer:
    """The one thread that writes a run's files, in the order the cases finished.

    Each finished case asks for its cassette, then its model's manifest (which lists it); a
    manifest is skipped when a newer one of the same model is already queued, since that one lists
    this case too. So the manifest never lists a cassette not yet written, and many cases
    finishing together cost one manifest write. A write already asked for is done even if the run
    is cancelled meanwhile (`close` waits for them all).
    """

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lobrec-writer")
        self._newest: dict[Path, int] = {}
        self._lock = threading.Lock()
        self._mode = file_mode()

    async def save(self, cassette: Path, data: bytes, manifest: Path, listing: bytes) -> None:
        with self._lock:
            version = self._newest[manifest] = self._newest.get(manifest, 0) + 1
        job = self._thread.submit(self._write, cassette, data, manifest, listing, version)
        await asyncio.shield(asyncio.wrap_future(job))

    def _write(self, cassette: Path, data: bytes, manifest: Path, listing: bytes, version: int) -> None:
        write_atomic(cassette, data, self._mode)
        with self._lock:
            newest = self._newest[manifest] == version
        if newest:
            write_atomic(manifest, listing, self._mode)

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
    directories: dict[str, Path] = field(default_factory=dict)
    manifests: dict[str, Manifest] = field(default_factory=dict)
    results: dict[str, dict[str, CaseResult]] = field(default_factory=dict)
    recorded: dict[str, list[str]] = field(default_factory=dict)

    async def record_case(self, model: str, case: Case) -> None:
        self.progress.started(model, case.id)
        directory = self.directories[model]
        cassette = new_for_recording(directory / case_file_name(case.id))
        result = await run_case(
            ThrottledExchange(self.link.recording_into(cassette), self.throttle, model),
            self.suite,
            case,
            model,
            policy=self.options.policy,
            sleep=self.options.sleep,
        )
        self.manifests[model].cases[case.id] = ManifestCase(fingerprint=case_fingerprint(self.suite, case))
        data, listing = cassette_bytes(cassette), encode_pretty(self.manifests[model])
        try:
            await self.writer.save(Path(cassette.path), data, directory / MANIFEST, listing)
        except asyncio.CancelledError:
            # Cancelled while the files were being written: they still are (see `_Writer`), so the
            # case counts as recorded, as its files will say.
            self._done(model, result)
            raise
        self._done(model, result)
        self.progress.finished(model, result)

    def _done(self, model: str, result: CaseResult) -> None:
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
    with contextlib.ExitStack() as locks:
        for model in options.models:
            locks.enter_context(writer_lock(options.cassettes / model_dir_name(model)))
        return await _record_locked(suite, gateway, options, progress)


async def _record_locked(
    suite: Suite, gateway: Gateway, options: RecordOptions, progress: Progress | None
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
        )
        queue: list[tuple[str, Case]] = []
        for model in options.models:
            directory = options.cassettes / model_dir_name(model)
            session.directories[model] = directory
            session.manifests[model] = _open_manifest(directory, suite, model)
            session.results[model] = {}
            session.recorded[model] = []
            save_manifest(directory, session.manifests[model])
            queue.extend(
                (model, case) for case in _select(suite, options, directory, session.manifests[model])
            )
        # Longest cases first: a 4-step chain started last would end the run 3 round trips after the
        # rest (the benchmark's live run at concurrency 16 took 8 round trips instead of 7).
        queue.sort(key=lambda item: -len(item[1].steps))
        session.progress.planned(len(queue))
        jobs = [functools.partial(session.record_case, model, case) for model, case in queue]
        try:
            completed = await run_jobs(jobs, options.concurrency)
        finally:
            writer.close()

    for model in options.models:
        if completed:
            session.manifests[model].finished_at = _now()
        save_manifest(session.directories[model], session.manifests[model])

    results = session.results
    for model in options.models:
        replay = ReplayModel(
            model=model, directory=session.directories[model], manifest=session.manifests[model]
        )
        for case in suite.cases:
            if case.id not in results[model]:
                results[model][case.id] = await replay.replay_case(suite, case)
    run = build_run_result(suite, {model: list(results[model].values()) for model in options.models})
    return RecordOutcome(
        run=run, recorded=session.recorded, interrupted=not completed, throttle=session.throttle
    )

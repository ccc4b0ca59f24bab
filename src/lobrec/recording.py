"""Live mode: run the suite against the gateway and record every exchange into cassettes.

Each case of each model runs in its own task with its own cassette; a cassette is saved (atomically)
only when its case has finished, scored or errored, and the model's manifest right after it. An
interrupted run therefore leaves whole cassettes for finished cases and nothing for the rest, and
`--missing` resumes it. Cases not run now (`--case`, `--missing`) are scored from their existing
cassettes through replay, so the results always cover the whole suite.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from lobrec import __version__
from lobrec.cassettes import (
    Manifest,
    ManifestCase,
    ManifestSuite,
    case_file_name,
    case_fingerprint,
    load_manifest,
    model_dir_name,
    save_manifest,
    writer_lock,
)
from lobrec.core.results import CaseResult, RunResult
from lobrec.core.suite import Case, Suite
from lobrec.errors import CassetteError, ConfigError, VersionMismatch
from lobrec.gateway import Gateway
from lobrec.replay import ReplayModel, build_run_result
from lobrec.runner import Progress, RetryPolicy, Sleep, run_case, run_jobs
from lobrec.transport import MAX_REPLY_BYTES, LiveLink, new_for_recording, save


@dataclass(kw_only=True)
class RecordOptions:
    models: list[str]
    cassettes: Path = Path("cassettes")
    case_ids: list[str] = field(default_factory=list)
    missing: bool = False
    concurrency: int = 8
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


@dataclass(kw_only=True)
class _Session:
    """What every case of one `record` call shares; each finished case is saved at once."""

    link: LiveLink
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
            self.link.recording_into(cassette),
            self.suite,
            case,
            model,
            policy=self.options.policy,
            sleep=self.options.sleep,
        )
        save(cassette)
        self.manifests[model].cases[case.id] = ManifestCase(fingerprint=case_fingerprint(self.suite, case))
        save_manifest(directory, self.manifests[model])
        self.results[model][case.id] = result
        self.recorded[model].append(case.id)
        self.progress.finished(model, result)


def _link(gateway: Gateway, options: RecordOptions) -> LiveLink:
    headers = {"accept-encoding": "identity", "user-agent": f"lobrec/{__version__}"}
    if gateway.api_key:
        headers["authorization"] = f"Bearer {gateway.api_key}"
    pool = httpx.AsyncHTTPTransport(
        limits=httpx.Limits(max_connections=max(1, options.concurrency)), retries=0
    )
    # The link's deadline covers the whole exchange; httpx's own timeouts (per read) would race it.
    return LiveLink(
        pool,
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
    async with _link(gateway, options) as link:
        session = _Session(link=link, suite=suite, options=options, progress=progress or Progress())
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
        jobs = [functools.partial(session.record_case, model, case) for model, case in queue]
        completed = await run_jobs(jobs, options.concurrency)

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
    return RecordOutcome(run=run, recorded=session.recorded, interrupted=not completed)

"""What a model folder's manifest must say, and what a case's recording depends on.

The rules every reader applies to a manifest (replay errors the folder's cases with them, `lobrec
audit` reports them, recording refuses to add to a folder that breaks them) live here once: its
model must own the folder it is in, its suite version must be a version of the same major version
as the judging suite, and each case's fingerprint says whether its recording is still current.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from lobrec import files
from lobrec.cassette.format import (
    MAX_MANIFEST_BYTES,
    Manifest,
    decode_manifest,
    encode_pretty,
    encoded,
    read_capped,
)
from lobrec.cassette.layout import MANIFEST, case_file_name, is_case_id, model_dir_name
from lobrec.core.suite.format import SEMVER, Case, Suite, version_order
from lobrec.errors import ConfigError


class SuiteVersion(Protocol):
    """A suite or a reference to one (`Suite`, `SuiteRef`): what the version rules read."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...


def load_manifest(directory: Path) -> Manifest:
    path = directory / MANIFEST
    return decode_manifest(read_capped(path, MAX_MANIFEST_BYTES), path)


def save_manifest(directory: Path, manifest: Manifest) -> None:
    files.write_atomic(directory / MANIFEST, encode_pretty(manifest))


def same_major(recorded: str, judging: str) -> bool:
    """Cassettes recorded on suite `recorded` can be re-judged with suite `judging`: one major version."""
    return recorded.split(".")[0] == judging.split(".")[0]


def newer_suite_problem(where: Path, recorded: str, suite: SuiteVersion) -> str | None:
    """Why cassettes recorded with suite version `recorded` must not be judged with `suite` silently:
    a newer suite may have cases, requests or checks this one lacks, so the scores would differ
    without a word. None when `recorded` is not newer, or when either is not a version to order (a
    run refuses such a suite, a manifest such a recording: only a hand-made results file holds
    one). One rule for rescore, diff and record."""
    if not (SEMVER.match(suite.version) and SEMVER.match(recorded)):
        return None
    old, new = version_order(suite.version), version_order(recorded)
    if new[0] != old[0] or new <= old:  # another major version is never re-judged: errored, not refused
        return None
    return (
        f"{where}: recorded with suite {suite.name} {recorded}, newer than the judging suite "
        f"{suite.version}; judge it with that suite (--suite FILE) or pass --allow-newer-suite"
    )


@dataclass(frozen=True)
class ManifestProblem:
    """A manifest rule broken, worded for both readers: replay errors every case of the folder
    with `reason` (None: replay reads the folder anyway); `lobrec audit` reports `finding` at
    `field` (a JSON path, or "")."""

    kind: Literal["model", "owner", "version", "major", "case id"]
    """`major`: recorded on another major version of the suite (a readable recording, judged by
    another suite: `--suite FILE` of that version judges it); `version`: not a version at all."""
    reason: str | None
    finding: str
    field: str = ""


def manifest_problems(
    manifest: Manifest, directory: Path, owner: str, suite: SuiteVersion | None
) -> list[ManifestProblem]:
    """Every rule `manifest` (read from `directory`) breaks, in the order replay checks them.

    `owner` is the model folder's name, which the manifest's model must encode to; `suite` is the
    judging suite (None: no suite to compare with, as `lobrec audit` without one).
    """
    path = directory / MANIFEST
    problems = []
    try:
        expected: str | None = model_dir_name(manifest.model)
    except ConfigError as exc:
        expected = None
        problems.append(ManifestProblem("model", f"{path}: {exc}", str(exc), "$.model"))
    if expected is not None and expected != owner:
        problems.append(
            ManifestProblem(
                "owner",
                f"{path}: model {manifest.model!r} does not belong in this directory",
                f"model {manifest.model!r} does not belong in directory {owner!r} (expected {expected!r})",
            )
        )
    recorded = manifest.suite
    if not SEMVER.match(recorded.version):
        problems.append(
            ManifestProblem(
                "version",
                f"{path}: suite version {recorded.version!r} is not a version",
                f"{recorded.version!r} is not a suite version",
                "$.suite.version",
            )
        )
    elif suite is not None and not same_major(recorded.version, suite.version):
        problems.append(
            ManifestProblem(
                "major",
                f"{directory}: recorded on suite {recorded.name} {recorded.version}, the suite is "
                f"{suite.name} {suite.version}: another major version cannot be re-judged",
                f"recorded on suite {recorded.version}; another major version cannot be re-judged",
                "$.suite.version",
            )
        )
    problems.extend(
        ManifestProblem(
            "case id", None, "not a case id that can name a cassette file", f"$.cases[{case_id!r}]"
        )
        for case_id in manifest.cases
        if not is_case_id(case_id)
    )
    return problems


def file_present(path: Path) -> bool:
    """The folder holds a file of that name (a dangling link counts: it is a cassette that cannot be read)."""
    return path.exists() or path.is_symlink()


def recording_problem(
    manifest: Manifest | None,
    directory: Path,
    case_id: str,
    fingerprint: Callable[[], str],
    present: Callable[[Path], bool] = file_present,
) -> tuple[Literal["unrecorded", "stale"], str] | None:
    """Why the cassette of `case_id` in `directory` is not a current recording, or None: there is
    none (`present`, `file_present` unless the caller knows the folder's names), the manifest does
    not list it, or it was recorded from other content (`fingerprint()`, asked only then, is the
    case's `case_fingerprint` now)."""
    path = directory / case_file_name(case_id)
    if not present(path):
        return "unrecorded", "no cassette"
    entry = manifest.cases.get(case_id) if manifest else None
    if entry is None:
        return "stale", f"{path}: not listed in the manifest"
    if entry.fingerprint != fingerprint():
        return "stale", "the case's messages, tools or scripted results changed since it was recorded"
    return None


def case_fingerprint(suite: Suite, case: Case) -> str:
    """A hash of everything a case sends: messages, offered tools, scripted tool results.

    Checks and reference answers are left out on purpose: changing a check re-judges a recording,
    it does not invalidate it.
    """
    content = {
        "messages": case.messages,
        "tools": suite.offered_tools(case),
        "results": [[call.result for call in getattr(step, "calls", [])] for step in case.steps],
    }
    return "sha256:" + hashlib.sha256(encoded(content)).hexdigest()


def suite_fingerprint(suite: Suite) -> str:
    """A hash of the whole decoded suite (checks included), for the results file's provenance: two
    files that decode to the same suite share it, whatever their whitespace or key order."""
    return "sha256:" + hashlib.sha256(encoded(suite)).hexdigest()

"""A full disk while recording: one line naming the file, exit 2, only whole files left.

As root a read-only folder does not stop a write, so the failure is simulated: `os.fsync` (which
`write_atomic` calls for every cassette and manifest, on the recorder's writer thread too) raises
`OSError(ENOSPC)` from its N-th call on, as a disk that filled up partway through the run would.
`lobrec record` runs in-process (typer's CliRunner) against the e2e fake gateway process, the
small suite, `--concurrency 1` so that the N-th write is always the same file: the manifest first,
then each case's cassette and the manifest listing it, in the order the recorder runs the cases
(longest first), then the manifest again with the run's end time.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cassette.audit import audit
from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.layout import MANIFEST, model_dir_name
from lobrec.cassette.manifest import load_manifest
from lobrec.cli import app
from lobrec.core.suite.format import Suite
from lobrec.suite_file import load_suite
from tests.support.cli import cli_env

MODEL = "fixture/oracle"
NO_SPACE = "No space left on device"


class FullDisk:
    """`os.fsync` failing with ENOSPC from its `fail_at`-th call on, until `full` is cleared."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at = fail_at
        self.calls = 0
        self.full = True
        self._fsync = os.fsync

    def __call__(self, fd: int) -> None:
        self.calls += 1
        if self.full and self.calls >= self.fail_at:
            raise OSError(errno.ENOSPC, NO_SPACE)
        self._fsync(fd)


def full_disk(monkeypatch: pytest.MonkeyPatch, fail_at: int) -> FullDisk:
    """Make the disk fill at the `fail_at`-th write (`os.fsync` is restored after the test)."""
    disk = FullDisk(fail_at)
    monkeypatch.setattr(os, "fsync", disk)
    return disk


def _writes(suite: Suite, directory: Path) -> list[Path]:
    """The files `record --concurrency 1` writes, in order (see the module's docstring)."""
    order = sorted(suite.cases, key=lambda case: -len(case.steps))
    files = [directory / MANIFEST]
    for case in order:
        files += [directory / f"{case.id}.json", directory / MANIFEST]
    return [*files, directory / MANIFEST]


def _case_ids(files: list[Path]) -> set[str]:
    return {path.name.removesuffix(".json") for path in files if path.name != MANIFEST}


def _record(gateway: Any, cassettes: Path, *extra: str) -> Any:
    return _record_at(gateway, cassettes, "1", *extra)


def _record_at(gateway: Any, cassettes: Path, concurrency: str, *extra: str) -> Any:
    args = ["record", "--model", MODEL, "--base-url", gateway.url, "--suite", str(gateway.suite_path)]
    args += ["--cassettes", str(cassettes), "--concurrency", concurrency, "--retry-delays", "0", *extra]
    return CliRunner().invoke(app, args)


def _whole(directory: Path) -> tuple[set[str], set[str]]:
    """The cases with a cassette and the cases the manifest lists; every file must decode."""
    assert [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] == []  # nothing partial
    present = {p.name.removesuffix(".json") for p in directory.glob("*.json") if p.name != MANIFEST}
    for case_id in present:
        load_cassette_file(directory / f"{case_id}.json")
    listed = set(load_manifest(directory).cases) if (directory / MANIFEST).exists() else set()
    return present, listed


FAIL_AT = [
    ("the first manifest", 1),
    ("the first cassette", 2),
    ("a manifest partway", 5),
    ("a cassette partway", 6),
    ("the last manifest", 12),
]


@pytest.mark.parametrize("fail_at", [row[1] for row in FAIL_AT], ids=[row[0] for row in FAIL_AT])
def test_a_full_disk_while_recording_is_one_line_and_leaves_only_whole_files(
    tmp_path: Path, fake_gateway: Any, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    suite = load_suite(fake_gateway.suite_path)
    cassettes = tmp_path / "cassettes"
    directory = cassettes / model_dir_name(MODEL)
    writes = _writes(suite, directory)
    assert len(writes) == 12
    disk = full_disk(monkeypatch, fail_at)

    result = _record(fake_gateway, cassettes)

    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"lobrec: {writes[fail_at - 1]}: {NO_SPACE}; nothing partial was left behind\n"
    present, listed = _whole(directory) if directory.is_dir() else (set(), set())
    written = writes[: fail_at - 1]
    last_manifest = max((i for i, path in enumerate(written) if path.name == MANIFEST), default=-1)
    assert listed == _case_ids(written[:last_manifest])  # what the last manifest written lists,
    assert listed <= present <= _case_ids(written)  # each with its cassette, whole; nothing else

    # Space again: `--missing` records what is missing and the folder is complete and clean.
    disk.full = False
    resumed = _record(fake_gateway, cassettes, "--missing", "--json", str(tmp_path / "results.json"))
    assert resumed.exit_code == 0, resumed.stderr
    assert _whole(directory) == ({case.id for case in suite.cases},) * 2
    assert audit(cassettes) == []
    results = json.loads((tmp_path / "results.json").read_bytes())
    assert {case["status"] for case in results["models"][0]["cases"]} == {"scored"}


def test_a_full_disk_leaves_no_cassette_the_manifest_does_not_list(
    tmp_path: Path, fake_gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills at the manifest listing the first case: its cassette was written whole, but
    nothing lists it (rescore would call it stale, audit "not listed")."""
    cassettes = tmp_path / "cassettes"
    directory = cassettes / model_dir_name(MODEL)
    full_disk(monkeypatch, 3)

    result = _record(fake_gateway, cassettes)

    assert result.exit_code == 2
    present, listed = _whole(directory)
    assert present == listed


SLOW_FULL_DISK = """
import errno, os, sys, time
fail_at, calls, fsync = int(sys.argv[1]), [0], os.fsync
def full(fd):
    calls[0] += 1
    time.sleep(0.2)
    if calls[0] >= fail_at:
        raise OSError(errno.ENOSPC, "No space left on device")
    fsync(fd)
os.fsync = full
sys.argv = ["lobrec", *sys.argv[2:]]
from lobrec.cli import app
app()
"""


def test_a_full_disk_with_writes_queued_prints_only_one_line(tmp_path: Path, fake_gateway: Any) -> None:
    """The real command, writes slowed to 0.2 s so that every case is queued for the writer when
    the third write fails: stderr holds the one line and nothing else."""
    cassettes = tmp_path / "cassettes"
    args = [
        "record",
        "--model",
        MODEL,
        "--base-url",
        fake_gateway.url,
        "--suite",
        str(fake_gateway.suite_path),
    ]
    args += ["--cassettes", str(cassettes), "--retry-delays", "0"]

    done = subprocess.run(
        [sys.executable, "-c", SLOW_FULL_DISK, "3", *args],
        capture_output=True,
        env=cli_env(),
        timeout=120,
        check=False,
    )

    lines = done.stderr.decode().splitlines()
    assert done.returncode == 2
    assert len(lines) == 1, lines[:8]
    assert lines[0].startswith(f"lobrec: {cassettes / model_dir_name(MODEL)}/")
    assert lines[0].endswith(f": {NO_SPACE}; nothing partial was left behind")


class SlowFullDisk(FullDisk):
    """As FullDisk, each write slowed down so the cases finishing meanwhile queue theirs behind it."""

    def __call__(self, fd: int) -> None:
        time.sleep(0.05)
        super().__call__(fd)


@pytest.mark.parametrize("fail_at", list(range(2, 12)), ids=[f"write {n}" for n in range(2, 12)])
def test_a_full_disk_at_concurrency_4_leaves_every_whole_cassette_listed(
    tmp_path: Path, fake_gateway: Any, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    """Issue 25, defect 6: with writes queued, a case skips its manifest write when a newer one is
    queued; when that newer one failed, the earlier cassettes were left whole and unlisted. At any
    write the disk fills, the folder holds exactly the cassettes its manifest lists."""
    cassettes = tmp_path / "cassettes"
    directory = cassettes / model_dir_name(MODEL)
    disk = SlowFullDisk(fail_at)
    monkeypatch.setattr(os, "fsync", disk)
    result = _record_at(fake_gateway, cassettes, "4")

    present, listed = _whole(directory)
    assert present == listed
    if disk.calls < fail_at:  # the manifest writes skipped left fewer writes than that: no failure
        assert result.exit_code == 0 and len(listed) == len(load_suite(fake_gateway.suite_path).cases)
        return
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.endswith(f": {NO_SPACE}; nothing partial was left behind\n")

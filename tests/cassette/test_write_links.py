"""Writing never follows a link (issue 25, defect 1).

A symlink is planted at every path `lobrec record` writes or locks below `--cassettes` (the model
folder, its `.lock`, its manifest and cassettes, `runs/`, a run folder and its files), and at every
output path (`--json`, `--markdown`, `--html`, `--csv`, `--jsonl`, `--junit`, `--summary`), pointing
at a file, at a folder, and at nothing. Whatever the command does, the link's target is untouched:
either the command refuses in one line naming the path (exit 2), or the name was replaced by a
regular file of lobrec's own (a rename replaces a link, it never writes through it), or left alone
(`--repeat` keeps a recorded run as it is).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cassette.layout import LOCK, model_dir_name
from lobrec.cassette.locks import writer_lock
from lobrec.cli import app
from lobrec.cli._exits import Exit
from lobrec.errors import CassetteError, LobrecError
from lobrec.files import append_output, check_output

MODEL = "fixture/oracle"
PRECIOUS = b"precious: lobrec must never write here\n"

# (name, path below the cassettes folder, what lobrec writes there: "file" or "folder")
CASSETTE_PATHS = [
    ("model folder", "{m}", "folder"),
    ("lock file", "{m}/.lock", "file"),
    ("manifest", "{m}/manifest.json", "file"),
    ("cassette", "{m}/{case}.json", "file"),
    ("runs folder", "{m}/runs", "folder"),
    ("run folder", "{m}/runs/2", "folder"),
    ("run manifest", "{m}/runs/2/manifest.json", "file"),
    ("run cassette", "{m}/runs/2/{case}.json", "file"),
]
TARGETS = ["a file", "a folder", "nothing"]
OUTPUTS = ["--json", "--markdown", "--html", "--csv", "--jsonl", "--junit", "--summary"]


def _plant(link: Path, outside: Path, target: str) -> Path:
    """A symlink at `link` to a precious file, a folder holding one, or a path that does not exist."""
    outside.mkdir(exist_ok=True)
    (outside / "precious.txt").write_bytes(PRECIOUS)
    destination = {"a file": outside / "precious.txt", "a folder": outside, "nothing": outside / "gone"}[
        target
    ]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(destination)
    return destination


def _untouched(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]
    assert (outside / "precious.txt").read_bytes() == PRECIOUS


def _record(gateway: Any, cassettes: Path, *extra: str) -> Any:
    args = ["record", "--model", MODEL, "--base-url", gateway.url, "--suite", str(gateway.suite_path)]
    args += ["--cassettes", str(cassettes), "--retry-delays", "0", *extra]
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize(
    ("where", "target"),
    [(row, target) for row in CASSETTE_PATHS for target in TARGETS],
    ids=[f"{row[0]} to {target}" for row in CASSETTE_PATHS for target in TARGETS],
)
def test_record_never_writes_through_a_link_below_the_cassettes_folder(
    tmp_path: Path, fake_gateway: Any, where: tuple[str, str, str], target: str
) -> None:
    _, template, _ = where
    cassettes = tmp_path / "cassettes"
    cassettes.mkdir()
    link = cassettes / template.format(m=model_dir_name(MODEL), case="sel-01")
    outside = tmp_path / "outside"
    destination = _plant(link, outside, target)

    result = _record(fake_gateway, cassettes, "--repeat", "2")

    _untouched(outside)
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("lobrec: ")
        assert str(link) in result.stderr and "symlink" in result.stderr
        assert not any(p.name.endswith(".tmp") for p in cassettes.rglob("*"))
    elif result.exit_code == Exit.ERRORED:  # a link left alone errors the cases that need it, by name
        assert os.readlink(link) == str(destination)
        assert f"{link}: is a symlink" in result.stderr and "gate failed: errored cases" in result.stderr
    else:  # the name was replaced by lobrec's own regular file, or left alone (a run kept as it is)
        assert result.exit_code == 0, result.stderr
        assert link.is_file() if not link.is_symlink() else os.readlink(link) == str(destination)


def test_a_committed_lock_symlink_never_truncates_its_target(tmp_path: Path) -> None:
    """The report's example: `.lock -> ~/.bashrc` was truncated, given the pid, and the link removed."""
    directory = tmp_path / "cassettes" / model_dir_name(MODEL)
    outside = tmp_path / "home"
    _plant(directory / LOCK, outside, "a file")

    with pytest.raises(CassetteError) as info, writer_lock(directory):
        pass

    assert str(info.value) == (
        f"{directory / LOCK}: is a symlink; lobrec never writes through a link (remove it)"
    )
    _untouched(outside)
    assert (directory / LOCK).is_symlink()  # left as it was, for the user to look at


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory, fake_gateway_process: Any) -> Path:
    cassettes = tmp_path_factory.mktemp("recording") / "cassettes"
    result = _record(fake_gateway_process, cassettes)
    assert result.exit_code == 0, result.stderr
    return cassettes


@pytest.mark.parametrize(
    ("option", "target"),
    [(option, target) for option in OUTPUTS for target in TARGETS],
    ids=[f"{option} to {target}" for option in OUTPUTS for target in TARGETS],
)
def test_an_output_path_that_is_a_symlink_is_refused_in_one_line(
    tmp_path: Path, recording: Path, small_suite_path: Path, option: str, target: str
) -> None:
    link = tmp_path / "report.out"
    outside = tmp_path / "outside"
    _plant(link, outside, target)

    args = ["rescore", str(recording), "--suite", str(small_suite_path), option, str(link)]
    result = CliRunner().invoke(app, args)

    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        2,
        f"lobrec: {link}: is a symlink; lobrec does not write a report through a link "
        "(give the file it points to, or - for stdout)",
    )
    _untouched(outside)
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["FIFO", "device"], ids=["FIFO", "device"])
def test_an_output_path_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path, kind: str) -> None:
    if kind == "FIFO":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = Path("/dev/null")
    with pytest.raises(LobrecError) as info:
        check_output(path, LobrecError)
    assert str(info.value) == f"{path}: not a regular file; give a file name, or - for stdout"
    with pytest.raises(LobrecError) as appended:  # never blocks on the FIFO
        append_output(path, b"x", LobrecError)
    assert str(appended.value) == f"{path}: not a regular file; give a file name, or - for stdout"


def test_appending_to_a_job_summary_keeps_what_was_there_and_refuses_a_link(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary"
    summary.write_bytes(b"earlier step\n")
    append_output(summary, b"lobrec\n", LobrecError)
    assert summary.read_bytes() == b"earlier step\nlobrec\n"
    link = tmp_path / "link"
    outside = tmp_path / "outside"
    _plant(link, outside, "a file")
    with pytest.raises(LobrecError) as info:
        append_output(link, b"x", LobrecError)
    assert str(info.value) == (
        f"{link}: is a symlink; lobrec does not write a report through a link "
        "(give the file it points to, or - for stdout)"
    )
    _untouched(outside)

"""The lock rule holds for every command that reads a cassette folder: while a `lobrec record` of
another process writes a model folder, `rescore`, `diff` and `audit` of it refuse in one line with
exit 4 (incomplete for now), instead of judging or auditing half a run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app

pytestmark = pytest.mark.process  # another process holds the folder

REPO = Path(__file__).resolve().parents[2]
HOLD = """
import sys
from pathlib import Path
from lobrec.cassette.locks import writer_lock
with writer_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """Two fixture model folders, the oracle's held by a writer in another process (its pid)."""
    cassettes = tmp_path / "cassettes"
    for name in ("fixture%2Foracle", "fixture%2Fsloppy"):
        shutil.copytree(REPO / "fixtures" / "cassettes" / name, cassettes / name)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(cassettes / "fixture%2Foracle")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield cassettes, holder.pid
    finally:
        holder.communicate("\n", timeout=10)


@pytest.mark.parametrize(
    "command",
    [
        ["rescore", "{root}"],
        ["diff", "{root}/fixture%2Foracle", "{root}/fixture%2Fsloppy"],
        ["diff", "{root}/fixture%2Fsloppy", "{root}/fixture%2Foracle"],
        ["diff", "{root}", "{root}", "--model", "fixture/oracle"],
        ["audit", "{root}"],
    ],
    ids=["rescore", "diff, first side", "diff, second side", "diff --model", "audit"],
)
def test_a_folder_a_record_writes_is_refused_by_every_reader(
    held: tuple[Path, int], command: list[str]
) -> None:
    root, pid = held
    result = CliRunner().invoke(app, [word.format(root=root) for word in command])
    assert result.exit_code == 4, result.output
    assert result.stderr == (
        f"lobrec: {root}: a lobrec record (pid {pid}) is still writing the cassettes of fixture/oracle; "
        "try again when it has finished\n"
    )
    assert result.stdout == ""


def test_once_the_record_has_finished_the_same_commands_read_the_folder(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    for name in ("fixture%2Foracle", "fixture%2Fsloppy"):
        shutil.copytree(REPO / "fixtures" / "cassettes" / name, cassettes / name)
    oracle, sloppy = cassettes / "fixture%2Foracle", cassettes / "fixture%2Fsloppy"
    assert CliRunner().invoke(app, ["diff", str(oracle), str(sloppy)]).exit_code == 0
    assert CliRunner().invoke(app, ["audit", str(cassettes)]).exit_code == 0

"""Two writers, and the modes of what is written (issue 12: data loss, umask)."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lobrec.cassette.layout import LOCK, model_dir_name
from lobrec.cassette.locks import writer_lock, writer_pid
from lobrec.errors import CassetteError
from lobrec.files import write_atomic
from lobrec.running.gateway import Gateway
from lobrec.running.recording import RecordOptions, record
from lobrec.suite_file import load_suite
from tests.support.cli import LOBREC, cli_env, run_lobrec
from tests.support.gateway import running_gateway

pytestmark = pytest.mark.process

HOLD = """
import sys, time
from pathlib import Path
from lobrec.cassette.locks import writer_lock
with writer_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_second_writer_of_a_model_directory_gets_a_one_line_error_naming_the_holder(
    tmp_path: Path, small_suite_path: Path, fake_gateway: object
) -> None:
    directory = tmp_path / "cassettes" / model_dir_name("fixture/oracle")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        options = RecordOptions(models=["fixture/oracle"], cassettes=tmp_path / "cassettes")
        gateway = Gateway(base_url=fake_gateway.url, api_key=None)  # type: ignore[attr-defined]
        with pytest.raises(CassetteError) as info:
            asyncio.run(record(load_suite(small_suite_path), gateway, options))
        assert str(info.value) == (
            f"{directory}: another lobrec record (pid {holder.pid}) is writing this model's cassettes; "
            "wait for it to finish, or record other models"
        )
        assert sorted(p.name for p in directory.iterdir()) == [LOCK]  # nothing else was written
    finally:
        holder.communicate("\n", timeout=10)
    # Released when the holder ends, and the file removed: the next writer gets the directory.
    assert not (directory / LOCK).exists()
    with writer_lock(directory):
        assert (directory / LOCK).read_text() == f"{os.getpid()}\n"
    assert not (directory / LOCK).exists()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002], ids=["022", "077", "002"])
def test_written_files_honour_the_umask(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        write_atomic(tmp_path / "x.json", b"{}")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "x.json").stat().st_mode) == 0o666 & ~umask


def test_rescore_while_a_record_writes_the_folder_says_so_in_one_line(
    tmp_path: Path, small_suite_path: Path, _clean_proxy_environment: None
) -> None:
    """A real `lobrec record` against a slow gateway holds the folder; `lobrec rescore` of it says a
    record is in progress (exit 4) instead of listing every case it has not reached as unrecorded.
    Once the record has stopped, the rescore judges the folder as usual: nothing recorded yet is
    nothing judged (exit 3, docs/methodology.md "Judged or not green")."""
    cassettes = tmp_path / "cassettes"
    directory = cassettes / model_dir_name("fixture/oracle")
    with running_gateway(small_suite_path, latency_ms=3000) as gateway:
        args = [
            "record",
            "--model",
            "fixture/oracle",
            "--base-url",
            gateway.url,
            "--cassettes",
            str(cassettes),
        ]
        recorder = subprocess.Popen(
            [str(LOBREC), *args, "--suite", str(small_suite_path), "--concurrency", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env(),
        )
        try:
            while writer_pid(directory) != recorder.pid or not (directory / "manifest.json").exists():
                assert recorder.poll() is None, recorder.communicate()
                time.sleep(0.01)
            done = run_lobrec(["rescore", str(cassettes), "--suite", str(small_suite_path)])
            assert (done.returncode, done.stdout, done.stderr.decode()) == (
                4,
                b"",
                f"lobrec: {cassettes}: a lobrec record (pid {recorder.pid}) is still writing the cassettes "
                "of fixture/oracle; try again when it has finished\n",
            )
        finally:
            recorder.send_signal(signal.SIGINT)
            recorder.communicate(timeout=30)
    assert writer_pid(directory) is None
    after = run_lobrec(["rescore", str(cassettes), "--suite", str(small_suite_path)])
    assert after.returncode == 3 and "still writing" not in after.stderr.decode()
    assert "no case judged: fixture/oracle" in after.stderr.decode()
    assert "stale or unrecorded" in after.stderr.decode()


def test_a_lock_file_left_by_a_killed_record_is_not_a_record_in_progress(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (tmp_path / LOCK).write_text(dead.stdout)
    assert writer_pid(tmp_path) is None
    (tmp_path / LOCK).write_text(f"{os.getpid()}\n")
    assert writer_pid(tmp_path) == os.getpid()
    (tmp_path / LOCK).write_text("")
    assert writer_pid(tmp_path) is None

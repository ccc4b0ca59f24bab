"""Two writers, and the modes of what is written (issue 12: data loss, umask)."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from lobrec.cassettes import LOCK, model_dir_name, write_atomic, writer_lock
from lobrec.errors import CassetteError
from lobrec.gateway import Gateway
from lobrec.recording import RecordOptions, record
from lobrec.suite_file import load_suite

HOLD = """
import sys, time
from pathlib import Path
from lobrec.cassettes import writer_lock
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

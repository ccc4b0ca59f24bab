"""One writer per model folder: the `lobrec record` lock, and the check rescore makes against it."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from lobrec import files
from lobrec.cassette.layout import LOCK, model_from_dir_name
from lobrec.errors import CassetteError, RecordInProgress


@contextlib.contextmanager
def writer_lock(directory: Path) -> Iterator[None]:
    """Hold the model directory for one writer: a second `lobrec record` on it gets a one-line error.

    Two writers would each save the manifest they hold, and the last one would drop the other's
    cases (recorded, then "not listed" and stale). The lock is an flock on `.lock`, released by the
    kernel when the process ends however it ends, so a killed run never leaves the directory
    locked; a run that ends normally also removes the file, so nothing is left to commit.
    """
    directory.parent.mkdir(parents=True, exist_ok=True)  # the cassettes folder, as the user named it
    files.real_folder(directory, directory.parent, CassetteError)
    path = directory / LOCK
    while True:
        fd = files.open_lock_file(path, CassetteError)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise CassetteError(
                f"{directory}: another lobrec record (pid {holder}) is writing this model's cassettes; "
                "wait for it to finish, or record other models"
            ) from None
        try:
            current = os.lstat(path)
        except FileNotFoundError:
            current = None
        if current is not None and current.st_ino == os.fstat(fd).st_ino:
            break
        os.close(fd)  # the holder removed the file as we opened it: lock the one there now
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # still holding the lock, so no other writer holds this file
        os.close(fd)


def writer_pid(directory: Path) -> int | None:
    """The pid of a live `lobrec record` writing `directory` now, or None.

    Read from the lock file `writer_lock` writes, never by taking the lock: even a shared probe
    would make a record starting at that instant fail. A killed record leaves the file, but its pid
    is no longer alive.
    """
    try:
        text = (directory / LOCK).read_bytes()[:32].decode("ascii", "replace").strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        return pid
    except OSError:
        return None
    return pid


def refuse_while_recording(directories: list[Path]) -> None:
    """Raise `RecordInProgress`, in one line, when a `lobrec record` of another process is writing
    any of `directories` (this process's own record reads what it holds once its cases are saved)."""
    busy = [
        (directory, pid)
        for directory in directories
        if (pid := writer_pid(directory)) is not None and pid != os.getpid()
    ]
    if not busy:
        return
    names = ", ".join(model_from_dir_name(directory.name) for directory, _ in busy)
    pids = ", ".join(dict.fromkeys(str(pid) for _, pid in busy))
    raise RecordInProgress(
        f"{busy[0][0].parent}: a lobrec record (pid {pids}) is still writing the cassettes of {names}; "
        "try again when it has finished"
    )

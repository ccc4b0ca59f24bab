"""Files lobrec reads and writes, opened so that nothing planted in their place can hurt a run.

One owner of the two rules every command shares (docs/reliability.md, "Files"):

- **reading** a file (cassette, manifest, suite, results file) takes a regular file only, never
  through a symlink, never a FIFO or device (opened non-blocking, so a FIFO cannot hang the run),
  and never more than a cap decided from `fstat` before anything is read;
- **writing** never follows a link: a file is written to a temporary file created exclusively
  (`O_EXCL`, which refuses a link) and renamed over its name, which replaces a link rather than
  writing through it; a lock file is opened `O_NOFOLLOW`; the folders lobrec creates below the
  cassettes folder are refused when one of them is a symlink (`real_folder`); an output file
  (`--json`, `--html`, ...) that is a symlink, a FIFO or a device is refused (`check_output`).

Each refusal is one line naming the path, raised as the caller's own error type.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from lobrec.errors import LobrecError

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_capped(
    path: Path, limit: int, kind: str, error: type[LobrecError], *, follow: bool = False
) -> bytes:
    """Read a regular file, never more than `limit` bytes, never a FIFO or device.

    `kind` names the file in messages (`cassette`, `suite file`); `error` is the type raised. A
    symlink is refused unless `follow` (a path the user named, such as `--suite FILE`, may be a
    link, as the cassettes folder may; nothing found inside a folder is followed).
    """
    fd, size = _open_regular(path, kind, error, follow)
    with os.fdopen(fd, "rb") as handle:
        if size > limit:
            raise error(f"{path}: {size} bytes is over the {limit}-byte {kind} limit")
        # Read the announced size (and a byte more, to notice growth), never `limit` at once: that
        # allocates `limit` bytes up front, and made reading a small cassette four times slower.
        try:
            data = handle.read(size + 1)
            if len(data) > size:
                data += handle.read(limit + 1 - len(data))
        except OSError as exc:
            raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{path}: over the {limit}-byte {kind} limit")
    return data


def _open_regular(path: Path, kind: str, error: type[LobrecError], follow: bool) -> tuple[int, int]:
    """A descriptor open for reading on a regular file (never a FIFO, device or folder), and its size."""
    try:
        # O_NONBLOCK: opening a FIFO planted as the file would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | (0 if follow else NOFOLLOW) | NONBLOCK)
    except OSError as exc:
        if exc.errno is not None and not follow and os.path.islink(path):
            raise error(f"{path}: is a symlink; {kind}s must be regular files") from None
        raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # a directory, FIFO or device planted under the file's name
        os.close(fd)
        raise error(f"{path}: not a regular file")
    return fd, info.st_size


def file_mode() -> int:
    """The mode an ordinary write would give a new file: 0666 less the umask.

    Reading the umask means setting it for a moment, which is process-wide: a thread that writes
    files (the recorder's writer) asks for the mode here, on the main thread, once.
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write via a temporary file in the same folder, fsync, then rename: never a half file.

    The temporary file is created with `O_EXCL` (never through a link) and the rename replaces
    whatever stands at `path`, a symlink included, without following it. mkstemp creates the file
    0600; it gets the mode an ordinary write would (`file_mode`, unless given), so a shared
    cassettes folder stays readable by whoever the umask allows.

    A failed write (a full disk, a read-only folder) raises OSError naming `path`, never the
    temporary file nor no file at all (`write` and `fsync` name none), so the one line a command
    prints says which file could not be written; the temporary file is removed.
    """
    import tempfile  # here: reading a file (`lobrec --version` reads the suite) never writes one

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(fd, file_mode() if mode is None else mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(exc, OSError) and exc.errno is not None and exc.filename != str(path):
            raise type(exc)(exc.errno, exc.strerror, str(path)) from exc
        raise


def real_folder(folder: Path, below: Path, error: type[LobrecError], *, create: bool = True) -> None:
    """Make `folder` and each missing folder between it and `below` (trusted: the folder the user
    named), refusing any of them that is a symlink or not a folder: lobrec never reads or writes
    through a link below the cassettes folder, so a committed `runs -> /elsewhere` cannot send a
    recording outside it. With `create` False, only the folders that exist are checked."""
    current = below
    for part in folder.relative_to(below).parts:
        current = current / part
        if create:
            with contextlib.suppress(FileExistsError):
                current.mkdir()
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode):
            raise error(
                f"{current}: is a symlink; lobrec never writes through a link below the cassettes folder"
            )
        if not stat.S_ISDIR(info.st_mode):
            raise error(f"{current}: not a folder")


def open_lock_file(path: Path, error: type[LobrecError]) -> int:
    """Open (create) a lock file for reading and writing without following a link: a committed
    `.lock` symlink would otherwise have its target truncated. Anything but a regular file there is
    refused, and left as it is."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW | NONBLOCK, 0o666)
    except OSError as exc:
        if os.path.islink(path):
            raise error(f"{path}: is a symlink; lobrec never writes through a link (remove it)") from None
        raise error(f"{path}: cannot open the lock file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(f"{path}: not a regular file (remove it)")
    return fd


def check_output(path: Path, error: type[LobrecError]) -> None:
    """Refuse an output path (`--json FILE`, `--html FILE`, ...) that is a symlink, a folder, a FIFO
    or a device: the report is written beside it and renamed over it, and would otherwise replace a
    link the user keeps, or hang on a FIFO. `-` writes to stdout instead. The folder the file goes
    into may itself be a link (the user's own layout, as the cassettes folder may be)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise error(f"{path}: cannot write the report: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise error(
            f"{path}: is a symlink; lobrec does not write a report through a link "
            "(give the file it points to, or - for stdout)"
        )
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{path}: is a folder; give the report a file name (e.g. {path / 'results.json'})")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path}: not a regular file; give a file name, or - for stdout")


def write_output(path: Path, data: bytes, error: type[LobrecError]) -> None:
    """Write an output file (`--json FILE`, `--html FILE`, ...) whole, or not at all: refused as
    `check_output` refuses, then written atomically (a kill mid-write leaves no half report); a
    failed write is `error`, naming the file."""
    check_output(path, error)
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise error(f"{path}: cannot write the report: {exc.strerror or exc}") from None


def append_output(path: Path, data: bytes, error: type[LobrecError]) -> None:
    """Append to an output file (a CI job summary such as `$GITHUB_STEP_SUMMARY`, which other steps
    write too), never through a link and only to a regular file, created if missing."""
    check_output(path, error)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW | NONBLOCK, file_mode())
    except OSError as exc:
        raise error(f"{path}: cannot write the report: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{path}: not a regular file; give a file name, or - for stdout")
        try:
            handle.write(data)
        except OSError as exc:
            raise error(f"{path}: cannot write the report: {exc.strerror or exc}") from None

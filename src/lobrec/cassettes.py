"""Cassettes on disk: one JSON file per case per model, a manifest per model directory.

Layout::

    cassettes/<model-dir>/manifest.json
    cassettes/<model-dir>/<case-id>.json
    cassettes/<model-dir>/runs/<n>/manifest.json      (repeated runs 2..K, see `run_directories`)
    cassettes/<model-dir>/runs/<n>/<case-id>.json

`<model-dir>` is the model string percent-encoded (`openai/gpt-4o` -> `openai%2Fgpt-4o`), so any
model name maps to one safe directory and back. Cassette files keep vcrpy's layout
(`{"version": 1, "interactions": [...]}`) but are read and written by lobrec's persister:

- reads are strict (msgspec Structs, unknown fields are errors), capped in size, and refuse
  symlinks, so a contributed cassette cannot run code, read outside its folder, or exhaust memory;
- writes are atomic (temporary file, fsync, rename), so a killed run leaves only whole files;
- every error is a `CassetteError` naming the file: vcrpy's own loader would treat an undecodable
  cassette as empty and silently re-record over it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import msgspec

from lobrec import files
from lobrec.core.jsonvalue import duplicate_key
from lobrec.core.suite import Case, Suite, case_id_problem, shown_id
from lobrec.errors import CassetteError, ConfigError, RecordInProgress
from lobrec.files import file_mode as file_mode  # re-exported: the recorder imports them here
from lobrec.files import write_atomic as write_atomic

MAX_CASSETTE_BYTES = 16 * 1024 * 1024
"""A cassette larger than this is refused unread (a reply is capped well below it)."""

MANIFEST = "manifest.json"
LOCK = ".lock"
"""Held (flock) by the one `lobrec record` writing a model directory; holds the writer's pid."""
CASSETTE_FORMAT_VERSION = 1
RUNS_DIR = "runs"
"""Runs 2..K of a model live in `<model-dir>/runs/<n>/`; run 1 is the model directory itself."""
MAX_RUNS = 1000
"""A run number above this is not a run (a stray `runs/999999999` must not mean a billion runs)."""
_RUN_NAME = re.compile(r"^[1-9][0-9]{0,8}$")


# --- names ---------------------------------------------------------------------------------------


def model_dir_name(model: str) -> str:
    """A reversible, path-safe directory name for any model string."""
    if not model or len(model) > 200 or "\x00" in model:
        raise ConfigError(f"model name {model!r} cannot be used: empty, too long or containing NUL")
    name = quote(model, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > MAX_DIR_NAME:
        raise ConfigError(
            f"model name {model[:40]!r}... ({len(model)} characters) cannot be used: its folder name "
            f"would be {len(name)} characters once encoded, over the {MAX_DIR_NAME} a file system allows"
        )
    return name


MAX_DIR_NAME = 255
"""The longest file name common file systems allow (bytes; an encoded name is ASCII)."""


def model_from_dir_name(name: str) -> str:
    return unquote(name)


def case_file_name(case_id: str) -> str:
    """`<id>.json`, for an id that passes the suite's one rule (`case_id_problem`), else ConfigError."""
    problem = case_id_problem(case_id)
    if problem is not None:
        raise ConfigError(f"case id {shown_id(case_id)} cannot name a cassette file: {problem}")
    return f"{case_id}.json"


# --- the file format ------------------------------------------------------------------------------


class _Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class RecordedRequest(_Strict):
    method: str
    uri: str
    body: str | None
    headers: dict[str, list[str]]


class Status(_Strict):
    code: int
    message: str


class Body(_Strict):
    string: str


class RecordedResponse(_Strict):
    status: Status
    headers: dict[str, list[str]]
    body: Body


class Interaction(_Strict):
    request: RecordedRequest
    response: RecordedResponse


class CassetteFile(_Strict):
    version: int
    interactions: list[Interaction]


class ManifestCase(_Strict):
    fingerprint: str


class ManifestSuite(_Strict):
    name: str
    version: str


class Manifest(_Strict):
    model: str
    suite: ManifestSuite
    lobrec_version: str
    started_at: str
    finished_at: str | None = None
    cases: dict[str, ManifestCase] = {}


_cassette_decoder = msgspec.json.Decoder(CassetteFile)
_manifest_decoder = msgspec.json.Decoder(Manifest)
_encoder = msgspec.json.Encoder()


def encode_pretty(value: Any) -> bytes:
    return msgspec.json.format(_encoder.encode(value), indent=2) + b"\n"


# --- safe reading and atomic writing --------------------------------------------------------------


def read_capped(path: Path, limit: int = MAX_CASSETTE_BYTES) -> bytes:
    """Read a cassette or manifest: a regular file, never through a symlink, at most `limit` bytes."""
    return files.read_capped(path, limit, "cassette", CassetteError)


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
    """Raise `RecordInProgress`, in one line, when a `lobrec record` is writing any of `directories`."""
    busy = [(directory, pid) for directory in directories if (pid := writer_pid(directory)) is not None]
    if not busy:
        return
    names = ", ".join(model_from_dir_name(directory.name) for directory, _ in busy)
    pids = ", ".join(dict.fromkeys(str(pid) for _, pid in busy))
    raise RecordInProgress(
        f"{busy[0][0].parent}: a lobrec record (pid {pids}) is still writing the cassettes of {names}; "
        "rescore when it has finished"
    )


def decode_cassette(data: bytes, path: Path) -> CassetteFile:
    try:
        cassette = _cassette_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise CassetteError(f"{path}: not a cassette: {exc}") from None
    except msgspec.DecodeError as exc:
        raise CassetteError(f"{path}: not valid JSON: {exc}") from None
    if cassette.version != CASSETTE_FORMAT_VERSION:
        raise CassetteError(f"{path}: cassette format version {cassette.version}, expected 1")
    refuse_ambiguous(data, path)
    return cassette


def refuse_ambiguous(data: bytes, path: Path) -> None:
    """A repeated key would let a first-key reader (another tool) see what lobrec does not."""
    repeated = duplicate_key(data)
    if repeated is not None:
        raise CassetteError(f"{path}: ambiguous JSON: {repeated}")


def load_cassette_file(path: Path) -> CassetteFile:
    return decode_cassette(read_capped(path), path)


def load_manifest(directory: Path) -> Manifest:
    path = directory / MANIFEST
    data = read_capped(path, limit=4 * 1024 * 1024)
    try:
        manifest = _manifest_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise CassetteError(f"{path}: not a manifest: {exc}") from None
    except msgspec.DecodeError as exc:
        raise CassetteError(f"{path}: not valid JSON: {exc}") from None
    refuse_ambiguous(data, path)
    return manifest


def save_manifest(directory: Path, manifest: Manifest) -> None:
    write_atomic(directory / MANIFEST, encode_pretty(manifest))


# --- what a case's recording depends on -----------------------------------------------------------


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
    return "sha256:" + hashlib.sha256(_encoder.encode(content)).hexdigest()


def suite_fingerprint(suite: Suite) -> str:
    """A hash of the whole decoded suite (checks included), for the results file's provenance: two
    files that decode to the same suite share it, whatever their whitespace or key order."""
    return "sha256:" + hashlib.sha256(_encoder.encode(suite)).hexdigest()


def cassettes_root(root: Path) -> Path:
    """Check the cassettes folder a command was given (`rescore DIR`, `audit DIR`): one rule for both.

    The root itself may be a symlink to a folder and is followed, as `ls DIR` or `find -H DIR`
    would: the user named it (`cassettes -> /mnt/shared/cassettes`). Nothing *inside* it is ever
    followed: a symlinked model folder is skipped by replay and a finding of audit, a symlinked
    cassette or manifest refused by both. Raises CassetteError for anything but a folder.
    """
    if root.is_dir():
        return root
    if root.is_symlink():
        try:
            target = os.readlink(root)
        except OSError:
            target = "?"
        raise CassetteError(f"{root}: a symlink to {target}, which is not a folder")
    if root.exists():
        raise CassetteError(f"{root}: not a folder (give the folder that holds the model folders)")
    raise CassetteError(f"{root}: no such cassette directory")


def model_directories(root: Path) -> list[Path]:
    """Model directories under `root` (those holding a manifest), sorted by model name.

    A folder with none is an error, not an empty result: a rescore of it would score nobody and
    exit 0 (and pass any `--fail-under`). One model's own folder is the usual slip, so it is named.
    """
    not_one_model(root)
    found = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and (p / MANIFEST).exists()]
    if not found:
        raise CassetteError(f"{root}: no model folders (a model folder holds {MANIFEST}); nothing to rescore")
    return sorted(found, key=lambda p: model_from_dir_name(p.name))


def not_one_model(root: Path) -> None:
    """Refuse, in one line, a cassette root that is one model's own folder (the usual slip), or
    not a folder at all: `rescore` and `audit` both take the folder that holds the model folders."""
    cassettes_root(root)
    if (root / MANIFEST).exists():
        raise CassetteError(
            f"{root}: this is one model's folder (it holds {MANIFEST}); give the folder that holds "
            f"the model folders: {root.parent}"
        )


def run_number(name: str) -> int | None:
    """The run a `runs/` entry names (2..MAX_RUNS, decimal, no leading zeros), else None."""
    if not _RUN_NAME.fullmatch(name):
        return None
    number = int(name)
    return number if 2 <= number <= MAX_RUNS else None


def run_directories(model_dir: Path) -> list[Path]:
    """Every run's folder of a model, run 1 (the model directory itself) first, then runs/2..K.

    K is the highest run folder present (1 without `runs/`). A folder missing between 2 and K is
    still listed, as a path that does not exist: that run counts with every case unrecorded, so a
    gap never shifts run numbers. Entries that are not runs (a file, a symlink, `runs/01`, `runs/1`)
    are left to `lobrec audit` to report. More than `MAX_MISSING_RUNS` missing is a CassetteError
    (`run_gap_problem`): a lone `runs/1000/` would otherwise mean 999 runs to score and record.
    """
    runs = model_dir / RUNS_DIR
    present = []
    if runs.is_dir() and not runs.is_symlink():
        for entry in runs.iterdir():
            number = run_number(entry.name)
            if number is not None and entry.is_dir() and not entry.is_symlink():
                present.append(number)
    problem = run_gap_problem(runs, present)
    if problem is not None:
        raise CassetteError(problem)
    return [run_folder(model_dir, number) for number in range(1, max(present, default=1) + 1)]


MAX_MISSING_RUNS = 10
"""Run folders that may be missing below the highest: each counts as a run with every case
unrecorded, which rescore scores and `record --missing` records, so the count is capped: an 18 KB
`runs/1000/manifest.json` committed alone cost a gigabyte and planned 80,000 requests."""


def run_gap_problem(runs: Path, present: list[int]) -> str | None:
    """Why the run folders `present` (numbers, 2..MAX_RUNS) under `runs` cannot be used, or None."""
    highest = max(present, default=1)
    missing = highest - 1 - len(set(present))
    if missing <= MAX_MISSING_RUNS:
        return None
    return (
        f"{runs}: the highest run folder is {highest}, but {missing} of runs 2 to {highest} are missing "
        f"(at most {MAX_MISSING_RUNS} may be); remove the stray run folders, or record the runs"
    )


def run_folder(model_dir: Path, number: int) -> Path:
    """Run `number`'s folder: run 1 is the model folder itself, run n is `runs/<n>/`."""
    return model_dir if number == 1 else model_dir / RUNS_DIR / str(number)

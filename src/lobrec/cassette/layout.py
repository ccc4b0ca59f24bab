"""Where cassettes live: folder and file names, run folders, the cassettes root.

    cassettes/<model-dir>/manifest.json
    cassettes/<model-dir>/<case-id>.json
    cassettes/<model-dir>/runs/<n>/manifest.json      (repeated runs 2..K, see `run_directories`)
    cassettes/<model-dir>/runs/<n>/<case-id>.json

`<model-dir>` is the model string percent-encoded (`openai/gpt-4o` -> `openai%2Fgpt-4o`), so any
model name maps to one safe directory and back.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote, unquote

from lobrec.core.suite.format import case_id_problem, shown_id
from lobrec.errors import CassetteError, ConfigError

MANIFEST = "manifest.json"
LOCK = ".lock"
"""Held (flock) by the one `lobrec record` writing a model directory; holds the writer's pid."""
RUNS_DIR = "runs"
"""Runs 2..K of a model live in `<model-dir>/runs/<n>/`; run 1 is the model directory itself."""
MAX_RUNS = 1000
"""A run number above this is not a run (a stray `runs/999999999` must not mean a billion runs)."""
MAX_MISSING_RUNS = 10
"""Run folders that may be missing below the highest: each counts as a run with every case
unrecorded, which rescore scores and `record --missing` records, so the count is capped: an 18 KB
`runs/1000/manifest.json` committed alone cost a gigabyte and planned 80,000 requests."""
MAX_DIR_NAME = 255
"""The longest file name common file systems allow (bytes; an encoded name is ASCII)."""
_RUN_NAME = re.compile(r"^[1-9][0-9]{0,8}$")


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


def model_from_dir_name(name: str) -> str:
    return unquote(name)


def case_file_name(case_id: str) -> str:
    """`<id>.json`, for an id that passes the suite's one rule (`case_id_problem`), else ConfigError."""
    problem = case_id_problem(case_id)
    if problem is not None:
        raise ConfigError(f"case id {shown_id(case_id)} cannot name a cassette file: {problem}")
    return f"{case_id}.json"


def is_case_id(case_id: str) -> bool:
    """`case_id` can name a cassette file."""
    return case_id_problem(case_id) is None


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


def not_one_model(root: Path) -> None:
    """Refuse, in one line, a cassette root that is one model's own folder (the usual slip), or
    not a folder at all: `rescore` and `audit` both take the folder that holds the model folders."""
    cassettes_root(root)
    if (root / MANIFEST).exists():
        raise CassetteError(
            f"{root}: this is one model's folder (it holds {MANIFEST}); give the folder that holds "
            f"the model folders: {root.parent}"
        )


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

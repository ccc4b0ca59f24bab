"""Reading the suite from disk: the one place the suite touches the file system.

The default suite is the one that ships with lobrec: inside an installed wheel it is package data
(`lobrec/_suite/`, copied from the repository's `suite/` at build time, see pyproject.toml); in a
source checkout (an editable install) it is the repository's own `suite/` folder, which stays the
source of truth. `default_suite_path` is the only rule for where that is; every command's `--suite`
falls back to it, and reports call it "bundled".

Two ways in: `load_suite` (the public one, what `record`, `rescore` and the Python API use) refuses
a suite no run can use (`lobrec.core.runnable`); `read_suite` only decodes, for the commands that
look at a suite without running it (`suite check` lists every problem, `suite show`, `audit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from lobrec.core.suite import Suite, decode_suite
from lobrec.errors import ConfigError, LobrecError, SuiteError
from lobrec.files import read_capped

if TYPE_CHECKING:
    from lobrec.core.results import RunResult

_PACKAGE = Path(__file__).resolve().parent
BUNDLED_DIR = _PACKAGE / "_suite"
"""Where a built wheel holds the suite and its history."""
CHECKOUT_DIR = _PACKAGE.parents[1] / "suite"
"""`suite/` of the source checkout this module runs from (src/lobrec/ -> the repository root)."""
BUNDLED = "bundled"
"""How reports name the default suite's origin; any other suite is named by the path given."""


def suite_dir() -> Path:
    """The folder holding the bundled suite.json and history/: the wheel's copy, else the checkout's."""
    return BUNDLED_DIR if (BUNDLED_DIR / "suite.json").is_file() else CHECKOUT_DIR


MAX_SUITE_BYTES = 16 * 1024 * 1024
"""A suite file larger than this is refused unread (the 80-case suite is under 0.5 MB)."""


def default_suite_path() -> Path:
    """The bundled suite file (see the module docstring)."""
    return suite_dir() / "suite.json"


def suite_source(path: str | Path | None) -> str:
    """Where a suite came from, as reports print it: "bundled", or the path exactly as given."""
    return BUNDLED if path is None else str(path)


def read_suite(path: str | Path | None = None) -> Suite:
    """Read and strictly decode a suite file (default: the bundled one); every error names the file.

    Only a regular file is read (through a symlink the user named, but never a FIFO or device, which
    could hang the command), and never one over `MAX_SUITE_BYTES`.
    """
    suite_path = Path(path) if path is not None else default_suite_path()
    try:
        data = read_capped(suite_path, MAX_SUITE_BYTES, "suite file", SuiteError, follow=True)
    except SuiteError as exc:
        if path is None and not suite_path.exists():
            raise SuiteError(f"{exc}; lobrec is installed without its suite, pass --suite FILE") from None
        raise
    return decode_suite(data, str(suite_path))


def shipped_suites() -> list[Suite]:
    """The bundled suite and its kept versions (`suite/history/`), each that can be read: a broken
    install lacks a version, and the steps that need it say which file to give (`--suite`)."""
    suites = []
    for path in [default_suite_path(), *sorted((suite_dir() / "history").glob("*.json"))]:
        try:
            suites.append(read_suite(path))
        except LobrecError:
            continue
    return suites


def load_suite(path: str | Path | None = None) -> Suite:
    """The suite a run can use (default: the bundled one): `read_suite`, then refused with a
    SuiteError naming the file and the first rule of `lobrec.core.runnable` it breaks."""
    from lobrec.core.runnable import runnable_problems  # here: `lobrec --version` reads, never runs

    suite = read_suite(path)
    problem = next(runnable_problems(suite), None)
    if problem is not None:
        raise SuiteError(f"{path if path is not None else default_suite_path()}: {problem}")
    return suite


def only_groups(suite: Suite, groups: Sequence[str]) -> Suite:
    """The suite cut down to the cases of `groups` (`--group`), or the suite itself for none.

    A run of part of the suite reports on that part only: its rates are the groups' rates, and the
    results file says which cases it covers by the cases it lists.
    """
    if not groups:
        return suite
    known = list(dict.fromkeys(case.group for case in suite.cases))
    unknown = [group for group in groups if group not in known]
    if unknown:
        raise ConfigError(
            f"no such group in suite {suite.version}: {', '.join(unknown)} (groups: {', '.join(known)})"
        )
    return msgspec.structs.replace(suite, cases=[case for case in suite.cases if case.group in groups])


def with_suite_source(run: RunResult, path: str | Path | None) -> RunResult:
    """The results with the judging suite's origin ("bundled", or the path as given): only the
    caller knows how the suite was named; every report prints it from there."""
    return msgspec.structs.replace(run, suite=msgspec.structs.replace(run.suite, source=suite_source(path)))

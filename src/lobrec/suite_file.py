"""Reading the suite from disk: the one place the suite touches the file system.

The default suite is the one that ships with lobrec: inside an installed wheel it is package data
(`lobrec/_suite/`, copied from the repository's `suite/` at build time, see pyproject.toml); in a
source checkout (an editable install) it is the repository's own `suite/` folder, which stays the
source of truth. `default_suite_path` is the only rule for where that is; every command's `--suite`
falls back to it, and reports call it "bundled".

Two ways in: `load_suite` (the public one, what `record`, `rescore` and the Python API use) refuses
a suite no run can use (`lobrec.core.suite.run_rules`); `read_suite` only decodes, for the commands that
look at a suite without running it (`suite check` lists every problem, `suite show`, `audit`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.errors import ConfigError, LobrecError, SuiteError

if TYPE_CHECKING:
    from lobrec.core.metrics.results import RunResult
    from lobrec.core.suite.format import Suite

# The suite, msgspec and the file reader are imported in the functions that use them: `lobrec
# --version` imports this module to name the bundled suite, and must start as fast as `import typer`.

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
    from lobrec.core.suite.format import decode_suite

    suite_path, data = _read(path)
    return decode_suite(data, str(suite_path))


def _read(path: str | Path | None) -> tuple[Path, bytes]:
    """The suite file's path and bytes (default: the bundled one), read as `read_suite` says."""
    from lobrec.files import read_capped

    suite_path = Path(path) if path is not None else default_suite_path()
    try:
        return suite_path, read_capped(suite_path, MAX_SUITE_BYTES, "suite file", SuiteError, follow=True)
    except SuiteError as exc:
        if path is None and not suite_path.exists():
            raise SuiteError(f"{exc}; lobrec is installed without its suite, pass --suite FILE") from None
        raise


_JSON = json.JSONDecoder()


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\n\r":
        index += 1
    return index


def _leading_strings(text: str, keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """The string values of `keys` when they are the first members of the top-level object (as in
    every suite lobrec writes, and the bundled one), read without decoding the rest; else None."""
    found: dict[str, str] = {}
    index = _skip_space(text, 0)
    if not text.startswith("{", index):
        return None
    index += 1
    try:
        while len(found) < len(keys):
            key, index = _JSON.raw_decode(text, _skip_space(text, index))
            index = _skip_space(text, index)
            if key not in keys or key in found or not text.startswith(":", index):
                return None
            value, index = _JSON.raw_decode(text, _skip_space(text, index + 1))
            if not isinstance(value, str):
                return None
            found[key] = value
            index = _skip_space(text, index)
            if not text.startswith(",", index):
                return None
            index += 1
    except ValueError:
        return None
    return tuple(found[key] for key in keys)


def suite_label(path: str | Path | None = None) -> tuple[str, str]:
    """A suite file's name and version (default: the bundled one), for `lobrec --version`.

    Read from the head of the file when the two lead it, so naming the suite costs a read and not a
    decode and check of 80 cases; otherwise (or when they are not strings) the file is decoded
    whole, and a file that cannot be is refused with `read_suite`'s message. Either way the file
    itself is not checked: that is `lobrec suite check`'s work, and every run's.
    """
    _, data = _read(path)
    found = _leading_strings(data.decode("utf-8", "replace"), ("name", "version"))
    if found is None:
        suite = read_suite(path)
        return suite.name, suite.version
    name, version = found
    return name, version


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
    SuiteError naming the file and the first rule of `lobrec.core.suite.run_rules` it breaks."""
    from lobrec.core.suite.run_rules import runnable_problems  # here: `lobrec --version` reads, never runs
    from lobrec.translations import remember_bundled

    remember_bundled(suite_dir())  # the shipped patterns' translations: checking then only compiles
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
    import msgspec

    return msgspec.structs.replace(suite, cases=[case for case in suite.cases if case.group in groups])


def with_suite_source(run: RunResult, path: str | Path | None) -> RunResult:
    """The results with the judging suite's origin ("bundled", or the path as given): only the
    caller knows how the suite was named; every report prints it from there."""
    import msgspec

    return msgspec.structs.replace(run, suite=msgspec.structs.replace(run.suite, source=suite_source(path)))

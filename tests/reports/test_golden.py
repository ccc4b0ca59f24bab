"""Whole-output ("golden") tests: every text format lobrec prints or writes, on the committed fixtures.

Each output is compared WHOLE with a file under tests/reports/golden/, so a layout regression (a lost
column, a reordered line, a changed word) fails here even where the fragment tests still pass. When a
change of output is intended, regenerate the files and review their git diff:

    make golden      # LOBREC_REGENERATE_GOLDEN=1 pytest tests/reports/test_golden.py

The commands run in this process (`run_lobrec`) from the repository root with relative paths, in a
fixed environment (COLUMNS 80 or 200, nothing else from the caller's), so the only things that vary
by run are the ones `normalise` replaces.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from lobrec import __version__
from tests.support.cli import run_lobrec
from tests.support.installed import shared_once

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("LOBREC_REGENERATE_GOLDEN") == "1"
COMMAND = "make golden"

CASSETTES = "fixtures/cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
ORACLE = f"{CASSETTES}/fixture%2Foracle"
SLOPPY = f"{CASSETTES}/fixture%2Fsloppy"
WIDTHS = (80, 200)


def normalise(text: str, tmp: Path) -> str:
    """Replace what varies from run to run, and only that, with a fixed placeholder.

    - the test's temporary folder (absolute, different every run) becomes `<tmp>`;
    - `lobrec X.Y.Z`, the running lobrec's version, becomes `lobrec <version>` (a release would
      otherwise rewrite every file).

    Nothing else varies on the committed fixtures: times and latencies are the recorded ones, the
    width is COLUMNS, paths are relative to the repository root, and no output prints elapsed time.
    """
    text = text.replace(str(tmp.resolve()), "<tmp>").replace(str(tmp), "<tmp>")
    return re.sub(rf"\blobrec {re.escape(__version__)}\b", "lobrec <version>", text)


def golden_env(width: int) -> dict[str, str]:
    """A fixed environment: the caller's colour, locale or config variables never reach the output."""
    return {"COLUMNS": str(width), "PATH": os.environ.get("PATH", ""), "TZ": "UTC"}


def lobrec(args: Sequence[str], tmp: Path, *, width: int = 80, cwd: Path = ROOT) -> str:
    """`lobrec ARGS` in this process; its stdout, normalised. It must exit 0 and print no error."""
    completed = run_lobrec(args, env=golden_env(width), cwd=cwd, text=True)
    assert completed.returncode == 0, (
        f"lobrec {' '.join(args)} exited {completed.returncode}:\n{completed.stderr}"
    )
    assert completed.stderr == "", f"lobrec {' '.join(args)} wrote to stderr:\n{completed.stderr}"
    return normalise(completed.stdout, tmp)


def assert_golden(name: str, actual: str, *, folder: Path = GOLDEN, regenerate: bool = REGENERATE) -> None:
    """`actual` is, whole, the text of golden/NAME; under LOBREC_REGENERATE_GOLDEN=1 it becomes it."""
    path = folder / name
    if regenerate:
        folder.mkdir(exist_ok=True)
        path.write_bytes(actual.encode())
        return
    if not path.exists():
        pytest.fail(f"{shown(path)} does not exist: run `{COMMAND}` and review the new file")
    expected = path.read_bytes().decode()
    if actual == expected:
        return
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{shown(path)} (expected)",
            tofile="actual output",
        )
    )
    only = " (whitespace only: trailing spaces or line ends)" if actual.split() == expected.split() else ""
    pytest.fail(
        f"the output differs from {shown(path)}{only}; if the change is intended, run "
        f"`{COMMAND}` and review the git diff.\n{diff}",
        pytrace=False,
    )


def shown(path: Path) -> str:
    """A golden file's path as the developer types it: relative to the repository root."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


# --- Producers: each golden file's name and how to get its text ------------------------------------

EXPORTS = {
    "rescore-report.md": "--markdown",
    "rescore-junit.xml": "--junit",
    "rescore-rows.csv": "--csv",
    "rescore-rows.jsonl": "--jsonl",
    "rescore-summary.md": "--summary",
}
"""The files rescore writes, by golden name: one run writes them all."""


def rescore(folder: Path, width: int, by_group: bool) -> dict[str, str]:
    """rescore's stdout at WIDTH columns, with or without --by-group; the plain 200-column run also
    writes every export (they do not depend on the width)."""
    args = ["rescore", CASSETTES, "--jobs", "1", *(["--by-group"] if by_group else [])]
    exports = width == 200 and not by_group
    for name, option in EXPORTS.items() if exports else ():
        args += [option, str(folder / name)]
    texts = {leaderboard_name(width, by_group): lobrec(args, folder, width=width)}
    for name in EXPORTS if exports else ():
        texts[name] = normalise((folder / name).read_bytes().decode(), folder)
    return texts


def leaderboard_name(width: int, by_group: bool) -> str:
    return f"rescore-{width}{'-by-group' if by_group else ''}.txt"


def diff(folder: Path) -> dict[str, str]:
    """`lobrec diff` between two fixture models, at both widths, and its Markdown."""
    args = ["diff", ORACLE, SLOPPY]
    texts = {f"diff-{width}.txt": lobrec(args, folder, width=width) for width in WIDTHS}
    lobrec([*args, "--markdown", str(folder / "diff.md")], folder)
    texts["diff.md"] = normalise((folder / "diff.md").read_bytes().decode(), folder)
    return texts


def history(folder: Path) -> dict[str, str]:
    """`lobrec history` over two results files named as a leaderboard names them: the fixtures
    judged by suite 1.2.0 (an older run), then the committed expected results (1.3.0), so both a
    suite change and re-judged recordings show. It runs in the files' folder, printing their names."""
    suite = "suite/history/1.2.0.json"
    lobrec(
        ["rescore", CASSETTES, "--jobs", "1", "--suite", suite, "--json", str(folder / "2026-11.json")],
        folder,
    )
    shutil.copyfile(EXPECTED, folder / "2026-12.json")
    args = ["history", "2026-11.json", "2026-12.json"]
    texts = {f"history-{width}.txt": lobrec(args, folder, width=width, cwd=folder) for width in WIDTHS}
    lobrec([*args, "--markdown", "history.md"], folder, cwd=folder)
    texts["history.md"] = normalise((folder / "history.md").read_bytes().decode(), folder)
    return texts


def stdout(name: str, args: list[str]) -> Callable[[Path], dict[str, str]]:
    """A golden that is one command's stdout at 80 columns."""
    return lambda folder: {name: lobrec(args, folder)}


@dataclass(frozen=True)
class Unit:
    """Commands run together (one rescore writes five exports): the golden files they give."""

    names: tuple[str, ...]
    make: Callable[[Path], dict[str, str]]


def _units() -> dict[str, Unit]:
    units = {
        f"rescore-{width}-{by_group}": Unit(
            (leaderboard_name(width, by_group), *(EXPORTS if width == 200 and not by_group else ())),
            lambda folder, w=width, g=by_group: rescore(folder, w, g),
        )
        for width in WIDTHS
        for by_group in (False, True)
    }
    units["diff"] = Unit(("diff-80.txt", "diff-200.txt", "diff.md"), diff)
    units["history"] = Unit(("history-80.txt", "history-200.txt", "history.md"), history)
    commands = {
        "suite-show-80.txt": ["suite", "show"],
        "suite-show-case-80.txt": ["suite", "show", "chain-01"],
        "suite-check.txt": ["suite", "check", "suite/suite.json", "--against", "suite/history/1.2.0.json"],
    }
    units.update({name: Unit((name,), stdout(name, args)) for name, args in commands.items()})
    return units


UNITS = _units()
UNIT_OF = {name: key for key, unit in UNITS.items() for name in unit.names}
"""Every golden file's name and the unit that produces it: the one list the stale-file test checks."""


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """The text of a golden name, its unit run once per session: under pytest-xdist the first worker
    that needs a unit runs it, under a lock, and the others read what it wrote."""

    def text(name: str) -> str:
        key = UNIT_OF[name]

        def make(folder: Path) -> dict[str, Path]:
            texts = UNITS[key].make(folder)
            assert set(texts) == set(UNITS[key].names), f"unit {key} gave {sorted(texts)}"
            for produced_name, produced_text in texts.items():
                (folder / f"golden-{produced_name}").write_bytes(produced_text.encode())
            return {produced_name: folder / f"golden-{produced_name}" for produced_name in texts}

        return shared_once(tmp_path_factory, f"golden-{key}", make)[name].read_bytes().decode()

    return text


@pytest.mark.parametrize("name", sorted(UNIT_OF))
def test_output_is_the_golden_file_whole(name: str, produced: Callable[[str], str]) -> None:
    assert_golden(name, produced(name))


def test_every_golden_file_has_a_test() -> None:
    """A golden file that no test produces is stale: it would silently stop protecting anything.
    Regenerating removes such files, so a renamed output does not leave its old file behind."""
    files = sorted(path.name for path in GOLDEN.iterdir())
    stale = [name for name in files if name not in UNIT_OF]
    if REGENERATE:
        for name in stale:
            (GOLDEN / name).unlink()
        return
    assert not stale, f"golden files no test compares (remove them, or run `{COMMAND}`): {stale}"


def test_a_changed_output_fails_with_a_diff_naming_the_file_and_the_command(tmp_path: Path) -> None:
    """The comparison itself: a one-line change fails, showing that line and how to regenerate."""
    expected = "Model    Overall\nfixture/oracle  100.0%\n"
    (tmp_path / "table.txt").write_text(expected)
    assert_golden("table.txt", expected, folder=tmp_path, regenerate=False)
    with pytest.raises(pytest.fail.Exception) as failure:
        assert_golden("table.txt", expected.replace("100.0%", "99.0%"), folder=tmp_path, regenerate=False)
    lines = str(failure.value).splitlines()
    assert (
        f"the output differs from {tmp_path / 'table.txt'}; if the change is intended, run `{COMMAND}`"
        in lines[0]
    )
    assert "-fixture/oracle  100.0%" in lines
    assert "+fixture/oracle  99.0%" in lines
    assert " Model    Overall" in lines


def test_a_whitespace_change_is_named_as_such(tmp_path: Path) -> None:
    """A lost trailing space is invisible in a diff: the message says what kind of change it is."""
    (tmp_path / "table.txt").write_text("Model  \n")
    with pytest.raises(pytest.fail.Exception, match="whitespace only"):
        assert_golden("table.txt", "Model\n", folder=tmp_path, regenerate=False)


def test_a_missing_golden_file_fails_naming_the_command(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match=f"does not exist: run `{COMMAND}`"):
        assert_golden("new.txt", "text\n", folder=tmp_path, regenerate=False)


def test_regenerating_writes_the_output_whole(tmp_path: Path) -> None:
    assert_golden("new.txt", "a  \nb\n", folder=tmp_path / "golden", regenerate=True)
    assert (tmp_path / "golden" / "new.txt").read_bytes() == b"a  \nb\n"


def test_normalise_replaces_the_tmp_folder_and_the_version_only(tmp_path: Path) -> None:
    text = f"wrote {tmp_path}/r.md by lobrec {__version__}; recorded by lobrec 0.0.1\n"
    assert normalise(text, tmp_path) == "wrote <tmp>/r.md by lobrec <version>; recorded by lobrec 0.0.1\n"


def test_golden_env_is_fixed_whatever_the_caller_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "33")
    assert set(golden_env(80)) == {"COLUMNS", "PATH", "TZ"}
    assert golden_env(80)["COLUMNS"] == "80"

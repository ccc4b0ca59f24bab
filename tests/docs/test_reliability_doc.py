"""`docs/reliability.md` and the tests it names list the same rows.

The page names tests by their path under `tests/` (`running/test_live_faults.py::test_x[row]`).
Every test of a file the page names (each parametrised row by its id) is a row of the page, every
row of the page is a test, and the rows are numbered 1, 2, 3, ... without gaps.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

TESTS = Path(__file__).parents[1]
DOC = TESTS.parent / "docs" / "reliability.md"
REFERENCE = re.compile(r"`((?:\w+/)+test_\w+\.py)::([^`]+)`")


def named_rows() -> set[str]:
    return {f"{path}::{name}" for path, name in REFERENCE.findall(DOC.read_text(encoding="utf-8"))}


def node_ids(files: set[str]) -> set[str]:
    """The node id of every test in `files`, from the modules themselves (explicit `ids` only)."""
    found = set()
    for relative in sorted(files):
        assert (TESTS / relative).is_file(), f"docs/reliability.md names {relative}, which is no file"
        module = importlib.import_module("tests." + relative.removesuffix(".py").replace("/", "."))
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__:
                continue
            marks = [mark for mark in getattr(function, "pytestmark", []) if mark.name == "parametrize"]
            assert len(marks) <= 1, f"{relative}::{name}: one parametrize per test, with ids"
            if not marks:
                found.add(f"{relative}::{name}")
                continue
            ids = marks[0].kwargs.get("ids")
            assert isinstance(ids, list), f"{relative}::{name}: parametrize needs an explicit ids list"
            found.update(f"{relative}::{name}[{row}]" for row in ids)
    return found


def test_every_test_of_a_named_file_is_a_row_of_the_page_and_back() -> None:
    named = named_rows()
    tests = node_ids({row.split("::")[0] for row in named})
    assert sorted(tests - named) == [], "tests missing from docs/reliability.md"
    assert sorted(named - tests) == [], "rows of docs/reliability.md that are no test"


def test_rows_are_numbered_in_order() -> None:
    numbers = [int(n) for n in re.findall(r"^\| (\d+) \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1))

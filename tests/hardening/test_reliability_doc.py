"""`docs/reliability.md` and the hardening tests list the same rows.

Every test of this folder (each parametrised row by its id) is named in the page, every name in the
page is a test, and the page's rows are numbered 1, 2, 3, ... without gaps.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

HERE = Path(__file__).parent
DOC = HERE.parents[1] / "docs" / "reliability.md"
REFERENCE = re.compile(r"`(test_\w+\.py::[^`]+)`")


def node_ids() -> set[str]:
    """The node id of every test in this folder, from the modules themselves (explicit `ids` only)."""
    found = set()
    for path in sorted(HERE.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        module = importlib.import_module(f"tests.hardening.{path.stem}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test_") or function.__module__ != module.__name__:
                continue
            marks = [mark for mark in getattr(function, "pytestmark", []) if mark.name == "parametrize"]
            assert len(marks) <= 1, f"{path.name}::{name}: one parametrize per test, with ids"
            if not marks:
                found.add(f"{path.name}::{name}")
                continue
            ids = marks[0].kwargs.get("ids")
            assert isinstance(ids, list), f"{path.name}::{name}: parametrize needs an explicit ids list"
            found.update(f"{path.name}::{name}[{row}]" for row in ids)
    return found


def test_every_test_is_a_row_of_the_page_and_back() -> None:
    named = set(REFERENCE.findall(DOC.read_text(encoding="utf-8")))
    tests = node_ids()
    assert sorted(tests - named) == [], "tests missing from docs/reliability.md"
    assert sorted(named - tests) == [], "rows of docs/reliability.md that are no test"


def test_rows_are_numbered_in_order() -> None:
    numbers = [int(n) for n in re.findall(r"^\| (\d+) \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1))

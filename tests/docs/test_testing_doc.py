"""docs/testing.md's rules hold for the test tree: no test pins its own example count, and the
layout table names every folder of tests (and only those)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parents[1]
DOC = TESTS.parent / "docs" / "testing.md"


def test_no_test_pins_its_own_example_count() -> None:
    pinned = [
        f"{path.relative_to(TESTS)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in ("conftest.py", "examples.py", Path(__file__).name)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bmax_examples\s*=", line)
    ]
    assert pinned == [], "use the profile, or tests/support/examples.costly, not max_examples="


def test_the_layout_table_names_every_test_folder() -> None:
    named = set(re.findall(r"^\| `(\w+)/` \|", DOC.read_text(encoding="utf-8"), re.MULTILINE))
    folders = {
        path.name
        for path in TESTS.iterdir()
        if path.is_dir() and path.name not in ("support", "__pycache__") and any(path.rglob("test_*.py"))
    }
    assert named == folders

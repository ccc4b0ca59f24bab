"""What a newcomer reads matches what lobrec does: every environment variable the code reads is in
the README's table, the key-length rule is stated with its number, and `make demo` names every
file it writes."""

from __future__ import annotations

import re
from pathlib import Path

from lobrec.running.gateway import KEY_ENV, MIN_KEY_LENGTH, URL_ENV

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def read_variables() -> set[str]:
    """Every upper-case name the package looks up in the environment (`environ.get("X")`,
    `environ["X"]`), plus the gateway's two named constants."""
    found = {KEY_ENV, URL_ENV}
    for path in (ROOT / "src" / "lobrec").rglob("*.py"):
        found |= set(re.findall(r"environ(?:\.get\(|\[)\"([A-Z_]+)\"", path.read_text()))
    return found


def test_every_variable_lobrec_reads_is_in_the_readme_table() -> None:
    table = README.partition("### Environment variables")[2].partition("\n\n##")[0]
    rows = set(re.findall(r"^\| `([A-Z_]+)`", table, flags=re.MULTILINE))
    assert read_variables() <= rows
    assert "COLUMNS" in read_variables()


def test_the_key_length_rule_is_stated_with_its_number() -> None:
    assert f"at least {MIN_KEY_LENGTH} characters" in README


def test_make_demo_names_every_file_it_writes() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.partition("\ndemo:")[2].partition("\n\n")[0]
    written = re.findall(r"--(?:json|markdown|html|csv|jsonl|junit|summary) (\S+)", recipe)
    (echo,) = [line for line in recipe.splitlines() if line.strip().startswith("@echo")]
    assert len(written) == 3
    assert all(path in echo for path in written)

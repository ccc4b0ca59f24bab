"""The leaderboard when output is not a terminal (a CI log, a pipe), through the real command.

Without COLUMNS the table is laid out whole (no column alone in a second table); with COLUMNS it
takes that width; either way the key under it breaks between phrases, never inside one.
`--by-group` adds the per-group table.
"""

from __future__ import annotations

from pathlib import Path

from lobrec.core.metrics.results import decode_results
from lobrec.reports.view import report_view
from tests.support.cli import cli_env, run_lobrec

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "fixtures" / "cassettes"
KEY_LINES = list(report_view(decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())).key)
"""The marks, the repeats and the tiers explained, one line each."""
PHRASES = {phrase for line in KEY_LINES for phrase in line.split(" · ")}


def _rescore(*extra: str, columns: str | None) -> list[str]:
    env = {name: value for name, value in cli_env().items() if name != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    done = run_lobrec(["rescore", str(CASSETTES), *extra], env=env)
    assert done.returncode == 0, done.stderr.decode()
    return [line.rstrip() for line in done.stdout.decode().splitlines()]


def _key_lines(lines: list[str]) -> list[str]:
    start = next(index for index, line in enumerate(lines) if line.startswith("↓ lower is better"))
    end = next(
        index
        for index, line in enumerate(lines)
        if index > start and line.startswith(("•", "fixture/", "Judged with"))
    )
    return lines[start:end]


def test_piped_without_columns_the_leaderboard_is_one_table_and_the_key_whole_lines() -> None:
    lines = _rescore(columns=None)
    headings = [line for line in lines if line.startswith("Model")]
    assert len(headings) == 1, "one table: no column is put in a second one"
    assert all(word in headings[0] for word in ("Overall", "latency", "cases", "Scored", "Errored", "Stale"))
    assert _key_lines(lines) == KEY_LINES


def test_piped_with_columns_the_width_is_taken_and_no_phrase_is_split() -> None:
    lines = _rescore(columns="90")
    assert len([line for line in lines if line.startswith("Model")]) > 1, "90 columns split the table"
    assert all(len(line) <= 90 for line in lines if not line.startswith("•"))
    key = _key_lines(lines)
    assert len(key) > 2, "the repeats key is wider than 90 columns"
    for line in key:
        assert {phrase.rstrip(" ·") for phrase in line.split(" · ")} <= PHRASES, line


def test_by_group_prints_the_group_table_in_the_terminal() -> None:
    plain = _rescore(columns=None)
    lines = _rescore("--by-group", columns=None)
    assert not any(line.strip() == "By group" for line in plain)
    assert any(line.strip() == "By group" for line in lines)
    (chains,) = [line for line in lines if line.startswith("Chains")]
    assert "100.0% (12/12)" in chains and "50.0% (6/12)" in chains
    assert "--by-group" in run_lobrec(["record", "--help"], env=cli_env()).stdout.decode()

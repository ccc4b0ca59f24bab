"""At 80 columns every terminal table either fits or is printed in parts: no value, name or title
is ever cut, and a model name breaks only after its `/`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.reports.terminal import render_leaderboard
from lobrec.reports.terminal_layout import pack_phrases

ROOT = Path(__file__).resolve().parents[2]


def fixtures_run() -> RunResult:
    return decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())


def capture(width: int) -> list[str]:
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    render_leaderboard(fixtures_run(), console, by_group=True)
    return [line.rstrip() for line in console.export_text().splitlines()]


def group_rows(lines: list[str]) -> list[str]:
    start = next(index for index, line in enumerate(lines) if line.strip() == "By group")
    return [
        line
        for line in lines[start:]
        if re.match(r"(Selection|Arguments|Near misses|No call needed|Parallel|Chains) ", line)
    ]


@pytest.mark.parametrize("width", [80, 200])
def test_every_group_cell_is_whole(width: int) -> None:
    lines = capture(width)
    assert all(len(line) <= width for line in lines)
    rows = group_rows(lines)
    cells = [cell for row in rows for cell in re.findall(r"\d+\.\d%(?: \(\d+/\d+\))?", row)]
    assert cells and all(re.fullmatch(r"\d+\.\d% \(\d+/\d+\)", cell) for cell in cells)
    # Ten models, six groups: every cell printed once, whole.
    assert len(cells) == 10 * 6


def test_group_headings_break_names_only_after_a_slash() -> None:
    lines = capture(80)
    start = next(index for index, line in enumerate(lines) if line.strip() == "By group")
    words = {
        word
        for line in lines[start:]
        if not line.startswith(("Selection", "Arguments", "Near", "No call", "Parallel", "Chains", "─"))
        for word in line.split()
    }
    names = {model.model for model in fixtures_run().models}
    halves = {half for name in names for half in (name.split("/")[0] + "/", name.split("/")[-1])}
    assert words - {"By", "group", "Group"} <= names | halves
    assert {"no-temperature", "plausible", "fixture/"} <= words


def test_the_routing_table_keeps_its_labels_on_one_line_at_80() -> None:
    lines = capture(80)
    assert any(line.startswith("oracle router (a passing candidate)") for line in lines)
    assert any(line.startswith("Nex's choices, answered directly") for line in lines)


@pytest.mark.parametrize("width", [50, 60, 80, 120])
def test_a_packed_key_line_never_passes_the_width(width: int) -> None:
    key = "↓ lower is better · Stale counts stale and unrecorded cases · — nothing to rate · terms: x"
    packed = pack_phrases(key, width).plain.splitlines()
    assert all(len(line) <= width for line in packed)
    assert " ".join(packed).replace(" · ", " ").replace(" ·", "") == key.replace(" · ", " ")

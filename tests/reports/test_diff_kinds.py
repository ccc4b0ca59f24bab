"""`lobrec diff` shows how the failure kinds moved, on the committed cassettes.

Each side is a committed fixture folder (re-judged by the command, as `rescore` would); the table's
numbers are checked against the committed results file (fixtures/expected-results.json), which
`make demo` must reproduce byte for byte, so both come from the same cassettes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.judge.failures import FAILURE_KINDS, kind_label
from lobrec.core.metrics.results import ModelResult, decode_results

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "fixtures" / "cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
HEADER = "| Failure kind | A | B | B − A |  |"


def committed(model: str) -> ModelResult:
    run = decode_results(EXPECTED.read_bytes())
    return next(entry for entry in run.models if entry.model == model)


def folder(model: str) -> str:
    return str(CASSETTES / model.replace("/", "%2F"))


def markdown_kinds(text: str) -> list[tuple[str, int, int, str, str]]:
    """The Markdown kind table's rows: (kind, A, B, the change, word), the total row last."""
    lines = text.splitlines()
    start = lines.index(HEADER) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        kind, a, b, change, word = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((kind.replace("\\_", "_"), int(a), int(b), change, word))
    return rows


def expected_rows(a: dict[str, int], b: dict[str, int]) -> list[tuple[str, int, int, str, str]]:
    """The rows the table must hold, worked out from the two results entries' `failures`."""
    kinds = [kind for kind in FAILURE_KINDS if kind in a or kind in b]
    rows = [(kind_label(kind), a.get(kind, 0), b.get(kind, 0)) for kind in kinds]
    rows.append(("failed steps", sum(a.values()), sum(b.values())))
    out = []
    for kind, x, y in rows:
        change = f"{y - x:+d}" if y != x else "0"
        out.append((kind, x, y, change, "fewer" if y < x else "more" if y > x else ""))
    return out


def run_diff(tmp_path: Path, a: str, b: str) -> tuple[str, str]:
    out = tmp_path / "diff.md"
    result = CliRunner().invoke(app, ["diff", a, b, "--markdown", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == Exit.OK, result.stderr
    return out.read_text(encoding="utf-8"), result.stdout


def terminal_rows(stdout: str, rows: list[tuple[str, int, int, str, str]]) -> None:
    for kind, a, b, change, word in rows:
        pattern = rf"^{re.escape(kind)}\s+{a}\s+{b}\s+{re.escape(change)}\s*{word}\s*$"
        assert re.search(pattern, stdout, re.MULTILINE), f"no terminal row {pattern!r} in:\n{stdout}"


def test_oracle_against_sloppy_shows_every_kind_sloppy_has(tmp_path: Path) -> None:
    oracle, sloppy = committed("fixture/oracle"), committed("fixture/sloppy")
    assert oracle.failures == {} and sum(sloppy.failures.values()) == 40  # the fixtures as committed
    text, stdout = run_diff(tmp_path, folder("fixture/oracle"), folder("fixture/sloppy"))
    rows = markdown_kinds(text)
    assert rows == expected_rows(oracle.failures, sloppy.failures)
    assert rows[-1] == ("failed steps", 0, 40, "+40", "more")
    assert ("args not JSON", 0, 9, "+9", "more") in rows
    terminal_rows(stdout, rows)
    assert "Failure kinds count the failed steps of every scored case on each side, paired or not." in stdout


def test_eager_against_sloppy_moves_kinds_both_ways(tmp_path: Path) -> None:
    eager, sloppy = committed("fixture/eager"), committed("fixture/sloppy")
    text, stdout = run_diff(tmp_path, folder("fixture/eager"), folder("fixture/sloppy"))
    rows = markdown_kinds(text)
    assert rows == expected_rows(eager.failures, sloppy.failures)
    words = {row[4] for row in rows}
    assert {"fewer", "more"} <= words  # wrong_tool falls, made_up_tool rises
    assert ("wrong tool", eager.failures["wrong_tool"], sloppy.failures["wrong_tool"]) == rows[
        [row[0] for row in rows].index("wrong tool")
    ][:3]
    terminal_rows(stdout, rows)


def test_a_repeated_side_counts_every_run(tmp_path: Path) -> None:
    flaky, sloppy = committed("fixture/flaky"), committed("fixture/sloppy")
    assert flaky.repeats is not None and flaky.repeats.runs == 3
    text, stdout = run_diff(tmp_path, folder("fixture/flaky"), folder("fixture/sloppy"))
    assert markdown_kinds(text) == expected_rows(flaky.failures, sloppy.failures)
    failed = sum(
        not step.passed
        for cases in [flaky.cases, *(entry.cases for entry in flaky.repeats.per_run[1:])]
        for case in cases
        if case.status == "scored"
        for step in case.steps
    )
    assert markdown_kinds(text)[-1][1] == failed == sum(flaky.failures.values())
    assert "over every run (A over 3 runs, B over 1 run)" in stdout


def test_a_results_file_from_before_kinds_counts_its_failed_steps_as_unclassified(
    tmp_path: Path,
) -> None:
    data = json.loads(EXPECTED.read_bytes())
    (entry,) = [model for model in data["models"] if model["model"] == "fixture/sloppy"]
    entry.pop("failures")
    for case in entry["cases"]:
        for step in case["steps"]:
            for key in ("failure_kind", "failure_argument", "failure_check"):
                step.pop(key, None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**data, "models": [entry]}), encoding="utf-8")
    sloppy = committed("fixture/sloppy")
    text, _ = run_diff(tmp_path, str(old), folder("fixture/sloppy"))
    rows = markdown_kinds(text)
    total = sum(sloppy.failures.values())
    assert rows[-2:] == [
        ("unclassified", total, 0, f"{-total:+d}", "fewer"),
        ("failed steps", total, total, "0", ""),
    ]
    assert [row[:3] for row in rows[:-2]] == [(kind_label(kind), 0, n) for kind, n in sloppy.failures.items()]


def test_two_sides_without_failed_steps_say_so(tmp_path: Path) -> None:
    text, stdout = run_diff(tmp_path, folder("fixture/oracle"), folder("fixture/oracle"))
    assert HEADER not in text
    assert "Failure kinds: no failed step on either side." in text
    assert "Failure kinds: no failed step on either side." in stdout

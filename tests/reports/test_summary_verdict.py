"""The CI job summary starts with the run's verdict and each failed gate in one line, so a reviewer
sees why a job is red before the leaderboard; without gates (a library call) it has no verdict."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.reports.summary import to_summary
from tests.support.sample_results import sample_run, sample_suite

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"


def _rescore(tmp_path: Path, models: list[str], *options: str) -> tuple[int, list[str]]:
    cassettes = tmp_path / "cassettes"
    for model in models:
        shutil.copytree(FIXTURES / model, cassettes / model)
    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(
        app, ["rescore", str(cassettes), "--jobs", "1", "--summary", str(summary), *options]
    )
    return result.exit_code, summary.read_text(encoding="utf-8").splitlines()


def test_a_failed_gate_heads_the_summary(tmp_path: Path) -> None:
    code, lines = _rescore(tmp_path, ["fixture%2Foracle", "fixture%2Fsloppy"], "--fail-under", "80")
    assert code == 1
    assert lines[0].startswith("### lobrec failed: lobstack-tools ")
    assert lines[2] == "- gate failed: overall score below 80%: fixture/sloppy (50.0%)"
    assert lines[3] == ""  # one line per failed gate, then the leaderboard
    assert lines[4].startswith("| Model |")


def test_a_passing_run_says_so_first(tmp_path: Path) -> None:
    code, lines = _rescore(tmp_path, ["fixture%2Foracle"], "--fail-under", "80")
    assert code == 0
    assert lines[0].startswith("### lobrec passed: lobstack-tools ")
    assert lines[2] == "Every gate passed."
    assert not any("gate failed" in line for line in lines)


def test_every_failed_gate_has_its_line_and_none_means_no_verdict() -> None:
    failed = ["overall score below 80%: a*b", "errored cases over --max-errored 0: m (3 of 80)"]
    lines = to_summary(sample_run(), sample_suite(), failed).splitlines()
    assert lines[0].startswith("### lobrec failed: ")
    assert lines[2:4] == [
        r"- gate failed: overall score below 80%: a\*b",
        "- gate failed: errored cases over --max-errored 0: m (3 of 80)",
    ]
    assert to_summary(sample_run(), sample_suite()).startswith("### lobrec: ")

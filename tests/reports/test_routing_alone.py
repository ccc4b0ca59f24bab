"""`auto` rescored without the models it routed to: every report still names its candidates and says
they were not recorded, with the command that records them (a regression of the report view, where
a routed model with no compared candidate lost its notes)."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from lobrec.cli import app

ROOT = Path(__file__).resolve().parents[2]
AUTO = ROOT / "fixtures" / "cassettes" / "auto"
NOT_RECORDED = "not recorded, so not compared: fake/alpha, fake/beta"


def test_auto_alone_names_its_unrecorded_candidates_in_terminal_and_markdown(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    shutil.copytree(AUTO, cassettes / "auto")
    report = tmp_path / "report.md"
    result = CliRunner().invoke(
        app, ["rescore", str(cassettes), "--markdown", str(report)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    terminal = " ".join(result.stdout.split())
    assert "candidates Nex answered with: fake/alpha, fake/beta" in terminal
    assert NOT_RECORDED in terminal
    assert "lobrec record --model NAME" in terminal
    markdown = report.read_text(encoding="utf-8")
    assert "#### Routing of auto" in markdown
    assert f"- {NOT_RECORDED}" in markdown

"""`auto` rescored beside fake/alpha but without fake/beta (the committed cassettes): every report's
routing table is over the cases Nex answered with fake/alpha only, says "partial" with both counts,
shows one denominator on every row, and no oracle scores below Nex."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.core.metrics.results import decode_results

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"


def test_a_candidate_not_recorded_makes_the_routing_partial_in_the_reports(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    for folder in ("auto", "fake%2Falpha"):
        shutil.copytree(FIXTURES / folder, cassettes / folder)
    out, report = tmp_path / "results.json", tmp_path / "report.md"
    result = CliRunner().invoke(
        app, ["rescore", str(cassettes), "--json", str(out), "--markdown", str(report), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    (auto,) = [model for model in decode_results(out.read_bytes()).models if model.model == "auto"]
    assert auto.routing is not None
    (run,) = auto.routing.runs
    by_beta = sum("fake/beta" in case.chosen for case in auto.routing.cases)
    assert (run.cases, run.unrecorded_cases) == (80 - by_beta, by_beta) and by_beta > 0
    assert run.regret is not None and run.regret >= 0
    assert run.oracle.overall.rate is not None and run.nex.overall.rate is not None
    assert run.oracle.overall.rate >= run.nex.overall.rate

    markdown = report.read_text(encoding="utf-8")
    heading = f"Run 1, partial: {run.cases} cases scored for Nex and every recorded candidate ({by_beta} more"
    assert heading in markdown
    table = markdown.split(heading, 1)[1].split("\n\n")[1].splitlines()[2:]
    assert len(table) == 4  # Nex, fake/alpha, direct, oracle
    assert all(f"/{run.cases} |" in row for row in table), table

"""`--group G` on rescore and record (issue 13): the run covers that group's cases only."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[2]


def test_rescore_of_one_group_reports_that_group_only(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = run_lobrec(
        ["rescore", str(ROOT / "fixtures" / "cassettes"), "--group", "chains", "--json", str(out)]
    )
    assert done.returncode == 0, done.stderr.decode()
    suite = json.loads((ROOT / "suite" / "suite.json").read_bytes())
    chains = [case["id"] for case in suite["cases"] if case["group"] == "chains"]
    for model in json.loads(out.read_bytes())["models"]:
        assert [case["id"] for case in model["cases"]] == chains
        assert model["metrics"]["chains"] == model["metrics"]["overall"]
        assert list(model["groups"]) == ["chains"]


def test_an_unknown_group_is_a_one_line_error_naming_the_groups() -> None:
    done = run_lobrec(["rescore", str(ROOT / "fixtures" / "cassettes"), "--group", "chain"])
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "lobrec: no such group in suite 1.3.0: chain "
        "(groups: selection, arguments, near_misses, no_call, parallel, chains)\n"
    )

"""CI rescores the committed fixture cassettes offline and compares with the reviewed expected results.

A scorer or check change that moves any number fails here until `make record-fixtures` (or a plain
rescore) rewrites `fixtures/expected-results.json` and the diff is reviewed.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lobrec.core.results import RunResult, encode_results
from lobrec.replay import rescore
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "fixtures" / "expected-results.json"
FIXTURE_MODELS = [
    "fixture/eager",
    "fixture/flaky",
    "fixture/no-temperature",
    "fixture/oracle",
    "fixture/plausible",
    "fixture/silent",
    "fixture/sloppy",
]


@pytest.fixture(scope="module")
def rescored() -> RunResult:
    return asyncio.run(
        rescore(load_suite(ROOT / "suite" / "suite.json"), ROOT / "fixtures" / "cassettes")
    ).run


def test_rescoring_committed_cassettes_gives_the_expected_results_byte_for_byte(
    rescored: RunResult,
) -> None:
    assert [m.model for m in rescored.models] == FIXTURE_MODELS
    assert encode_results(rescored) == EXPECTED.read_bytes()


def test_no_temperature_fixture_is_flagged(rescored: RunResult) -> None:
    flagged = {m.model: m.temperature_ignored for m in rescored.models}
    assert flagged == {model: model == "fixture/no-temperature" for model in FIXTURE_MODELS}


def test_the_cli_rescore_writes_the_same_file(tmp_path: Path) -> None:
    lobrec = str(Path(sys.executable).with_name("lobrec"))
    out = tmp_path / "results.json"
    completed = subprocess.run(
        [lobrec, "rescore", "fixtures/cassettes", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == EXPECTED.read_bytes()


def test_fail_under_exits_1_naming_the_models_below() -> None:
    from typer.testing import CliRunner

    from lobrec.cli import Exit, app

    runner = CliRunner()
    below = runner.invoke(app, ["rescore", str(ROOT / "fixtures" / "cassettes"), "--fail-under", "60"])
    assert below.exit_code == Exit.BELOW_THRESHOLD
    assert below.stderr.strip().splitlines()[-1] == (
        "lobrec: gate failed: overall score below 60%: fixture/eager (0.0%), fixture/plausible (17.5%), "
        "fixture/silent (17.5%), fixture/sloppy (50.0%)"
    )
    assert (
        runner.invoke(app, ["rescore", str(ROOT / "fixtures" / "cassettes"), "--fail-under", "0"]).exit_code
        == Exit.OK
    )


def test_plausible_was_recorded_on_1_0_0_and_its_slips_fail_at_1_1_0(rescored: RunResult) -> None:
    """fixture/plausible answers every call step with one of the suite's wrong answers; its
    cassettes were recorded on suite 1.0.0. At 1.1.0 no call case passes; only abstentions do."""
    manifest = json.loads(
        (ROOT / "fixtures" / "cassettes" / "fixture%2Fplausible" / "manifest.json").read_bytes()
    )
    assert manifest["suite"]["version"] == "1.0.0"
    (model,) = [m for m in rescored.models if m.model == "fixture/plausible"]
    passed = {case.id for case in model.cases if case.passed}
    assert passed == {case.id for case in model.cases if case.group == "no_call"}
    assert model.counts.stale == 0

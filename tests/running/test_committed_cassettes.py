"""CI rescores the committed fixture cassettes offline and compares with the reviewed expected results.

A scorer or check change that moves any number fails here until `make record-fixtures` (or a plain
rescore) rewrites `fixtures/expected-results.json` and the diff is reviewed.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import msgspec
import pytest

from lobrec.core.metrics.results import RunResult, encode_results
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite
from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "fixtures" / "expected-results.json"
FIXTURE_MODELS = [
    "auto",
    "fake/alpha",
    "fake/beta",
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
    # The command line adds where the suite came from (the library is handed a Suite, not a file).
    stamped = msgspec.structs.replace(
        rescored, suite=msgspec.structs.replace(rescored.suite, source="bundled")
    )
    assert encode_results(stamped) == EXPECTED.read_bytes()


def test_no_temperature_fixture_is_flagged(rescored: RunResult) -> None:
    flagged = {m.model: m.temperature_ignored for m in rescored.models}
    assert flagged == {model: model == "fixture/no-temperature" for model in FIXTURE_MODELS}


def test_the_cli_rescore_writes_the_same_file(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    completed = run_lobrec(
        ["rescore", "fixtures/cassettes", "--json", str(out)],
        cwd=ROOT,
        text=True,
        env=dict(os.environ),
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


def test_the_routing_of_auto_follows_the_fake_gateways_rules(rescored: RunResult) -> None:
    """auto answers each case as the model it picks: its verdicts are that model's, each candidate
    fails only cases it is scripted to miss, the oracle passes every case one candidate passed, and
    the regret is the cases auto's picks failed that the other candidate passed."""
    from lobrec.fakegateway.models import auto_choice, routed_misses

    suite = load_suite(ROOT / "suite" / "suite.json")
    by_name = {m.model: {case.id: case.passed for case in m.cases} for m in rescored.models}
    (auto,) = [m for m in rescored.models if m.model == "auto"]
    routing = auto.routing
    assert routing is not None and routing.unrecorded == []
    assert routing.recorded == ["fake/alpha", "fake/beta"]
    other = {"fake/alpha": "fake/beta", "fake/beta": "fake/alpha"}
    regret = 0
    for case, routed in zip(suite.cases, routing.cases, strict=True):
        pick = auto_choice(case.id)
        assert routed.chosen == [pick]
        assert routed.outcome == routed.chosen_outcomes[pick]
        assert routed.outcome == ("passed" if by_name[pick][case.id] else "failed")
        for name in other:
            assert by_name[name][case.id] or routed_misses(name, case.id)
        regret += not by_name[pick][case.id] and by_name[other[pick]][case.id]
    either = sum(by_name["fake/alpha"][c.id] or by_name["fake/beta"][c.id] for c in suite.cases)
    (run,) = routing.runs
    assert (run.cases, run.oracle.overall.passed) == (80, either)
    assert run.direct.overall == run.nex.overall
    assert run.regret == round(100 * regret / 80, 4) and regret > 0


def test_rescore_names_an_unrecorded_candidate_with_the_command_that_records_it(tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from lobrec.cli import app

    for folder in ("auto", "fake%2Falpha"):
        shutil.copytree(ROOT / "fixtures" / "cassettes" / folder, tmp_path / folder)
    out = tmp_path / "results.json"
    result = CliRunner().invoke(app, ["rescore", str(tmp_path), "--json", str(out)])
    assert result.exit_code == 0, result.stderr
    assert (
        f"lobrec: auto: answered with fake/beta, not recorded here. Record them with: "
        f"lobrec record --model fake/beta --cassettes {tmp_path}"
    ) in result.stderr.splitlines()
    from lobrec.core.metrics.results import decode_results

    (auto,) = [m for m in decode_results(out.read_bytes()).models if m.model == "auto"]
    assert auto.routing is not None
    assert (auto.routing.recorded, auto.routing.unrecorded) == (["fake/alpha"], ["fake/beta"])


def test_the_markdown_report_shows_failure_kinds_tiers_and_routing(rescored: RunResult) -> None:
    from lobrec.reports.markdown import render_markdown

    text = render_markdown(rescored)
    assert "| Model | Tier | Overall |" in text
    assert "| fixture/oracle | 1 | 100.0% |" in text
    assert "| fixture/silent | 0 | 66 | 0 | 0 | 0 | 0 | 0 | 0 | 66 |" in text
    assert "#### Routing of auto" in text
    assert "| oracle router (a passing candidate) | 98.8% | 79/80 | \\$0.0811 | 87 ms |" in text

"""Rescore of repeated runs (issue 14, read side): `runs/<n>/` folders built by hand from the
committed cassettes, every figure checked against values worked out here by hand.

The oracle passes every case; `tests.support.repeated.break_case` makes one run of a case call a made-up
tool. The recording used by most tests: run 2 breaks sel-01 and sel-02, run 3 breaks sel-01, so
sel-01 passes 1 of 3 runs, sel-02 2 of 3, and the other 78 cases 3 of 3.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from lobrec.cli.rescore import incomplete_summary
from lobrec.core.metrics.rates import rate
from lobrec.core.metrics.results import ModelResult, RunResult, decode_results, encode_results
from lobrec.reports.markdown import render_markdown
from lobrec.reports.terminal import render_leaderboard
from lobrec.running.replay import RescoreOutcome, rescore
from lobrec.suite_file import load_suite
from tests.reports.html.test_html_report import cells_data
from tests.support.repeated import COMMITTED, ORACLE, ROOT, SLOPPY, repeated_model

SUITE = load_suite(ROOT / "suite" / "suite.json")
BROKEN = {2: ["sel-01", "sel-02"], 3: ["sel-01"]}


def _rescore(root: Path, jobs: int = 1) -> RescoreOutcome:
    return asyncio.run(rescore(SUITE, root, jobs=jobs))


def _only(outcome: RescoreOutcome) -> ModelResult:
    (model,) = outcome.run.models
    return model


@pytest.fixture(scope="module")
def oracle_three_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repeated") / "cassettes"
    repeated_model(root, ORACLE, runs=(2, 3), broken=BROKEN)
    return root


@pytest.fixture(scope="module")
def repeated(oracle_three_runs: Path) -> ModelResult:
    return _only(_rescore(oracle_three_runs))


@pytest.fixture(scope="module")
def plain_oracle(tmp_path_factory: pytest.TempPathFactory) -> ModelResult:
    root = tmp_path_factory.mktemp("plain") / "cassettes"
    shutil.copytree(COMMITTED / ORACLE, root / ORACLE)
    return _only(_rescore(root))


def test_each_case_passes_k_of_3(repeated: ModelResult) -> None:
    repeats = repeated.repeats
    assert repeats is not None and repeats.runs == 3 and repeated.run_count == 3
    by_id = {case.id: case for case in repeats.cases}
    assert len(by_id) == 80
    assert (by_id["sel-01"].passes, by_id["sel-01"].scored) == (1, 3)
    assert by_id["sel-01"].outcomes == ["passed", "failed", "failed"]
    assert (by_id["sel-02"].passes, by_id["sel-02"].outcomes) == (2, ["passed", "failed", "passed"])
    assert all((case.passes, case.scored) == (3, 3) for case in repeats.cases if case.id not in BROKEN[2])
    assert repeats.flaky == ["sel-01", "sel-02"]


def test_pass_hat_and_pass_at_k_with_their_intervals(repeated: ModelResult) -> None:
    assert repeated.repeats is not None
    assert repeated.repeats.pass_hat_k == rate(78, 80)  # every case but sel-01 and sel-02
    assert repeated.repeats.pass_at_k == rate(80, 80)  # every case passed at least once
    assert repeated.repeats.pass_hat_k.rate == 97.5


def test_each_run_is_judged_on_its_own(repeated: ModelResult, plain_oracle: ModelResult) -> None:
    assert repeated.repeats is not None
    runs = repeated.repeats.per_run
    assert [entry.run for entry in runs] == [1, 2, 3]
    assert [(e.metrics.overall.passed, e.metrics.overall.total) for e in runs] == [
        (80, 80),
        (78, 80),
        (79, 80),
    ]
    assert [e.metrics.right_tool.passed for e in runs] == [66, 64, 65]  # sel-01, sel-02: selection
    assert [e.metrics.made_up_tool.passed for e in runs] == [0, 2, 1]
    assert [e.metrics.valid_arguments.total for e in runs] == [97, 95, 96]  # made-up calls leave
    assert runs[0].metrics == plain_oracle.metrics  # run 1 is the model folder, as before
    # Run 1's cases are the model's `cases`; runs 2 and 3 carry theirs for the HTML drill-down.
    assert runs[0].cases == [] and repeated.cases == plain_oracle.cases
    assert [case.passed for case in runs[1].cases if case.id in ("sel-01", "sel-02", "sel-03")] == [
        False,
        False,
        True,
    ]
    assert len(runs[2].cases) == 80


def test_spread_over_runs(repeated: ModelResult) -> None:
    assert repeated.repeats is not None
    overall = repeated.repeats.spread["overall"]
    # 100, 97.5 and 98.75: mean 98.75; deviations 1.25, -1.25, 0, so sample sd sqrt(3.125 / 2) = 1.25.
    assert (overall.runs, overall.mean, overall.min, overall.max, overall.sd) == (3, 98.75, 97.5, 100.0, 1.25)
    right = repeated.repeats.spread["right_tool"]
    # 66/66, 64/66, 65/66: sd is one case in 66, 100/66 pp.
    assert (right.mean, right.sd) == (round(19500 / 198, 4), round(100 / 66, 4))
    assert repeated.repeats.spread["valid_arguments"].sd == 0.0
    assert list(repeated.repeats.spread) == [
        "overall",
        "right_tool",
        "valid_arguments",
        "made_up_tool",
        "chains",
        "parallel",
        "no_call_needed",
        "latency_p50_ms",
        "cost_per_100_cases_usd",
    ]


def test_the_headline_is_the_mean_over_runs(repeated: ModelResult, plain_oracle: ModelResult) -> None:
    overall = repeated.metrics.overall
    assert (overall.rate, overall.passed, overall.total) == (98.75, 237, 240)
    # The interval of the mean at one run's size: 98.75% of 80 cases is 79 of 80.
    assert overall.ci95 == rate(79, 80).ci95
    right = repeated.metrics.right_tool
    assert (right.rate, right.passed, right.total, right.ci95) == (98.4848, 195, 198, rate(65, 66).ci95)
    assert repeated.metrics.made_up_tool.ci95 == rate(1, 97).ci95
    # Latency and cost over every run's calls: the runs are copies, so they are run 1's figures.
    assert repeated.metrics.latency_p50_ms == plain_oracle.metrics.latency_p50_ms
    assert repeated.metrics.cost_per_100_cases_usd == plain_oracle.metrics.cost_per_100_cases_usd
    assert repeated.counts.cases == 240 and repeated.counts.scored == 240
    assert repeated.answered_by == {name: 3 * n for name, n in plain_oracle.answered_by.items()}
    assert repeated.groups["selection"].overall.passed == 3 * 14 - 3


def test_the_file_round_trips_and_a_one_run_file_has_no_repeats(
    oracle_three_runs: Path, plain_oracle: ModelResult, tmp_path: Path
) -> None:
    run = _rescore(oracle_three_runs).run
    assert decode_results(encode_results(run)) == run
    assert "repeats" in json.loads(encode_results(run))["models"][0]
    # An empty runs/ folder is still one run: the file has no repeats key and is what it was.
    root = tmp_path / "cassettes"
    shutil.copytree(COMMITTED / ORACLE, root / ORACLE)
    (root / ORACLE / "runs").mkdir()
    one = _rescore(root).run
    assert _only(_rescore(root)) == plain_oracle
    assert b'"repeats"' not in encode_results(one)


def test_a_missing_run_folder_is_a_run_with_every_case_unrecorded(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    repeated_model(root, ORACLE, runs=(3,), broken={3: ["sel-01"]})
    outcome = _rescore(root)
    model = _only(outcome)
    assert model.repeats is not None and model.repeats.runs == 3
    second = model.repeats.per_run[1]
    assert (second.counts.unrecorded, second.has_scores) == (80, False)
    assert all("run 2 is not recorded" in (case.reason or "") for case in second.cases)
    # No case was scored in all three runs: pass^3 and pass@3 have nothing to rate.
    assert model.repeats.pass_hat_k == rate(0, 0) and model.repeats.pass_at_k == rate(0, 0)
    assert model.repeats.flaky == ["sel-01"]
    assert model.repeats.spread["overall"].runs == 2 and model.metrics.overall.rate == round(
        (100 + 98.75) / 2, 4
    )
    (line,) = incomplete_summary(outcome, root, None)
    assert line == (
        "fixture/oracle (3 runs): run 2 not recorded. Record them with: "
        f"lobrec record --model fixture/oracle --cassettes {root} --missing --repeat 3"
    )


def test_a_bad_run_manifest_errors_that_run_only(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    model_dir = repeated_model(root, ORACLE, runs=(2, 3))
    (model_dir / "runs" / "2" / "manifest.json").write_text("[]")
    (model_dir / "runs" / "3" / "sel-04.json").write_text("{not json")
    outcome = _rescore(root)
    model = _only(outcome)
    assert model.repeats is not None
    assert [entry.counts.errored for entry in model.repeats.per_run] == [0, 80, 1]
    assert [entry.metrics.overall.total for entry in model.repeats.per_run] == [80, 0, 79]
    assert model.counts.errored == 81
    unreadable = {replay.run: replay.unreadable for replay in outcome.models}
    assert (len(unreadable[1]), len(unreadable[2]), unreadable[3]) == (0, 80, ["sel-04"])
    (line,) = incomplete_summary(outcome, root, None)
    assert line.startswith("fixture/oracle (3 runs): run 2: no case can be re-judged (")
    assert "run 3: 1 unreadable (sel-04)" in line
    assert (
        f"Remove {model_dir / 'runs' / '2' / 'manifest.json'}, {model_dir / 'runs' / '3' / 'sel-04.json'}, "
        "then record" in line
    )


def test_a_run_manifest_of_another_model_errors_that_run(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    model_dir = repeated_model(root, ORACLE, runs=(2,))
    shutil.copy(COMMITTED / SLOPPY / "manifest.json", model_dir / "runs" / "2" / "manifest.json")
    model = _only(_rescore(root))
    assert model.repeats is not None
    errored = model.repeats.per_run[1].cases
    assert {case.status for case in errored} == {"errored"}
    assert "model 'fixture/sloppy' does not belong in this directory" in (errored[0].reason or "")
    assert model.repeats.per_run[0].counts.scored == 80


def _terminal(run: RunResult) -> str:
    out = io.StringIO()
    render_leaderboard(run, Console(file=out, width=220, color_system=None))
    return out.getvalue()


def test_the_reports_show_mean_sd_and_pass_hat_k(oracle_three_runs: Path, tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    shutil.copytree(oracle_three_runs, root)
    shutil.copytree(COMMITTED / SLOPPY, root / SLOPPY)
    run = _rescore(root).run
    markdown = render_markdown(run)
    assert "| Model | Tier | Overall | Runs | pass^K | Right tool |" in markdown
    # the sd is exactly 1.25 pp: one decimal, half up (docs/reports.md), prints 1.3
    assert "| fixture/oracle | 1 | 98.8% ± 1.3 | 3 | 97.5% (78/80) | 98.5% |" in markdown
    assert "| fixture/sloppy | 2 | 50.0% | 1 | — | 78.8% |" in markdown
    assert "| Overall | 100.0% | 97.5% | 98.8% | 98.8% | 97.5% | 100.0% | 1.3 pp |" in markdown
    assert "Flaky (2): sel-01, sel-02" in markdown
    assert "pass@3 100.0% (80/80)" in markdown
    terminal = _terminal(run)
    assert "98.8% ± 1.3" in terminal and "97.5% (78/80)" in terminal
    assert "fixture/oracle: flaky (2): sel-01, sel-02" in terminal
    assert "fixture/oracle: 3 runs; overall per run 100.0%, 97.5%, 98.8%" in terminal
    assert "Needs re-recording" not in terminal


def _one_run_models(root: Path) -> Path:
    """The committed model folders recorded once (a committed repeated model is left out)."""
    for folder in COMMITTED.iterdir():
        if folder.is_dir() and not (folder / "runs").exists():
            shutil.copytree(folder, root / folder.name)
    return root


def test_reports_of_one_run_models_do_not_change(tmp_path: Path) -> None:
    run = _rescore(_one_run_models(tmp_path / "cassettes")).run
    assert "pass^K" not in render_markdown(run) and "Runs" not in render_markdown(run)
    assert "pass^K" not in _terminal(run) and "Needs re-recording" not in _terminal(run)


def test_the_html_matrix_shows_k_of_k_and_each_runs_verdict(oracle_three_runs: Path, tmp_path: Path) -> None:
    from lobrec.reports.html import render_html

    page = render_html(_rescore(oracle_three_runs).run, SUITE)
    assert '<summary title="sel-01 · fixture/oracle · passed 1/3 runs (3 scored)">◐ 1/3</summary>' in page
    assert '<td class="cell flaky"><details class="cell" id="m0-sel-01">' in page
    assert '<summary title="sel-03 · fixture/oracle · passed 3/3 runs (3 scored)">✓ 3/3</summary>' in page
    # the drill-down's data (the page's script lays it out: tests/reports/html/test_html_drilldown.py)
    data = cells_data(page)
    cell = data["cells"]["m0-sel-02"]
    assert cell[3] is True  # repeated: each run's verdict in a line, then each run's steps
    assert [(run[0], run[1]) for run in cell[4]] == [(1, "pass"), (2, "fail"), (3, "pass")]
    run_2 = data["verdicts"][cell[4][1][2]]
    assert "not_a_tool" in json.dumps(run_2)  # run 2's made-up call
    assert '<span class="badge flaky">◐ flaky</span> <span>repeated runs' in page
    assert "flaky (2): sel-01, sel-02" in page
    single = render_html(_rescore(_one_run_models(tmp_path / "cassettes")).run, SUITE)
    assert '<td class="cell flaky"' not in single and "◐ flaky</span>" not in single  # no flaky legend
    assert not any(cell[3] for cell in cells_data(single)["cells"].values())


def test_the_html_matrix_says_which_runs_were_not_scored(tmp_path: Path) -> None:
    """Through `lobrec rescore --html`: sel-03's run 1 unrecorded reads `∅ 2/2 of 3` (its verdict
    is the worst of its runs, as in JUnit) with `1 unrecorded` on the cell (never `✓ 2/3`); sel-04's
    run 1 errored and runs 2 and 3 broken reads `✗ 0/2 of 3` with `1 errored` (never `✗ 0/3`); the
    hover keeps its words and names the run."""
    from typer.testing import CliRunner

    from lobrec.cli import app

    root = tmp_path / "cassettes"
    model_dir = repeated_model(root, ORACLE, runs=(2, 3), broken={2: ["sel-04"], 3: ["sel-04"]})
    (model_dir / "sel-03.json").unlink()
    path = model_dir / "sel-04.json"
    cassette = json.loads(path.read_bytes())
    cassette["interactions"][0]["response"]["status"] = {"code": 400, "message": "Bad Request"}
    path.write_text(json.dumps(cassette))
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["rescore", str(root), "--html", str(out), "--allow-stale", "--max-errored", "1"]
    )
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert (
        '<summary title="sel-03 · fixture/oracle · passed 2/3 runs (2 scored) · run 1 unrecorded">'
        '∅ 2/2 of 3<span class="unscored">1 unrecorded</span></summary>'
    ) in page
    assert (
        '<summary title="sel-04 · fixture/oracle · passed 0/3 runs (2 scored) · run 1 errored">'
        '✗ 0/2 of 3<span class="unscored">1 errored</span></summary>'
    ) in page
    assert '<summary title="sel-05 · fixture/oracle · passed 3/3 runs (3 scored)">✓ 3/3</summary>' in page

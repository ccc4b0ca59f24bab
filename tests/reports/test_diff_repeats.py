"""`lobrec diff` with repeated runs: per-case pass rates, the exact sign test and the spread.

A is the oracle recorded 3 times (sel-01 passes 1 of 3 runs, sel-02 2 of 3); B the oracle recorded
twice, failing sel-03 in both runs and sel-01 in run 2. By hand: B's rate is higher on sel-01
(1/3 -> 1/2) and sel-02 (2/3 -> 2/2), lower on sel-03 (3/3 -> 0/2), equal on the 77 others. The
sign test on 2 against 1: p = 2 * (C(3,0) + C(3,1)) / 2^3 = 1. Overall means: A 98.75% (100, 97.5,
98.75; sd 1.25), B 98.125% (98.75, 97.5; sd 1.25 / sqrt 2 = 0.8839): the difference, -0.625 pp, is
within the spread (1.25 pp).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.core.metrics.compare import Comparison, compare
from lobrec.core.metrics.results import ModelResult, encode_results
from lobrec.reports.diffview import interpretation, spread_sentence
from lobrec.reports.markdown import render_diff_markdown
from lobrec.running.replay import rescore, rescore_directories
from lobrec.suite_file import load_suite
from tests.support.repeated import COMMITTED, ORACLE, ROOT, repeated_model

SUITE = load_suite(ROOT / "suite" / "suite.json")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("diff")
    a = repeated_model(base / "a", ORACLE, runs=(2, 3), broken={2: ["sel-01", "sel-02"], 3: ["sel-01"]})
    b = repeated_model(base / "b", ORACLE, runs=(2,), broken={1: ["sel-03"], 2: ["sel-03", "sel-01"]})
    return a, b


def _side(folder: Path) -> ModelResult:
    (model,) = asyncio.run(rescore_directories(SUITE, [folder])).run.models
    return model


@pytest.fixture(scope="module")
def comparison(folders: tuple[Path, Path]) -> Comparison:
    return compare(*map(_side, folders))


def test_per_case_pass_rates_and_the_sign_test(comparison: Comparison) -> None:
    repeats = comparison.repeats
    assert comparison.test == "sign" and repeats is not None
    assert (repeats.runs_a, repeats.runs_b) == (3, 2)
    assert repeats.higher_in_b == comparison.fail_to_pass == ["sel-01", "sel-02"]
    assert repeats.lower_in_b == comparison.pass_to_fail == ["sel-03"]
    assert (comparison.c, comparison.b, repeats.ties, comparison.paired) == (2, 1, 77, 80)
    assert (comparison.both_passed, comparison.both_failed) == (77, 0)
    rates = {case.id: (case.a_passes, case.a_runs, case.b_passes, case.b_runs) for case in repeats.cases}
    assert rates["sel-01"] == (1, 3, 1, 2) and rates["sel-03"] == (3, 3, 0, 2)
    assert comparison.p_value == 1.0 and not comparison.significant
    assert comparison.verdict == "no_difference"
    assert interpretation(comparison) == "no significant difference at 5% (p=1)"


def test_the_difference_is_within_the_run_to_run_spread(comparison: Comparison) -> None:
    repeats = comparison.repeats
    assert repeats is not None
    assert (repeats.sd_a, repeats.sd_b, repeats.spread) == (1.25, 0.8839, 1.25)
    assert repeats.mean_delta == -0.625 and repeats.within_spread is True
    assert spread_sentence(repeats) == (
        "The difference in overall mean (-0.6 pp) is within the run-to-run spread of A and B "
        "(1.2 pp, the larger sample sd of the overall rate over runs): another run of either could "
        "move it that much."
    )


def test_the_cli_prints_the_sign_test(folders: tuple[Path, Path]) -> None:
    a, b = folders
    result = CliRunner().invoke(app, ["diff", str(a), str(b)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Exact sign test on per-case pass rates: no significant difference at 5% (p=1)." in lines
    assert "Pass rate lower in B: 1 case; higher in B: 2; equal: 77 (dropped)." in lines
    assert "Paired: 80 cases scored in both (A over 3 runs, B over 2 runs); 0 left out." in lines
    assert "Pass rate higher in B (2): sel-01 (1/3 → 1/2), sel-02 (2/3 → 2/2)" in lines
    assert "Pass rate lower in B (1): sel-03 (3/3 → 0/2)" in lines
    assert any(line.startswith("The difference in overall mean (-0.6 pp) is within") for line in lines)
    markdown = render_diff_markdown(compare(_side(a), _side(b)))
    assert "- **Pass rate lower in B** (1): sel-03 (3/3 → 0/2)" in markdown


def test_a_results_file_with_repeats_is_a_side_too(folders: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = folders
    results = tmp_path / "a.json"
    results.write_bytes(encode_results(asyncio.run(rescore(SUITE, a.parent)).run))
    result = CliRunner().invoke(app, ["diff", str(results), str(b)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Exact sign test on per-case pass rates: no significant difference at 5% (p=1)." in result.stdout


def test_a_repeated_side_against_a_single_run_uses_the_sign_test_on_zero_one_rates(
    folders: tuple[Path, Path],
) -> None:
    a, _ = folders
    single = _side(COMMITTED / "fixture%2Fsloppy")
    cmp = compare(single, _side(a))
    assert cmp.test == "sign" and cmp.repeats is not None
    # sloppy fails 40 cases; the repeated oracle passes each of those at least once, so every one
    # of them has a higher rate in B; the 40 sloppy passes are 1 in A, and 1 in B except sel-01, sel-02.
    failed = {case.id for case in single.cases if not case.passed}
    assert set(cmp.fail_to_pass) == failed
    assert set(cmp.pass_to_fail) == {"sel-01", "sel-02"} - failed
    assert (cmp.repeats.sd_a, cmp.repeats.spread) == (None, 1.25)

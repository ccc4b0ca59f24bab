"""`--csv`, `--jsonl`, `--junit` and `--summary` on `lobrec rescore` and `lobrec record`.

The rescore test runs the real `lobrec` command on the committed cassettes (six fixture models,
80 cases) and reads each file back with its standard parser: one CSV/JSONL row per judged step
(one for a case with none), one JUnit testcase per case, counts that agree with the results JSON.
The record test writes the same files from a live run against the fake gateway.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.repeats import run_outcome
from lobrec.core.results import RunResult, decode_results
from lobrec.core.suite import Suite
from lobrec.reports.export import COLUMNS, to_csv, to_jsonl
from lobrec.reports.junit import to_junit
from lobrec.reports.repeats import run_cases
from lobrec.reports.summary import to_summary
from lobrec.suite_file import load_suite
from tests.e2e.test_committed_cassettes import FIXTURE_MODELS

ROOT = Path(__file__).resolve().parents[2]
SUITE_CASES = 80


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))


def step_rows(run: RunResult) -> int:
    """Rows of an export: one per judged step (at least one per case), every run of every model."""
    return sum(
        max(1, len(case.steps)) for model in run.models for cases in run_cases(model) for case in cases
    )


def check_junit(path: Path, run: RunResult, cases: int) -> None:
    root = ET.fromstring(path.read_bytes())
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == [model.model for model in run.models]
    for suite, model in zip(suites, run.models, strict=True):
        testcases = suite.findall("testcase")
        assert len(testcases) == cases == int(suite.get("tests") or -1)
        assert {case.get("classname", "").rsplit(".", 1)[0] for case in testcases} == {model.model}
        # a case's testcase is its worst outcome over every run: failed, errored, then not judged
        outcomes = (
            [[run_outcome(case)] for case in model.cases]
            if model.repeats is None
            else [case.outcomes for case in model.repeats.cases]
        )
        failing = sum("failed" in each for each in outcomes)
        errored = sum("failed" not in each and "errored" in each for each in outcomes)
        skipped = sum(
            not {"failed", "errored"} & set(each) and bool({"stale", "unrecorded"} & set(each))
            for each in outcomes
        )
        assert int(suite.get("failures") or -1) == failing
        assert int(suite.get("errors") or -1) == errored
        assert int(suite.get("skipped") or -1) == skipped
        tags = [child.tag for case in testcases for child in case]
        assert (tags.count("failure"), tags.count("error"), tags.count("skipped")) == (
            failing,
            errored,
            skipped,
        )
    assert int(root.get("tests") or -1) == cases * len(run.models)


@pytest.fixture(scope="module")
def rescored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunResult, Suite]:
    out = tmp_path_factory.mktemp("exports")
    lobrec = str(Path(sys.executable).with_name("lobrec"))
    completed = subprocess.run(
        [
            lobrec,
            "rescore",
            "fixtures/cassettes",
            "--jobs",
            "2",
            "--json",
            str(out / "results.json"),
            "--csv",
            str(out / "steps.csv"),
            "--jsonl",
            str(out / "steps.jsonl"),
            "--junit",
            str(out / "junit.xml"),
            "--summary",
            str(out / "summary.md"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    run = decode_results((out / "results.json").read_bytes())
    return out, run, load_suite(ROOT / "suite" / "suite.json")


def test_rescore_csv_has_a_row_per_judged_step_of_every_case_and_model(
    rescored: tuple[Path, RunResult, Suite],
) -> None:
    out, run, suite = rescored
    assert len(suite.cases) == SUITE_CASES
    table = read_csv(out / "steps.csv")
    assert table[0] == list(COLUMNS)
    body = table[1:]
    assert len(body) == step_rows(run) > len(FIXTURE_MODELS) * SUITE_CASES  # chains add rows
    assert list(dict.fromkeys(row[0] for row in body)) == FIXTURE_MODELS
    ids = [case.id for case in suite.cases]
    for model in FIXTURE_MODELS:
        assert list(dict.fromkeys(row[1] for row in body if row[0] == model)) == ids
    assert (out / "steps.csv").read_bytes().decode("utf-8") == to_csv(run, suite)


def test_rescore_jsonl_holds_the_same_rows(rescored: tuple[Path, RunResult, Suite]) -> None:
    out, run, suite = rescored
    text = (out / "steps.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == step_rows(run)
    assert {(row["model"], row["case_id"]) for row in lines} == {
        (model, case.id) for model in FIXTURE_MODELS for case in suite.cases
    }
    assert all(list(row) == list(COLUMNS) for row in lines)
    assert text == to_jsonl(run, suite)
    runs = {model: sorted({row["run"] for row in lines if row["model"] == model}) for model in FIXTURE_MODELS}
    assert runs == {model: [1, 2, 3] if model == "fixture/flaky" else [1] for model in FIXTURE_MODELS}


def test_rescore_junit_has_a_testsuite_per_model_and_a_testcase_per_case(
    rescored: tuple[Path, RunResult, Suite],
) -> None:
    out, run, suite = rescored
    check_junit(out / "junit.xml", run, SUITE_CASES)
    assert (out / "junit.xml").read_text(encoding="utf-8") == to_junit(run, suite)


def test_rescore_summary_names_every_model(rescored: tuple[Path, RunResult, Suite]) -> None:
    out, run, suite = rescored
    text = (out / "summary.md").read_text(encoding="utf-8")
    assert text == to_summary(run, suite)
    assert text.startswith(f"### lobrec: {suite.name} {suite.version}\n")
    table = [line for line in text.splitlines() if line.startswith("| fixture/")]
    assert sorted(line.split(" | ")[0].removeprefix("| ") for line in table) == FIXTURE_MODELS


def test_an_export_to_stdout_moves_the_leaderboard_to_stderr() -> None:
    result = CliRunner().invoke(
        app, ["rescore", str(ROOT / "fixtures" / "cassettes"), "--jobs", "2", "--csv", "-"]
    )
    assert result.exit_code == Exit.OK, result.stderr
    assert result.stdout_bytes.startswith((",".join(COLUMNS) + "\r\n").encode())
    assert "Overall" in result.stderr and "Overall" not in result.stdout


def test_record_writes_every_export(fake_gateway: Any, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "record",
            "--model",
            "fixture/oracle",
            "--base-url",
            fake_gateway.url,
            "--suite",
            str(fake_gateway.suite_path),
            "--cassettes",
            str(tmp_path / "cassettes"),
            "--json",
            str(tmp_path / "results.json"),
            "--csv",
            str(tmp_path / "steps.csv"),
            "--jsonl",
            str(tmp_path / "steps.jsonl"),
            "--junit",
            str(tmp_path / "junit.xml"),
            "--summary",
            str(tmp_path / "summary.md"),
        ],
    )
    assert result.exit_code == Exit.OK, result.stderr
    run = decode_results((tmp_path / "results.json").read_bytes())
    cases = len(fake_gateway.suite.cases)
    table = read_csv(tmp_path / "steps.csv")
    assert len(table) - 1 == step_rows(run) > cases  # the chain has three steps
    assert {row[1] for row in table[1:]} == {case.id for case in fake_gateway.suite.cases}
    assert {row[3] for row in table[1:]} == {"passed"}
    assert len((tmp_path / "steps.jsonl").read_text(encoding="utf-8").splitlines()) == step_rows(run)
    check_junit(tmp_path / "junit.xml", run, cases)
    assert "fixture/oracle" in (tmp_path / "summary.md").read_text(encoding="utf-8")

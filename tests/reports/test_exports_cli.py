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
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli import Exit, app
from lobrec.core.judge.failures import kind_label
from lobrec.core.metrics.repeats import run_outcome
from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite
from lobrec.reports.export import COLUMNS, to_csv, to_jsonl
from lobrec.reports.junit import to_junit
from lobrec.reports.summary import to_summary
from lobrec.suite_file import load_suite
from tests.running.test_committed_cassettes import FIXTURE_MODELS
from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[2]
SUITE_CASES = 80


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))


def step_rows(run: RunResult) -> int:
    """Rows of an export: one per judged step (at least one per case), every run of every model."""
    return sum(
        max(1, len(case.steps)) for model in run.models for one in runs_of(model).runs for case in one.cases
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
    completed = run_lobrec(
        [
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
        text=True,
        env=dict(os.environ),
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
    assert text == to_summary(run, suite, [])  # every gate passed
    assert text.startswith(f"### lobrec passed: {suite.name} {suite.version}\n")
    table = [
        line
        for line in text.splitlines()
        if line.startswith(tuple(f"| {model} |" for model in FIXTURE_MODELS))
    ]
    assert sorted(line.split(" | ")[0].removeprefix("| ") for line in table) == FIXTURE_MODELS


KIND_COLUMNS = ("failure_kind", "failure_argument", "failure_check")
OLD_COLUMNS = (
    "model",
    "case_id",
    "group",
    "case_status",
    "step",
    "passed",
    "reasons",
    "calls",
    "latency_ms",
    "cost_usd",
    "case_reason",
    "run",
)
"""The columns before failure kinds, in their order."""


def judged_steps(run: RunResult) -> list[tuple[str, int, str, int, Any]]:
    """(model, run, case, step number, verdict) for every judged step, in the exports' order."""
    return [
        (model.model, number, case.id, step.index + 1, step)
        for model in run.models
        for number, cases in enumerate(runs_of(model).run_cases(), start=1)
        for case in cases
        for step in sorted(case.steps, key=lambda step: step.index)
    ]


def test_rescore_exports_carry_each_steps_failure_kind_in_the_last_columns(
    rescored: tuple[Path, RunResult, Suite],
) -> None:
    out, run, _ = rescored
    assert list(COLUMNS) == [*OLD_COLUMNS, *KIND_COLUMNS]  # appended: positions of the old ones kept
    lines = [json.loads(line) for line in (out / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    table = read_csv(out / "steps.csv")
    assert table[0][-3:] == list(KIND_COLUMNS)
    by_step = {(r["model"], r["run"], r["case_id"], r["step"]): r for r in lines if r["step"] is not None}
    csv_by_step = {(r[0], int(r[11]), r[1], int(r[4])): r for r in table[1:] if r[4]}
    steps = judged_steps(run)
    assert len(by_step) == len(csv_by_step) == len(steps)
    for model, number, case_id, index, step in steps:
        row = by_step[(model, number, case_id, index)]
        kinds = (step.failure_kind, step.failure_argument, step.failure_check)
        assert (row["failure_kind"], row["failure_argument"], row["failure_check"]) == kinds
        assert csv_by_step[(model, number, case_id, index)][-3:] == [value or "" for value in kinds]
        unscored = row["case_status"] not in ("passed", "failed")
        assert (row["failure_kind"] is None) == (row["passed"] or unscored)
    assert all(r["failure_kind"] is None for r in lines if r["step"] is None)
    # per model, the rows' kinds add up to the results file's `failures` (every run's)
    for model in run.models:
        counted: dict[str, int] = {}
        for r in lines:
            if r["model"] == model.model and r["failure_kind"] is not None:
                counted[r["failure_kind"]] = counted.get(r["failure_kind"], 0) + 1
        assert counted == model.failures, model.model
    # one worked row: auto's arg-11 misses the meeting's length
    row = by_step[("auto", 1, "arg-11", 1)]
    assert (row["failure_kind"], row["failure_argument"], row["failure_check"]) == (
        "argument_check",
        "duration_minutes",
        "eq",
    )


def test_rescore_junit_failure_message_names_the_kind(rescored: tuple[Path, RunResult, Suite]) -> None:
    out, run, _ = rescored
    root = ET.fromstring((out / "junit.xml").read_bytes())
    checked = 0
    for testsuite, model in zip(root.findall("testsuite"), run.models, strict=True):
        if model.repeats is not None:
            continue
        messages = {
            case.get("name"): (case.find("failure").get("message") or "")  # type: ignore[union-attr]
            for case in testsuite.findall("testcase")
            if case.find("failure") is not None
        }
        for case in model.cases:
            if case.status != "scored" or case.passed:
                continue
            first = min((step for step in case.steps if not step.passed), key=lambda step: step.index)
            assert first.failure_kind is not None
            assert messages[case.id].startswith(kind_label(first.failure_kind)), (model.model, case.id)
            if first.failure_kind == "argument_check":
                assert f"({first.failure_argument}: {first.failure_check})" in messages[case.id]
            checked += 1
    assert checked > 100
    auto = next(suite for suite in root.findall("testsuite") if suite.get("name") == "auto")
    arg11 = next(case for case in auto.findall("testcase") if case.get("name") == "arg-11")
    assert arg11.find("failure").get("message") == (  # type: ignore[union-attr]
        "arg check (duration_minutes: eq): create_event: duration_minutes: not equal"
    )
    assert "step 1, arg check (duration_minutes: eq): " in (arg11.find("failure").text or "")  # type: ignore[union-attr]


def test_rescore_summary_counts_each_models_kinds(rescored: tuple[Path, RunResult, Suite]) -> None:
    out, run, _ = rescored
    text = (out / "summary.md").read_text(encoding="utf-8")
    summaries = [line for line in text.splitlines() if line.startswith("<details><summary>")]
    failing = [model for model in run.models if model.failures]
    assert len(failing) >= 5
    for model in failing:
        (line,) = [line for line in summaries if f"<b>{model.model}</b>" in line]
        listed = line.split("; ", 1)[1].removesuffix("</summary>")
        total, kinds = listed.split(" failed steps: ")
        assert int(total) == sum(model.failures.values())
        pairs = [item.rsplit(" ", 1) for item in kinds.split(", ")]
        assert sorted(int(n) for _, n in pairs) == sorted(model.failures.values())
        assert [int(n) for _, n in pairs] == sorted((int(n) for _, n in pairs), reverse=True)
    sloppy = next(line for line in summaries if "<b>fixture/sloppy</b>" in line)
    assert "; 40 failed steps: needless call 10, args not JSON 9, made-up tool 8," in sloppy


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

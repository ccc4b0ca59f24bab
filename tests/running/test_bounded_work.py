"""Bounded memory and work per input (issue 25, defect 5).

Every count and size lobrec takes from outside has a cap, and what passes it errors only its own
case (or model) with a reason: schema errors kept per call (`schema.MAX_ERRORS`), what a case keeps
of its replies in the results (`results.MAX_CASE_BYTES`), and run folders missing below the highest
(`cassettes.MAX_MISSING_RUNS`). Nesting and file sizes are capped where files are read
(`test_input_files.py`, `test_hostile_cassettes.py`).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from lobrec.cassette.audit import audit
from lobrec.cassette.layout import MAX_MISSING_RUNS, model_dir_name
from lobrec.cli import app
from lobrec.core.metrics.results import MAX_CASE_BYTES, encode_results
from lobrec.core.suite.jsonschema import MAX_ERRORS, validate
from lobrec.running.replay import rescore
from lobrec.running.run_result import build_run_result
from lobrec.suite_file import load_suite
from tests.support.cli import LOBREC, cli_env
from tests.support.faults import record_with_handler

ROOT = Path(__file__).resolve().parents[2]
ORACLE = "fixture%2Foracle"
CLOSED = {"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": False}
MORE = f"... and more: only the first {MAX_ERRORS} errors are kept"


@given(count=st.integers(min_value=0, max_value=3 * MAX_ERRORS))
def test_schema_errors_are_capped_per_call(count: int) -> None:
    arguments = {f"k{i}": i for i in range(count)}
    errors = validate(CLOSED, arguments)
    shown = [f'$: unexpected property "k{i}"' for i in range(min(count, MAX_ERRORS))]
    assert errors == (shown if count <= MAX_ERRORS else [*shown, MORE])


def _reply(name: str, arguments: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


def _answering(arguments: Callable[[], str]) -> Callable[[httpx.Request], httpx.Response]:
    """A gateway calling the first offered tool with `arguments()`."""

    def handle(request: httpx.Request) -> httpx.Response:
        name = json.loads(request.content)["tools"][0]["function"]["name"]
        return httpx.Response(200, json=_reply(name, arguments()))

    return handle


@pytest.mark.process
def test_a_cassette_with_800k_unexpected_keys_costs_megabytes_not_gigabytes(
    tmp_path: Path, small_suite_path: Path
) -> None:
    """The red team's 13.6 MiB cassette (under the 16 MiB cap): arguments with ~800k keys made 800k
    schema errors (790 MiB, a 55 MB results file). Now `lobrec rescore` peaks under 300 MiB RSS;
    the case is errored for its size, and the results stay small."""
    suite = load_suite(small_suite_path)
    asyncio.run(record_with_handler(suite, tmp_path, "x/keys", _answering(lambda: "{}"), case_ids=["sel-01"]))
    path = tmp_path / model_dir_name("x/keys") / "sel-01.json"
    cassette = json.loads(path.read_bytes())
    body = cassette["interactions"][0]["response"]["body"]
    reply = json.loads(body["string"])
    reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = (
        "{" + ",".join(f'"k{i}":0' for i in range(800_000)) + "}"
    )
    body["string"] = json.dumps(reply)
    path.write_text(json.dumps(cassette))
    assert 12 * 1024 * 1024 < path.stat().st_size < 16 * 1024 * 1024

    out = tmp_path / "results.json"

    # a process of its own, whose peak is read from its own rusage (`wait4`): not this test
    # process's, nor that of another child the test worker started before (Chromium, a gateway)
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            [str(LOBREC), "rescore", str(tmp_path), "--suite", str(small_suite_path), "--json", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=cli_env(),
        )
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)

    # no case scored: only sel-01 was recorded, and it errored
    assert process.returncode == 3, errors.read_text()
    assert usage.ru_maxrss < 300 * 1024  # KiB: the whole lobrec process
    (entry,) = json.loads(out.read_bytes())["models"]
    case = next(case for case in entry["cases"] if case["id"] == "sel-01")
    assert (case["status"], case["steps"]) == ("errored", [])
    assert f"over the {MAX_CASE_BYTES} bytes a case keeps" in case["reason"]
    assert out.stat().st_size < 100_000


SIZES = [("just under the cap", MAX_CASE_BYTES - 2_000), ("just over the cap", MAX_CASE_BYTES + 1)]


@pytest.mark.parametrize("size", [row[1] for row in SIZES], ids=[row[0] for row in SIZES])
def test_a_case_keeps_at_most_its_cap_and_replay_agrees(
    tmp_path: Path, small_suite_path: Path, size: int
) -> None:
    suite = load_suite(small_suite_path)
    text = json.dumps({"path": "x" * size})

    live = asyncio.run(record_with_handler(suite, tmp_path, "x/long", _answering(lambda: text)))
    replayed = asyncio.run(rescore(suite, tmp_path)).run

    # the verdicts agree (provenance, which record and rescore fill from their own inputs, aside)
    (expected,) = build_run_result(suite, {"x/long": live}).models
    assert [model.cases for model in replayed.models] == [expected.cases]
    for case in live:
        if size > MAX_CASE_BYTES:
            assert (case.status, case.steps) == ("errored", [])
            assert case.reason is not None and case.reason.startswith("step 1: the replies would take ")
        elif case.id == "chain-01":  # the cap is per case: its second step's reply takes it over
            assert (case.status, case.steps) == ("errored", [])
            assert case.reason is not None and case.reason.startswith("step 2: the replies would take ")
        else:
            assert case.status == "scored"
            assert len(encode_results(build_run_result(suite, {"x/long": [case]}))) > MAX_CASE_BYTES - 2_000


@pytest.mark.parametrize(
    "missing", [MAX_MISSING_RUNS, MAX_MISSING_RUNS + 1, 998], ids=["at the cap", "one over", "runs-1000"]
)
def test_run_folders_missing_below_the_highest_are_capped(tmp_path: Path, missing: int) -> None:
    """A lone `runs/<n>/manifest.json` committed beside a recording (the red team's `runs/1000`)."""
    model = tmp_path / ORACLE
    shutil.copytree(ROOT / "fixtures" / "cassettes" / ORACLE, model)
    highest = missing + 2
    (model / "runs" / str(highest)).mkdir(parents=True)
    shutil.copy(model / "manifest.json", model / "runs" / str(highest) / "manifest.json")
    runs = model / "runs"
    problem = (
        f"{runs}: the highest run folder is {highest}, but {missing} of runs 2 to {highest} are "
        f"missing (at most {MAX_MISSING_RUNS} may be); remove the stray run folders, or record the runs"
    )
    out = tmp_path / "results.json"

    scored = CliRunner().invoke(app, ["rescore", str(tmp_path), "--json", str(out)])
    dry = CliRunner().invoke(
        app, ["record", "--model", "fixture/oracle", "--cassettes", str(tmp_path), "--missing", "--dry-run"]
    )
    findings = [str(finding) for finding in audit(tmp_path)]

    assert scored.exit_code in (3, 4), scored.stderr  # 3: nothing scored; 4: runs unrecorded
    results = json.loads(out.read_bytes())
    (entry,) = results["models"]
    if missing <= MAX_MISSING_RUNS:
        assert entry["repeats"]["runs"] == highest
        assert dry.exit_code == 0 and f"in {highest - 1} runs" in dry.stdout
        assert problem not in findings
        return
    assert "repeats" not in entry and {case["reason"] for case in entry["cases"]} == {problem}
    assert (dry.exit_code, dry.stdout, dry.stderr) == (2, "", f"lobrec: {problem}\n")
    assert findings[0] == problem.replace(f"{runs}: ", f"{runs}: ", 1)
    assert not any("counts as unrecorded" in finding for finding in findings)
    assert len(out.read_bytes()) < 100_000
    assert model_dir_name("fixture/oracle") == ORACLE

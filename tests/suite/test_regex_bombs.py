"""Regex time bombs (issue 25): a pattern and an argument that would make a backtracking engine run
for minutes are judged in linear time, so `record`, `rescore` and `suite check` finish with the
verdict, and a signal is handled as soon as it arrives.

Each hostile input goes through the real judge in a subprocess with a generous time-out: the test
fails if it is exceeded (no timed assertion: only that it finishes, and what it says).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from lobrec.core.suite.format import (
    AnswerCall,
    CallStep,
    ExpectedCall,
    Regex,
    SampleAnswer,
    Suite,
    encode_suite,
)
from tests.support.gateway import build_small_suite

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
LOBREC = str(Path(sys.executable).with_name("lobrec"))
GENEROUS_S = 120
MODEL = "hostile/model"

QUADRATIC = r"^\s*charge_customer\s*\(?\s*$"
EXPONENTIAL = "^([a-z]+/?)+$"
BOMBS = {
    # name: (the check's pattern, the tool schema's pattern or None, the argument the model sends)
    "a quadratic check on the name, 100k spaces and x": (
        QUADRATIC,
        None,
        # 100k spaces: under the 256 KiB a case keeps, still hours for a backtracking engine
        "charge_customer" + " " * 100_000 + "x",
    ),
    "an exponential check and schema pattern on 32 characters": (EXPONENTIAL, EXPONENTIAL, "a" * 31 + "!"),
}


def hostile_suite(check: str, schema_pattern: str | None, wrong: str | None = None) -> Suite:
    """The small suite's sel-01 alone, its read_file call checked by `check` (and the tool's `path`
    constrained by `schema_pattern`)."""
    suite = build_small_suite()
    tools = []
    for tool in suite.tools:
        if tool.function.name == "read_file" and schema_pattern is not None:
            parameters = json.loads(json.dumps(tool.function.parameters))
            parameters["properties"]["path"]["pattern"] = schema_pattern
            tool = msgspec.structs.replace(
                tool, function=msgspec.structs.replace(tool.function, parameters=parameters)
            )
        tools.append(tool)
    cases = []
    for case in suite.cases:
        if case.id == "sel-01":
            step = CallStep(
                calls=[
                    ExpectedCall(
                        name="read_file", checks=[Regex(arg="path", pattern=check)], answer={"path": "readme"}
                    )
                ],
                wrong=[]
                if wrong is None
                else [
                    SampleAnswer(
                        why="hostile", calls=[AnswerCall(name="read_file", arguments={"path": wrong})]
                    )
                ],
            )
            cases.append(msgspec.structs.replace(case, steps=[step]))
    return msgspec.structs.replace(suite, tools=tools, cases=cases)


def record(suite_path: str, root: str, bomb: str) -> None:
    """Run in a subprocess: record sel-01 with the model sending the bomb's argument as the path."""
    argument = BOMBS[bomb][2]
    from lobrec.suite_file import load_suite
    from tests.support.faults import record_with_handler

    body = json.dumps(
        {
            "model": MODEL,
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {
                                    "name": "read_file",
                                    "arguments": json.dumps({"path": argument}),
                                },
                            }
                        ],
                    }
                }
            ],
        }
    ).encode()

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"x-lobstack-cost-usd": "0.0001"})

    asyncio.run(
        record_with_handler(load_suite(Path(suite_path)), Path(root), MODEL, handle, case_ids=["sel-01"])
    )


def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """A subprocess that must finish within GENEROUS_S (else the test fails)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run(
            args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=GENEROUS_S, **kwargs
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[:3]} did not finish within {GENEROUS_S} s")


def _sel01(results: Path) -> dict[str, Any]:
    data = json.loads(results.read_text())
    return next(case for case in data["models"][0]["cases"] if case["id"] == "sel-01")


@pytest.mark.parametrize(("name"), list(BOMBS), ids=list(BOMBS))
def test_a_regex_time_bomb_is_judged_in_record_and_rescore(name: str, tmp_path: Path) -> None:
    check, schema_pattern, _ = BOMBS[name]
    suite_path = tmp_path / "suite.json"
    suite_path.write_bytes(encode_suite(hostile_suite(check, schema_pattern)))
    root = tmp_path / "cassettes"
    code = "from tests.suite.test_regex_bombs import record; record(*__import__('sys').argv[1:])"
    recorded = run([sys.executable, "-c", code, str(suite_path), str(root), name])
    assert recorded.returncode == 0, recorded.stderr
    results = tmp_path / "results.json"
    rescored = run([LOBREC, "rescore", str(root), "--suite", str(suite_path), "--json", str(results)])
    assert rescored.returncode in (0, 1), rescored.stderr
    case = _sel01(results)
    assert case["status"] == "scored"
    step = case["steps"][0]
    assert not step["passed"]
    assert [mismatch["reason"] for mismatch in step["mismatches"]] == ["read_file: path: does not match"]
    if schema_pattern is not None:
        assert step["calls"][0]["schema_valid"] is False


def test_suite_check_judges_a_wrong_answer_near_an_exponential_pattern(tmp_path: Path) -> None:
    suite_path = tmp_path / "suite.json"
    suite_path.write_bytes(encode_suite(hostile_suite(EXPONENTIAL, EXPONENTIAL, wrong="a" * 31 + "!")))
    checked = run([LOBREC, "suite", "check", str(suite_path)])
    # The wrong answer was judged (and failed, as it should): only the one-case suite's shape is
    # reported, nothing about sel-01's step or its pattern.
    lines = checked.stdout.splitlines()
    assert checked.returncode == 2
    assert [line for line in lines if not line.startswith("groups: ")] == [
        "case sel-01: note: empty; say what the case tests and why its answer is the only right one"
    ]


def test_a_file_of_escaped_quotes_is_refused_at_once(tmp_path: Path) -> None:
    """The nesting scan that runs before any JSON parser skipped strings with a regex tried at
    every quote: quadratic on `"\\"\\"\\"...` that never closes (20,000 pairs took 35 s)."""
    path = tmp_path / "suite.json"
    path.write_bytes(b'{"name": "' + b'\\"' * 500_000)
    checked = run([LOBREC, "suite", "check", str(path)])
    assert checked.returncode == 2
    output = (checked.stdout + checked.stderr).strip().splitlines()
    assert len(output) == 1 and str(path) in output[0], output

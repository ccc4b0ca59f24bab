"""One hostile value errors (or marks) only its own case, in every report and export (issue 25,
defect 4).

A JSON text may escape a lone surrogate (`"\\ud800"`), which no UTF-8 file can hold; a recorded
elapsed time may be `1e308`, finite but large enough that two of them overflow every sum. The
hostile value is put in each place a reply can carry it, the cassettes are rescored through the
real command with every report asked for, and every report must be written as UTF-8, the other
cases scored, and `lobrec audit` must name the value.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from lobrec.cassette.audit import audit
from lobrec.cassette.layout import RUNS_DIR, model_dir_name
from lobrec.cli._reports import REPORT_FILE_NAMES
from lobrec.fakegateway import answer
from lobrec.suite_file import load_suite
from tests.reports.html.test_html_report import drill_down_text
from tests.support.cli import run_lobrec
from tests.support.faults import record_with_handler

MODEL = "fixture/oracle"
TARGET = "sel-01"
ESCAPE = "\\ud800"
"""Six ASCII characters: JSON's spelling of a lone surrogate."""

REPORTS = REPORT_FILE_NAMES
"""Every report and export, each under the file name lobrec suggests for it."""


def _set_call(completion: dict[str, Any], **fields: str) -> None:
    call = completion["choices"][0]["message"]["tool_calls"][0]
    for name, value in fields.items():
        if name in ("name", "arguments"):
            call["function"][name] = value
        else:
            call[name] = value


Change = Callable[[dict[str, Any]], dict[str, Any] | str]
"""Turns the oracle's completion for the target case into the hostile reply: a dict is the 200
body, a str the message of a 400. `MARK` is where the escape goes."""

PLACES: dict[str, tuple[Change, bool]] = {
    # (the change, whether MARK sits in a JSON text inside the body: the arguments)
    "an arguments value": (lambda c: (_set_call(c, arguments='{"path": "MARK"}'), c)[1], True),
    "an arguments key": (lambda c: (_set_call(c, arguments='{"MARK": "README.md"}'), c)[1], True),
    "the arguments text itself": (lambda c: (_set_call(c, arguments='"MARK"'), c)[1], True),
    "the tool name": (lambda c: (_set_call(c, name="read_MARK"), c)[1], False),
    "the call id": (lambda c: (_set_call(c, id="call_MARK"), c)[1], False),
    "the model that answered": (lambda c: {**c, "model": "fake/MARK"}, False),
    "the completion id": (lambda c: {**c, "id": "chatcmpl-MARK"}, False),
    "a 400 error message": (lambda c: "bad request MARK", False),
}


def _gateway(suite: Any, place: str) -> Callable[[httpx.Request], httpx.Response]:
    change, nested = PLACES[place]
    escape = ESCAPE.replace("\\", "\\\\") if nested else ESCAPE

    target = next(case for case in suite.cases if case.id == TARGET)
    prompt = json.dumps(target.messages[-1].content)[1:-1].encode()

    def handle(request: httpx.Request) -> httpx.Response:
        reply = answer(suite, request.content, MODEL)
        if prompt not in request.content:
            return httpx.Response(reply.status, headers=reply.headers, content=reply.body)
        hostile = change(json.loads(reply.body))
        if isinstance(hostile, str):
            body = {"error": {"message": hostile, "type": "invalid_request_error", "code": None}}
            return httpx.Response(400, content=json.dumps(body).replace("MARK", escape).encode())
        return httpx.Response(
            200, headers=reply.headers, content=json.dumps(hostile).replace("MARK", escape).encode()
        )

    return handle


def _rescore(root: Path, suite_path: Path, out: Path) -> Any:
    # the errored-cases gate is not what these tests are about: a hostile value errors its own case
    args = ["rescore", str(root), "--suite", str(suite_path), "--max-errored", "100%"]
    for flag, name in REPORTS.items():
        args += [flag, str(out / name)]
    return run_lobrec(args)


def _every_report_written(out: Path, done: Any) -> None:
    assert done.returncode in (0, 1), done.stderr.decode()
    for name in REPORTS.values():
        (out / name).read_bytes().decode("utf-8")  # written, and UTF-8 throughout
    done.stdout.decode("utf-8")  # the terminal leaderboard too


@pytest.mark.parametrize("place", list(PLACES), ids=list(PLACES))
def test_a_lone_surrogate_escape_anywhere_sinks_no_report(
    small_suite_path: Path, tmp_path: Path, place: str
) -> None:
    suite = load_suite(small_suite_path)
    root, out = tmp_path / "cassettes", tmp_path / "out"
    out.mkdir()
    asyncio.run(record_with_handler(suite, root, MODEL, _gateway(suite, place)))
    cassette = root / model_dir_name(MODEL) / f"{TARGET}.json"
    assert b"ud800" in cassette.read_bytes()

    done = _rescore(root, small_suite_path, out)

    _every_report_written(out, done)
    results = json.loads((out / "results.json").read_bytes())
    statuses = {case["id"]: case["status"] for case in results["models"][0]["cases"]}
    assert {status for case, status in statuses.items() if case != TARGET} == {"scored"}
    findings = [str(finding) for finding in audit(root)]
    assert any("escapes a lone surrogate (\\ud800)" in line and TARGET in line for line in findings)


def test_the_html_report_shows_the_escape_spelled_out(small_suite_path: Path, tmp_path: Path) -> None:
    suite = load_suite(small_suite_path)
    root, out = tmp_path / "cassettes", tmp_path / "out"
    out.mkdir()
    asyncio.run(record_with_handler(suite, root, MODEL, _gateway(suite, "an arguments value")))

    _every_report_written(out, _rescore(root, small_suite_path, out))

    # spelled out in the drill-down's data, which the page's script sets as text
    assert '"path": "\\ud800"' in drill_down_text((out / "report.html").read_text())


ELAPSED = "x-lobrec-elapsed-ms"


def _plant_elapsed(cassette: Path, value: str) -> None:
    data = json.loads(cassette.read_bytes())
    data["interactions"][-1]["response"]["headers"][ELAPSED] = [value]
    cassette.write_text(json.dumps(data))


ELAPSED_ROWS = [
    (value, refused, runs)
    for runs in (1, 2)
    for value, refused in [
        ("1e308", True),
        ("1.7976931348623157e308", True),
        ("86400000.001", True),
        ("86400000", False),
    ]
]
ELAPSED_IDS = [
    f"{name}, {'one run' if runs == 1 else 'with repeats'}"
    for runs in (1, 2)
    for name in ("1e308", "the largest float", "just over a day", "a day")
]


@pytest.mark.parametrize(("value", "refused", "runs"), ELAPSED_ROWS, ids=ELAPSED_IDS)
def test_an_absurd_elapsed_time_errors_only_its_case(
    recorded: tuple[Any, Path], small_suite_path: Path, tmp_path: Path, value: str, refused: bool, runs: int
) -> None:
    _, good = recorded
    root, out = tmp_path / "cassettes", tmp_path / "out"
    out.mkdir()
    shutil.copytree(good, root)
    model_dir = root / model_dir_name(MODEL)
    if runs == 2:
        shutil.copytree(model_dir, tmp_path / "run2")
        shutil.move(tmp_path / "run2", model_dir / RUNS_DIR / "2")
    folders = [model_dir] + ([model_dir / RUNS_DIR / "2"] if runs == 2 else [])
    for folder in folders:  # two cases per run: their sum alone would overflow
        for case in ("sel-01", "arg-01"):
            _plant_elapsed(folder / f"{case}.json", value)

    done = _rescore(root, small_suite_path, out)

    _every_report_written(out, done)
    results = json.loads((out / "results.json").read_bytes())
    model = next(model for model in results["models"] if model["model"] == MODEL)
    errored = {case["id"]: case["reason"] for case in model["cases"] if case["status"] == "errored"}
    if refused:
        assert sorted(errored) == ["arg-01", "sel-01"]
        assert errored["sel-01"].endswith(f"{ELAPSED} is {float(value)}, not a duration")
        findings = [str(finding) for finding in audit(root)]
        assert sum(f"{value!r} is not a duration in ms" in line for line in findings) == 2 * runs
    else:
        assert errored == {}
        assert audit(root) == []


def test_a_report_that_cannot_be_written_does_not_stop_the_others(
    recorded: tuple[Any, Path], small_suite_path: Path, tmp_path: Path
) -> None:
    _, root = recorded
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").mkdir()  # the HTML report's path is a folder: that one report fails

    done = _rescore(root, small_suite_path, out)

    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        f"lobrec: --html {out / 'report.html'}: is a folder; give the report a file name "
        f"(e.g. {out / 'report.html' / 'report.html'})"
    ]
    for flag, name in REPORTS.items():
        if flag != "--html":
            assert (out / name).stat().st_size > 0, name

"""The CSV, JSONL, JUnit and CI-summary writers, and the Markdown report's lists and intervals.

Each writer is checked on the sample run (`tests/support/sample_results.py`) by reading its output back
with the standard parser for its format, and on a run full of hostile strings: newlines, quotes,
control characters, spreadsheet formulas, `]]>`, markup and lone surrogates (which the results
Structs hold in memory, though no results file can).
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import msgspec
import pytest

from lobrec.core.metrics import rates as metrics
from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    Mismatch,
    ModelResult,
    RunResult,
    StepVerdict,
)
from lobrec.reports.export import COLUMNS, rows, safe_cell, to_csv, to_jsonl
from lobrec.reports.junit import to_junit, xml_safe
from lobrec.reports.markdown import render_diff_markdown, render_markdown
from lobrec.reports.summary import to_summary
from tests.support.sample_results import sample_run, sample_suite

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reports.md"


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def expected_row_count(run: RunResult) -> int:
    return sum(max(1, len(case.steps)) for model in run.models for case in model.cases)


# --- hostile strings -----------------------------------------------------------------------------

EVIL_MODEL = "=cmd|' /C calc'!A0\n\"quoted\", <b>bold</b> ]]> \x1b[31m"
EVIL_ID = '@SUM(1)\r\n"id", ]]><x/>\x00\x0b'
EVIL_REASON = "+bad\r\n<x>&amp; ]]> \x1b\x07\ud800 end"
EVIL_ARGUMENTS = '{"path": "]]> \\u0000", "raw": "\x00\x1b\ud800"}'
EVIL_CONTENT = "-2+3 <script>alert(1)</script>"


def hostile_run() -> RunResult:
    """The sample run with its first model renamed and given three hostile cases."""
    run = sample_run()
    failing = CaseResult(
        id=EVIL_ID,
        group="selection",
        status="scored",
        steps=[
            StepVerdict(
                index=0,
                expects="call",
                passed=False,
                names_match=False,
                expected_names=["read_file"],
                calls=[
                    CallRecord(
                        name='=HYPERLINK("x")', arguments=EVIL_ARGUMENTS, offered=False, schema_valid=None
                    )
                ],
                content=EVIL_CONTENT,
                mismatches=[Mismatch(path="names", expected=["read_file"], got=["x"], reason=EVIL_REASON)],
            )
        ],
        api_calls=[ApiCall(step=0, attempt=0, status=200, latency_ms=12.5, cost_usd=None, judged=True)],
    )
    errored = CaseResult(id="-errored", group="chains", status="errored", reason="\ud800 ]]> \x1b[2J\n")
    stale = CaseResult(id="\tstale", group="no_call", status="stale", reason='"=1+1"')
    model = msgspec.structs.replace(run.models[0], model=EVIL_MODEL, cases=[failing, errored, stale])
    return msgspec.structs.replace(run, models=[model, *run.models[1:]])


# --- rows ----------------------------------------------------------------------------------------


def test_rows_one_per_model_case_and_judged_step() -> None:
    run, suite = sample_run(), sample_suite()
    found = rows(run, suite)
    assert len(found) == expected_row_count(run) == 36 + 4  # four two-step chains judged to the end
    assert all(tuple(row) == COLUMNS for row in found)
    assert [row["model"] for row in found][:1] == ["openai/o4-mini"]
    chain = [
        row for row in found if row["model"] == "openai/o4-mini" and row["case_id"] == "chain-status-diff"
    ]
    assert [(row["step"], row["passed"], row["case_status"]) for row in chain] == [
        (1, True, "failed"),
        (2, False, "failed"),
    ]
    assert chain[1]["reasons"] == ['path: expected "src/app.py", got "."']
    assert chain[1]["calls"] == [{"name": "git_diff", "arguments": '{"path": "."}'}]
    assert chain[1]["latency_ms"] == 1080.0 and chain[1]["cost_usd"] == 0.0011


def test_a_case_with_no_judged_step_has_one_row_with_the_step_empty() -> None:
    found = rows(sample_run(), sample_suite())
    by_key = {(row["model"], row["case_id"]): row for row in found if row["step"] is None}
    assert set(by_key) == {
        ("openai/o4-mini", "sel-weather"),
        ("openai/o4-mini", "par-three-files"),
        ("auto", "arg-issue-labels"),
        *(("acme/tool-llm-7b", case.id) for case in sample_suite().cases),
    }
    stale = by_key[("openai/o4-mini", "sel-weather")]
    assert stale == {
        "model": "openai/o4-mini",
        "case_id": "sel-weather",
        "group": "selection",
        "case_status": "stale",
        "step": None,
        "passed": None,
        "reasons": None,
        "calls": None,
        "latency_ms": None,
        "cost_usd": None,
        "case_reason": "the suite changed this case's request since it was recorded",
        "run": 1,
        "failure_kind": None,
        "failure_argument": None,
        "failure_check": None,
    }
    assert by_key[("openai/o4-mini", "par-three-files")]["case_status"] == "errored"
    assert by_key[("auto", "arg-issue-labels")]["case_status"] == "unrecorded"


def test_an_errored_chain_keeps_the_rows_of_the_steps_it_judged() -> None:
    run, suite = sample_run(), sample_suite()
    model = run.models[0]
    chain = next(case for case in model.cases if case.id == "chain-search-read")
    errored = msgspec.structs.replace(chain, status="errored", reason="step 1: the gateway answered 500")
    cases = [errored if case.id == chain.id else case for case in model.cases]
    run = msgspec.structs.replace(run, models=[msgspec.structs.replace(model, cases=cases)])
    found = [row for row in rows(run, suite) if row["case_id"] == chain.id]
    assert [(row["step"], row["case_status"], row["case_reason"]) for row in found] == [
        (1, "errored", "step 1: the gateway answered 500"),
        (2, "errored", "step 1: the gateway answered 500"),
    ]


# --- CSV -----------------------------------------------------------------------------------------


def test_csv_on_the_sample_run() -> None:
    run, suite = sample_run(), sample_suite()
    text = to_csv(run, suite)
    assert text.endswith("\r\n")
    table = read_csv(text)
    assert table[0] == list(COLUMNS)
    assert len(table) == 1 + expected_row_count(run)
    assert table[1] == [
        "openai/o4-mini",
        "sel-readme",
        "selection",
        "passed",
        "1",
        "true",
        "[]",
        '[{"name":"read_file","arguments":"{\\"path\\": \\"README.md\\"}"}]',
        "900.0",
        "0.0011",
        "",
        "1",
        "",
        "",
        "",
    ]
    failing = next(line for line in table if line[:2] == ["openai/o4-mini", "arg-line-range"])
    assert failing[3:6] == ["failed", "1", "false"]
    assert json.loads(failing[6]) == ['end_line: expected 20, got "20" (a string is not a number)']
    assert json.loads(json.loads(failing[7])[0]["arguments"]) == {
        "path": "src/app.py",
        "start_line": 10,
        "end_line": "20",
    }
    unpriced = next(line for line in table if line[:2] == ["auto", "near-diff"])
    assert unpriced[8:10] == [unpriced[8], ""] and float(unpriced[8]) > 0


def test_csv_and_jsonl_hold_the_same_rows() -> None:
    run, suite = hostile_run(), sample_suite()
    table = read_csv(to_csv(run, suite))[1:]
    lines = [json.loads(line) for line in to_jsonl(run, suite).splitlines()]
    assert len(table) == len(lines) == expected_row_count(run)
    for cells, row in zip(table, lines, strict=True):
        assert list(row) == list(COLUMNS)
        assert cells[4] == ("" if row["step"] is None else str(row["step"]))
        assert cells[5] == {None: "", True: "true", False: "false"}[row["passed"]]
        for index, column in ((6, "reasons"), (7, "calls")):
            assert (json.loads(cells[index]) if cells[index] else None) == row[column]


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_neutralises_formulas(start: str) -> None:
    assert safe_cell(start + "1+1") == "'" + start + "1+1"
    assert safe_cell("a" + start) == "a" + start
    assert safe_cell("[1]") == "[1]"


def test_csv_with_hostile_strings() -> None:
    run = hostile_run()
    text = to_csv(run, sample_suite())
    text.encode("utf-8")  # a lone surrogate would make this raise
    table = read_csv(text)
    assert len(table) == 1 + expected_row_count(run)
    first, errored, stale = table[1:4]
    assert first[0] == "'" + EVIL_MODEL
    assert first[1] == "'" + EVIL_ID
    assert first[2:6] == ["selection", "failed", "1", "false"]
    assert json.loads(first[6]) == [EVIL_REASON]
    assert json.loads(first[7]) == [{"name": '=HYPERLINK("x")', "arguments": EVIL_ARGUMENTS}]
    assert first[8:12] == ["12.5", "", "", "1"]
    assert errored[1] == "'-errored" and errored[3] == "errored"
    assert errored[10] == "\ufffd ]]> \x1b[2J\n"
    assert stale[1] == "'\tstale" and stale[3:5] == ["stale", ""]
    assert stale[10] == '"=1+1"'
    # Every cell that could start a formula starts with the apostrophe instead.
    assert not [cell for line in table for cell in line if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]


# --- JSONL ---------------------------------------------------------------------------------------


def test_jsonl_on_the_sample_run() -> None:
    run, suite = sample_run(), sample_suite()
    text = to_jsonl(run, suite)
    lines = text.split("\n")
    assert lines[-1] == "" and len(lines) - 1 == expected_row_count(run)
    first = json.loads(lines[0])
    assert first == {
        "model": "openai/o4-mini",
        "case_id": "sel-readme",
        "group": "selection",
        "case_status": "passed",
        "step": 1,
        "passed": True,
        "reasons": [],
        "calls": [{"name": "read_file", "arguments": '{"path": "README.md"}'}],
        "latency_ms": 900.0,
        "cost_usd": 0.0011,
        "case_reason": None,
        "run": 1,
        "failure_kind": None,
        "failure_argument": None,
        "failure_check": None,
    }
    assert to_jsonl(run, suite) == text  # deterministic


def test_jsonl_with_hostile_strings_round_trips_exactly() -> None:
    run = hostile_run()
    text = to_jsonl(run, sample_suite())
    text.encode("utf-8")
    lines = text.splitlines()
    assert len(lines) == expected_row_count(run)  # no raw line break inside a row
    first, errored, stale = (json.loads(line) for line in lines[:3])
    assert first["model"] == EVIL_MODEL and first["case_id"] == EVIL_ID
    assert first["reasons"] == [EVIL_REASON]
    assert first["calls"] == [{"name": '=HYPERLINK("x")', "arguments": EVIL_ARGUMENTS}]
    assert errored["case_reason"] == "\ud800 ]]> \x1b[2J\n"
    assert stale["case_id"] == "\tstale"


def test_an_empty_run_exports_a_header_only() -> None:
    run = msgspec.structs.replace(sample_run(), models=[])
    assert to_csv(run, sample_suite()) == ",".join(COLUMNS) + "\r\n"
    assert to_jsonl(run, sample_suite()) == ""


# --- JUnit ---------------------------------------------------------------------------------------


def test_junit_on_the_sample_run() -> None:
    run = sample_run()
    text = to_junit(run, sample_suite())
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    assert {key: root.get(key) for key in ("tests", "failures", "errors", "skipped")} == {
        "tests": "36",
        "failures": "6",
        "errors": "13",
        "skipped": "2",
    }
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == [model.model for model in run.models]
    o4 = suites[0]
    assert {key: o4.get(key) for key in ("tests", "failures", "errors", "skipped", "time")} == {
        "tests": "12",
        "failures": "3",
        "errors": "1",
        "skipped": "1",
        "time": "15.949",
    }
    cases = {case.get("name"): case for case in o4.findall("testcase")}
    assert len(cases) == 12
    assert cases["sel-readme"].get("classname") == "openai/o4-mini.selection"
    assert list(cases["sel-readme"]) == []
    failure = cases["chain-status-diff"].find("failure")
    assert failure is not None
    assert failure.get("message") == 'arg check (path): path: expected "src/app.py", got "."'
    assert failure.text == (
        'step 2, arg check (path): path: expected "src/app.py", got "."\n  called git_diff: {"path": "."}'
    )
    error = cases["par-three-files"].find("error")
    assert error is not None and error.get("message") == "HTTP 503 Service Unavailable after 3 retries"
    skipped = cases["sel-weather"].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "stale: the suite changed this case's request since it was recorded"
    auto = {case.get("name"): case for case in suites[1].findall("testcase")}
    assert auto["arg-issue-labels"].find("skipped").get("message") == "unrecorded: no cassette for this case"  # type: ignore[union-attr]
    broken = suites[2]
    assert (broken.get("tests"), broken.get("errors"), broken.get("failures")) == ("12", "12", "0")
    for suite in suites:
        counted = [child.tag for case in suite.findall("testcase") for child in case]
        assert counted.count("failure") == int(suite.get("failures") or 0)
        assert counted.count("error") == int(suite.get("errors") or 0)
        assert counted.count("skipped") == int(suite.get("skipped") or 0)


_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def test_junit_with_hostile_strings() -> None:
    text = to_junit(hostile_run(), sample_suite())
    assert not _XML_FORBIDDEN.search(text)
    root = ET.fromstring(text.encode("utf-8"))
    first = root.find("testsuite")
    assert first is not None and first.get("name") == xml_safe(EVIL_MODEL)
    assert xml_safe(EVIL_MODEL) == EVIL_MODEL.replace("\x1b", "")
    cases = first.findall("testcase")
    assert [case.get("name") for case in cases] == [xml_safe(EVIL_ID), "-errored", "\tstale"]
    assert cases[0].get("name") == '@SUM(1)\r\n"id", ]]><x/>'  # line breaks kept in an attribute
    assert cases[0].get("classname") == xml_safe(EVIL_MODEL) + ".selection"
    failure = cases[0].find("failure")
    assert failure is not None
    assert failure.get("message") == "+bad\r\n<x>&amp; ]]>  end"
    assert failure.text is not None and "]]>" in failure.text and "<script>alert(1)</script>" in failure.text
    error = cases[1].find("error")
    assert error is not None and error.get("message") == " ]]> [2J\n"
    skipped = cases[2].find("skipped")
    assert skipped is not None and skipped.get("message") == 'stale: "=1+1"'
    assert (first.get("failures"), first.get("errors"), first.get("skipped")) == ("1", "1", "1")


# --- CI summary ----------------------------------------------------------------------------------

SUMMARY_HEAD = """\
### lobrec: lobstack-tools 1.0.0

| Model | Overall | 95% interval | Passed | Scored | Failing | Errored | Stale |
| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| auto | 72.7% | 43.4–90.3% | 8/11 | 11/12 | 3 | 0 | 1 |
| openai/o4-mini | 70.0% | 39.7–89.2% | 7/10 | 10/12 | 3 | 1 | 1 |
| acme/tool-llm-7b | — | — | — | 0/12 | 0 | 12 | 0 |

Overall: the share of scored cases whose every step passed; the interval is Wilson's. \
Stale counts stale and unrecorded cases.

Judged with suite lobstack-tools 1.0.0.

<details><summary><b>auto</b>: 3 failing; 3 failed steps: needless call 1, made-up tool 1, \
parallel short 1</summary>

- sel-readme (Selection): step 1: called open\\_file, which the case does not offer; expected read\\_file
- nocall-ask (No call needed): step 1: expected no call (ask who the manager is), got a call to send\\_email
- par-two-cities (Parallel): step 1: expected 2 calls to get\\_weather in one response, got 1

</details>

<details><summary><b>openai/o4-mini</b>: 3 failing, 1 errored; 3 failed steps: arg check 2, \
wrong tool 1</summary>

- arg-line-range (Arguments): step 1: end\\_line: expected 20, got "20" (a string is not a number)
- near-slack (Near misses): step 1: called send\\_email, expected post\\_slack
- chain-status-diff (Chains): step 2: path: expected "src/app.py", got "."
- errored: par-three-files (Parallel): HTTP 503 Service Unavailable after 3 retries

</details>

<details><summary><b>acme/tool-llm-7b</b>: 12 errored</summary>

- errored: sel-readme (Selection): HTTP 404: model acme/tool-llm-7b not found
"""


def test_summary_on_the_sample_run() -> None:
    text = to_summary(sample_run(), sample_suite())
    assert text.startswith(SUMMARY_HEAD)
    assert text.endswith(
        "- errored: chain-status-diff (Chains): HTTP 404: model acme/tool-llm-7b not found\n\n</details>\n"
    )
    assert text.count("<details>") == text.count("</details>") == 3
    assert text.count("- errored: ") == 13  # every errored case, none cut
    assert "more" not in text


def test_summary_with_hostile_strings() -> None:
    text = to_summary(hostile_run(), sample_suite())
    text.encode("utf-8")
    assert "<script>" not in text and "<b>bold</b>" not in text and "<x/>" not in text
    assert "\x1b" not in text and "\x00" not in text
    summary = next(line for line in text.splitlines() if line.startswith("<details><summary><b>="))
    assert summary.startswith(  # then the kinds of the model's `failures`
        "<details><summary><b>=cmd|&#x27; /C calc&#x27;!A0\\n&quot;quoted&quot;, &lt;b&gt;bold&lt;/b&gt; "
        "]]&gt; \\x1b[31m</b>: 1 failing, 1 errored; "
    )
    # Each model's block is one HTML line, a blank line, a Markdown list, a blank line, </details>.
    for block in text.split("<details>")[1:]:
        head, rest = block.split("\n\n", 1)
        assert head.endswith("</summary>") and "\n" not in head
        assert rest.endswith("\n\n</details>\n") or rest.endswith("\n\n</details>\n\n")


# --- Markdown report -----------------------------------------------------------------------------


def _many_failing(count: int) -> ModelResult:
    """A model that failed `count` cases named f-00, f-01, ... (not in the suite; never scored by it)."""
    base = sample_run().models[0]
    step = next(case for case in base.cases if case.id == "near-slack").steps[0]
    cases = [
        CaseResult(id=f"f-{index:02d}", group="selection", status="scored", steps=[step])
        for index in range(count)
    ]
    return msgspec.structs.replace(base, model="many", cases=cases)


def test_markdown_lists_every_failing_case() -> None:
    run = msgspec.structs.replace(sample_run(), models=[_many_failing(45)])
    report = render_markdown(run)
    line = next(line for line in report.splitlines() if line.startswith("- **many**: failing"))
    assert line == "- **many**: failing (45): " + ", ".join(f"f-{index:02d}" for index in range(45))
    assert " more" not in report


def test_markdown_shows_every_rates_interval() -> None:
    report = render_markdown(sample_run())
    assert "| openai/o4-mini | 39.7–89.2% (7/10) | 52.9–97.8% (7/8) | 62.3–98.4% (10/11) |" in report
    assert "| acme/tool-llm-7b | — | — | — | — | — | — | — |" in report


def _with_unpriced(run: RunResult, case_ids: set[str]) -> ModelResult:
    """The first model again, with the judged calls of `case_ids` unpriced and metrics recomputed."""
    model = run.models[0]
    cases = [
        msgspec.structs.replace(
            case, api_calls=[msgspec.structs.replace(call, cost_usd=None) for call in case.api_calls]
        )
        if case.id in case_ids
        else case
        for case in model.cases
    ]
    return metrics.model_result(sample_suite(), model.model, cases, model.temperature_ignored)


def test_markdown_gives_the_priced_cost_when_a_call_is_unpriced() -> None:
    run = sample_run()
    model = _with_unpriced(run, {"near-diff", "chain-search-read"})
    assert model.metrics.cost_per_100_cases_usd is None and len(model.metrics.unpriced_calls) == 3
    report = render_markdown(msgspec.structs.replace(run, models=[model]))
    # 10 scored cases, 12 judged calls, 3 unpriced: 9 priced calls at $0.0011 over 10 cases.
    assert (
        "cost not shown: 3 unpriced calls; the scored cases' 9 priced calls cost \\$0.0990 per 100 cases "
        "(a lower bound)" in report
    )
    assert "| openai/o4-mini | 70.0% |" in report and "| 1.01 s | — |" in report


def test_markdown_says_the_answered_by_counts_are_calls() -> None:
    report = render_markdown(sample_run())
    assert "calls answered by openai/gpt-4.1-mini (10), anthropic/claude-haiku-4.5 (3)" in report


def test_markdown_is_deterministic_and_writable_with_hostile_strings() -> None:
    run = hostile_run()
    report = render_markdown(run)
    assert report == render_markdown(run)
    report.encode("utf-8")
    assert "<script>" not in report and "\x1b" not in report


def test_diff_markdown_lists_every_flipped_case() -> None:
    base = sample_run().models[0]
    passing = next(case for case in base.cases if case.id == "near-diff")
    a_cases = [msgspec.structs.replace(passing, id=f"c-{index:02d}") for index in range(30)]
    b_cases = [
        msgspec.structs.replace(case, id=f"c-{index:02d}")
        for index, case in enumerate(_many_failing(30).cases)
    ]
    a = msgspec.structs.replace(
        base, model="a", cases=[*a_cases, CaseResult(id="x", group="chains", status="stale")]
    )
    b = msgspec.structs.replace(base, model="b", cases=b_cases)
    report = render_diff_markdown(compare(a, b))
    assert "- **Pass → fail** (30): " + ", ".join(f"c-{index:02d}" for index in range(30)) in report
    assert not re.search(r"and \d+ more", report)


# --- docs ----------------------------------------------------------------------------------------


def test_every_export_column_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Exports") :]
    for column in COLUMNS:
        assert f"`{column}`" in section, column
    assert "`" + ",".join(COLUMNS) + "`" in section  # the order, as one header line

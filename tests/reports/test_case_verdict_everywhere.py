"""A case's verdict over its runs reads the same in every format: the terminal, Markdown and HTML
reports, the JUnit file, the CI summary and `lobrec diff` all say `case_verdict`'s word.

One model recorded three times, with a case of each kind: flaky (passed, failed, passed), fail
(failed, failed, errored), errored (passed, errored, passed) and unrecorded (passed, passed, not
recorded); the rest pass in every run.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import msgspec
from rich.console import Console

from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.repeats import CaseVerdict, case_verdict, combine_runs
from lobrec.core.metrics.results import ModelResult, RunResult
from lobrec.core.metrics.runs import runs_of
from lobrec.reports.html import render_diff_html, render_html
from lobrec.reports.junit import to_junit
from lobrec.reports.markdown import render_markdown
from lobrec.reports.summary import to_summary
from lobrec.reports.terminal import render_leaderboard
from tests.support.sample_results import model_result, sample_run, sample_suite, wrong_tool

SUITE = sample_suite()
ERRORED = ("errored", "HTTP 503 Service Unavailable after 3 retries")
UNRECORDED = ("unrecorded", "no cassette for this case")

EXPECTED: dict[str, CaseVerdict] = {
    "near-slack": "flaky",
    "sel-readme": "fail",
    "arg-line-range": "errored",
    "nocall-ask": "unrecorded",
}
"""The cases that do not pass, and their verdicts; every other case passes in every run."""


def repeated() -> ModelResult:
    runs = [
        model_result(SUITE, "m", {"sel-readme": wrong_tool}),
        model_result(
            SUITE, "m", {"near-slack": wrong_tool, "sel-readme": wrong_tool, "arg-line-range": ERRORED}
        ),
        model_result(SUITE, "m", {"sel-readme": ERRORED, "nocall-ask": UNRECORDED}),
    ]
    return combine_runs(SUITE, runs)


def the_run() -> RunResult:
    return msgspec.structs.replace(sample_run(), models=[repeated()])


def expected(case_id: str) -> CaseVerdict:
    return EXPECTED.get(case_id, "pass")


def test_the_core_gives_the_expected_verdicts() -> None:
    verdicts = {case.id: case_verdict(case.outcomes) for case in runs_of(repeated()).cases}
    assert verdicts == {case.id: expected(case.id) for case in SUITE.cases}


def test_junit_says_the_verdict() -> None:
    """fail and flaky are `<failure type="fail|flaky">`, errored an `<error>`, a stale or unrecorded
    case `<skipped>`, a pass nothing."""
    (testsuite,) = ET.fromstring(to_junit(the_run(), SUITE)).findall("testsuite")
    said = {}
    for case in testsuite.findall("testcase"):
        failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
        if failure is not None:
            said[case.get("name")] = failure.get("type")
            if failure.get("type") == "flaky":
                assert (failure.get("message") or "").startswith("flaky ")
        elif error is not None:
            said[case.get("name")] = error.get("type")
        elif skipped is not None:
            said[case.get("name")] = (skipped.get("message") or "").rpartition(" ")[2]
        else:
            said[case.get("name")] = "pass"
    assert said == {case.id: expected(case.id) for case in SUITE.cases}
    assert (testsuite.get("failures"), testsuite.get("errors"), testsuite.get("skipped")) == ("2", "1", "1")


def test_the_html_matrix_says_the_verdict() -> None:
    page = render_html(the_run(), SUITE)
    cells = dict(
        (case_id, status)
        for status, case_id in re.findall(
            r'<td class="cell (\w+)"><details class="cell" id="m0-([\w-]+)">', page
        )
    )
    assert cells == {case.id: expected(case.id) for case in SUITE.cases}


def test_the_ci_summary_lists_each_case_by_its_verdict() -> None:
    text = to_summary(the_run(), SUITE)
    assert "1 failing in every run, 1 flaky, 1 errored in some run" in text
    items = {}
    for line in text.splitlines():
        found = re.match(r"- (errored: )?([\w-]+) \([^)]*\): (flaky )?", line)
        if found is not None:
            items[found.group(2)] = "errored" if found.group(1) else "flaky" if found.group(3) else "fail"
    assert items == {
        case: verdict for case, verdict in EXPECTED.items() if verdict in ("fail", "flaky", "errored")
    }


def test_markdown_and_the_terminal_list_the_same_cases_under_the_same_words() -> None:
    markdown = render_markdown(the_run())
    assert (
        "- **m**: failing in every run (1): sel-readme; errored in some run (1): arg-line-range" in markdown
    )
    assert "Flaky (1): near-slack" in markdown
    console = Console(width=120, record=True, force_terminal=False, file=io.StringIO())
    render_leaderboard(the_run(), console)
    assert "m: flaky (1): near-slack" in console.export_text()


def test_lobrec_diff_badges_a_flaky_side_flaky() -> None:
    page = render_diff_html(compare(repeated(), model_result(SUITE, "one", {})))
    assert '<code>near-slack</code></th><td class="text"><span class="badge flaky">2/3</span>' in page
    assert '<code>sel-readme</code></th><td class="text"><span class="badge fail">0/2</span>' in page

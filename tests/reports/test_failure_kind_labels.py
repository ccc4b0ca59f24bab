"""One name per failure kind: every format a person reads says the kind's label (`KIND_LABELS`), every
data format keeps its id (a contract), on the committed fixtures' sloppy and eager models (between
them most kinds) and the sample run.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest
from rich.console import Console

from lobrec.core.judge.failures import KIND_LABELS, failed_step_kinds
from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import RunResult, decode_results, encode_results
from lobrec.core.suite.format import Suite
from lobrec.reports.export import to_csv, to_jsonl
from lobrec.reports.html import render_diff_html, render_html
from lobrec.reports.junit import to_junit
from lobrec.reports.markdown import render_diff_markdown, render_markdown
from lobrec.reports.summary import to_summary
from lobrec.reports.terminal import render_diff, render_leaderboard
from lobrec.suite_file import load_suite
from tests.support.sample_results import sample_run, sample_suite

ROOT = Path(__file__).resolve().parents[2]


def committed() -> tuple[RunResult, Suite]:
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    models = [model for model in run.models if model.model in ("fixture/sloppy", "fixture/eager")]
    return msgspec.structs.replace(run, models=models), load_suite(ROOT / "suite" / "suite.json")


RUNS = {"committed": committed, "sample": lambda: (sample_run(), sample_suite())}


@pytest.fixture(params=sorted(RUNS), scope="module")
def run_and_suite(request: pytest.FixtureRequest) -> tuple[RunResult, Suite]:
    return RUNS[request.param]()


def kinds_of(run: RunResult) -> set[str]:
    """The kinds of the run's failed steps, those whose label differs from the id."""
    found = {kind for model in run.models for kind in model.failures}
    assert found, "the run must have failed steps for this test to say anything"
    return {kind for kind in found if KIND_LABELS[kind] != kind}


def says_labels(text: str, kinds: set[str], where: str) -> None:
    """`text` names every kind by its label and none by its id (nor its Markdown-escaped id)."""
    for kind in kinds:
        assert KIND_LABELS[kind] in text, (where, kind)
        assert kind not in text and kind.replace("_", "\\_") not in text, (where, kind)


class VisibleText(HTMLParser):
    """The text a reader sees on a page: outside `<script>` and `<style>`, no attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible(page: str) -> str:
    parser = VisibleText()
    parser.feed(page)
    return "\n".join(parser.parts)


def drilled_kinds(page: str) -> Iterator[str]:
    """The kind each failed step's drill-down shows (`Failure kind: ...`), from the page's data."""
    start = page.index('<script type="application/json" id="lobrec-data">')
    data = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    for verdict in data["verdicts"]:
        for step in verdict.get("steps", []):
            kind = (step.get("observed") or {}).get("kind")
            if kind is not None:
                yield kind


def terminal_text(run: RunResult) -> str:
    console = Console(width=200, record=True, force_terminal=False, file=io.StringIO())
    render_leaderboard(run, console)
    return console.export_text()


def test_the_terminal_markdown_and_summary_say_labels(run_and_suite: tuple[RunResult, Suite]) -> None:
    run, suite = run_and_suite
    kinds = kinds_of(run)
    says_labels(terminal_text(run), kinds, "terminal")
    says_labels(render_markdown(run), kinds, "markdown")
    says_labels(to_summary(run, suite), kinds, "summary")


def test_the_html_report_shows_labels(run_and_suite: tuple[RunResult, Suite]) -> None:
    run, suite = run_and_suite
    page = render_html(run, suite)
    says_labels(visible(page), kinds_of(run), "html")
    shown = set(drilled_kinds(page))
    assert shown and shown <= set(KIND_LABELS.values())


def test_junit_messages_say_labels(run_and_suite: tuple[RunResult, Suite]) -> None:
    run, suite = run_and_suite
    root = ET.fromstring(to_junit(run, suite))
    failures = [
        f"{failure.get('message')}\n{failure.text}"
        for testsuite in root.findall("testsuite")
        for failure in testsuite.iter("failure")
    ]
    says_labels("\n".join(failures), kinds_of(run), "junit")


def test_lobrec_diff_says_labels(run_and_suite: tuple[RunResult, Suite]) -> None:
    run, _ = run_and_suite
    comparison = compare(run.models[0], run.models[1])
    kinds = {kind for kind in (item.kind for item in comparison.kinds) if KIND_LABELS[kind] != kind}
    assert kinds
    console = Console(width=200, record=True, force_terminal=False, file=io.StringIO())
    render_diff(comparison, console)
    says_labels(console.export_text(), kinds, "diff terminal")
    says_labels(render_diff_markdown(comparison), kinds, "diff markdown")
    says_labels(visible(render_diff_html(comparison)), kinds, "diff html")


def test_the_data_formats_keep_the_ids(run_and_suite: tuple[RunResult, Suite]) -> None:
    """CSV, JSONL and the results file: `failure_kind` is the id, never a label."""
    run, suite = run_and_suite
    every = {
        kind: count
        for model in run.models
        for kind, count in failed_step_kinds(case for case in model.cases).items()
        if kind != "unclassified"
    }
    from_csv = {row["failure_kind"] for row in csv.DictReader(io.StringIO(to_csv(run, suite)))} - {""}
    from_jsonl = {json.loads(line)["failure_kind"] for line in to_jsonl(run, suite).splitlines()} - {None}
    results = json.loads(encode_results(run))
    from_json = {kind for model in results["models"] for kind in model["failures"]}
    assert from_csv == from_jsonl == set(every) == from_json
    assert not from_csv & (set(KIND_LABELS.values()) - set(KIND_LABELS))

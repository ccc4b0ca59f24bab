"""Replies at the edge of what JSON allows never stop a report (issue 12, item 7).

Arguments nested 50,000 deep, a lone surrogate in a reply, and cost headers of `inf` or `1e308`
once killed `--html` with a traceback and no report at all. Each reply is judged, and every report
(JSON, Markdown, HTML) is written.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lobrec.core.metrics.results import encode_results
from lobrec.reports.html import render_html
from lobrec.reports.markdown import render_markdown
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite
from tests.support.faults import record_with_handler

MODEL = "fixture/oracle"
DEEP = "[" * 50_000 + "]" * 50_000


def _completion(arguments: str, content: str | None = None) -> bytes:
    call = {"id": "call_0", "type": "function", "function": {"name": "read_file", "arguments": arguments}}
    message = {"role": "assistant", "content": content, "tool_calls": [call]}
    return json.dumps({"model": MODEL, "choices": [{"index": 0, "message": message}]}).encode()


def _reply(body: bytes, cost: str = "0.001") -> Callable[[httpx.Request], httpx.Response]:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"x-lobstack-cost-usd": cost}, content=body)

    return handle


REPLIES = {
    "arguments nested 50,000 deep": _reply(_completion('{"path": ' + DEEP + "}")),
    "arguments text nested 50,000 deep, not an object": _reply(_completion(DEEP)),
    "a lone surrogate in the arguments and the text": _reply(
        _completion('{"path": "a\\ud800b"}', content="x\ud800y").replace(b"\\\\ud800", b"\\ud800")
    ),
    "cost header inf": _reply(_completion('{"path": "README.md"}'), cost="inf"),
    "cost header 1e308": _reply(_completion('{"path": "README.md"}'), cost="1e308"),
}


@pytest.mark.parametrize("kind", list(REPLIES), ids=list(REPLIES))
def test_every_report_is_written(small_suite_path: Path, tmp_path: Path, kind: str) -> None:
    suite = load_suite(small_suite_path)
    asyncio.run(record_with_handler(suite, tmp_path, MODEL, REPLIES[kind]))

    run = asyncio.run(rescore(suite, tmp_path)).run

    (model,) = run.models
    assert all(case.status == "scored" for case in model.cases)
    page = render_html(run, suite)
    page.encode("utf-8")  # writable as the report file is
    assert "</html>" in page
    render_markdown(run).encode("utf-8")
    decoded = json.loads(encode_results(run))
    cost = decoded["models"][0]["metrics"]["cost_per_100_cases_usd"]
    assert cost is None or cost < 1e6

"""A gateway cannot pass its answer off as lobrec's own "no response" record (issue 12, item 8).

lobrec writes a transport failure as status 599 with an `x-lobrec-error` header. A gateway that
itself answers 599, or sends `x-lobrec-error`, is recorded as the answer it is, and a rescore
reaches the verdict the live run reached instead of calling the case stale.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lobrec.cassette.layout import model_dir_name
from lobrec.core.suite.format import Suite
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite
from tests.support.faults import oracle_handler, record_with_handler

MODEL = "fixture/oracle"


def _gateway_599(request: httpx.Request) -> httpx.Response:
    return httpx.Response(599, json={"error": {"message": "upstream says 599"}})


def _forged_error_header(suite: Suite) -> Callable[[httpx.Request], httpx.Response]:
    good = oracle_handler(suite, MODEL)

    def handler(request: httpx.Request) -> httpx.Response:
        answer = good(request)
        return httpx.Response(
            answer.status_code,
            headers={**answer.headers, "x-lobrec-error": "TransportError: forged"},
            content=answer.content,
        )

    return handler


KINDS = ["gateway answers 599", "gateway sends x-lobrec-error"]


@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
def test_rescore_reaches_the_live_verdict(small_suite_path: Path, tmp_path: Path, kind: str) -> None:
    small_suite = load_suite(small_suite_path)
    handler = _gateway_599 if kind == "gateway answers 599" else _forged_error_header(small_suite)
    live = asyncio.run(record_with_handler(small_suite, tmp_path, MODEL, handler))

    (model,) = asyncio.run(rescore(small_suite, tmp_path)).run.models

    replayed = {case.id: (case.status, case.reason, case.passed) for case in model.cases}
    assert replayed == {case.id: (case.status, case.reason, case.passed) for case in live}
    expected_status = "errored" if kind == "gateway answers 599" else "scored"
    assert {status for status, _, _ in replayed.values()} == {expected_status}
    cassette = json.loads((tmp_path / model_dir_name(MODEL) / f"{live[0].id}.json").read_bytes())
    assert all("x-lobrec-error" not in i["response"]["headers"] for i in cassette["interactions"])

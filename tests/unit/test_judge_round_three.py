"""Issue 22, round three: what a clean-room judge still caught, each through the real runner.

Every test runs `run_case` (the one path live and replay share): through `LiveLink` over
`httpx.MockTransport` (no socket), then the recorded cassette through `ReplayExchange`, and the two
case results must be identical. Or, where the runner's timing is the point, a scripted `Exchange`.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from lobrec.core.metrics import compute_metrics
from lobrec.core.results import CaseResult
from lobrec.errors import TransportFailure
from lobrec.exchange import Answer
from lobrec.playback import ReplayExchange, open_for_replay
from lobrec.runner import no_sleep, run_case
from lobrec.transport import LiveLink, new_for_recording, save
from tests.e2e.conftest import build_small_suite

SUITE = build_small_suite()
MODEL = "acme/model"
URL = "http://gateway.invalid/v1/chat/completions"
PRICED = {"content-type": "application/json", "x-lobstack-cost-usd": "0.0001"}


def case(case_id: str) -> Any:
    found = SUITE.case(case_id)
    assert found is not None
    return found


def completion(calls: Sequence[tuple[str, str]], content: str | None = None) -> bytes:
    """A chat completion whose message makes `calls` (name, arguments text)."""
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return json.dumps({"model": MODEL, "choices": [{"message": message}]}).encode()


def run_live_and_replay(case_id: str, served: list[tuple[int, bytes]]) -> tuple[CaseResult, list[bytes]]:
    """The case recorded live from `served` (status, body) in order, then replayed: both results
    must be identical (elapsed times are read back from the cassette). Returns the result and
    the request bodies the gateway saw."""
    seen: list[bytes] = []
    replies = list(served)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        status, body = replies.pop(0)
        return httpx.Response(status, content=body, headers=PRICED)

    async def both(path: Path) -> tuple[CaseResult, CaseResult]:
        async with LiveLink(httpx.MockTransport(handle), URL) as link:
            cassette = new_for_recording(path)
            live = await run_case(link.recording_into(cassette), SUITE, case(case_id), MODEL, sleep=no_sleep)
            save(cassette)
        replayed = await run_case(
            ReplayExchange(open_for_replay(path)), SUITE, case(case_id), MODEL, sleep=no_sleep
        )
        return live, replayed

    with tempfile.TemporaryDirectory() as directory:
        live, replayed = asyncio.run(both(Path(directory) / f"{case_id}.json"))
    assert msgspec.json.encode(replayed) == msgspec.json.encode(live)
    return live, seen


# --- 1. a 2xx completion is the model's answer -----------------------------------------------------

RIGHT = completion([("read_file", '{"path": "README.md"}')])


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=200, max_value=299))
def test_any_2xx_completion_is_judged_like_a_200(status: int) -> None:
    result, seen = run_live_and_replay("sel-01", [(status, RIGHT)])
    assert result.status == "scored", result.reason
    assert result.passed
    assert [(call.status, call.judged) for call in result.api_calls] == [(status, True)]
    assert len(seen) == 1, "a 2xx is an answer: never retried"


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=200, max_value=299))
def test_a_wrong_2xx_completion_fails_rather_than_errors(status: int) -> None:
    result, _ = run_live_and_replay("sel-01", [(status, completion([("read_file", '{"path": "x.md"}')]))])
    assert result.status == "scored"
    assert not result.passed


def test_a_204_without_a_completion_errors_as_a_200_without_one_does() -> None:
    result, _ = run_live_and_replay("sel-01", [(204, b"")])
    assert (result.status, result.reason) == (
        "errored",
        "step 1: the gateway's 204 body is not JSON (0 bytes)",
    )
    result, _ = run_live_and_replay("sel-01", [(201, b'{"id": "x"}')])
    assert (result.status, result.reason) == (
        "errored",
        "step 1: the gateway's 201 body is not a chat completion (no choices)",
    )


def test_a_201_completion_without_a_price_hides_the_cost_as_a_200_does() -> None:
    result = CaseResult(
        id="sel-01",
        group="selection",
        status="scored",
        steps=[],
        api_calls=[
            msgspec.structs.replace(call, cost_usd=None)
            for call in run_live_and_replay("sel-01", [(201, RIGHT)])[0].api_calls
        ],
    )
    metrics = compute_metrics(SUITE, [result])
    assert metrics.unpriced_calls == ["sel-01 step 1 attempt 1"]
    assert metrics.cost_per_100_cases_usd is None


def test_a_3xx_still_errors_the_case() -> None:
    result, _ = run_live_and_replay("sel-01", [(302, b"")])
    assert (result.status, result.reason) == ("errored", "step 1: the gateway answered 302: Found")


# --- 2. "took no time" is a measure, "not timed" is not ----------------------------------------------


class Scripted:
    """An `Exchange` that plays a script: an Answer, or a TransportFailure with its measured time."""

    def __init__(self, script: list[Answer | TransportFailure]) -> None:
        self.script = list(script)

    async def send(self, body: bytes) -> Answer:
        item = self.script.pop(0)
        if isinstance(item, TransportFailure):
            raise item
        return item


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=0, max_size=3),
    st.floats(min_value=0, max_value=1e6, allow_nan=False),
)
def test_every_measured_attempt_counts_in_latency_p50_however_short(
    failures: list[float], answered: float
) -> None:
    script: list[Answer | TransportFailure] = [
        TransportFailure("ConnectError: refused", elapsed_ms=ms) for ms in failures
    ]
    script.append(Answer(200, {"x-lobstack-cost-usd": "0.0001"}, RIGHT, answered))
    result = asyncio.run(run_case(Scripted(script), SUITE, case("sel-01"), MODEL, sleep=no_sleep))
    assert result.status == "scored"
    assert [call.latency_ms for call in result.api_calls] == [*failures, answered]
    metrics = compute_metrics(SUITE, [result])
    times = sorted([*failures, answered])
    middle = len(times) // 2
    median = times[middle] if len(times) % 2 else (times[middle - 1] + times[middle]) / 2
    assert metrics.latency_p50_ms == round(median, 1)


def test_the_issue_example_a_failure_at_zero_then_a_200_at_1000_gives_500() -> None:
    script: list[Answer | TransportFailure] = [
        TransportFailure("ConnectError: refused", elapsed_ms=0.0),
        Answer(200, {"x-lobstack-cost-usd": "0.0001"}, RIGHT, 1000.0),
    ]
    result = asyncio.run(run_case(Scripted(script), SUITE, case("sel-01"), MODEL, sleep=no_sleep))
    assert compute_metrics(SUITE, [result]).latency_p50_ms == 500.0


def test_an_answer_lobrec_refused_is_not_timed() -> None:
    """A reply over the cap: no measure (null), not 0, and out of the median."""

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 64, headers=PRICED)

    async def record(path: Path) -> CaseResult:
        async with LiveLink(httpx.MockTransport(handle), URL, max_reply_bytes=16) as link:
            cassette = new_for_recording(path)
            result = await run_case(
                link.recording_into(cassette), SUITE, case("sel-01"), MODEL, sleep=no_sleep
            )
            save(cassette)
        return result

    with tempfile.TemporaryDirectory() as directory:
        result = asyncio.run(record(Path(directory) / "sel-01.json"))
    assert result.status == "errored"
    assert [call.latency_ms for call in result.api_calls] == [None]
    assert b'"latency_ms":null' in msgspec.json.encode(result)

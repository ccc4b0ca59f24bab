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
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cassette.vcrpy import new_for_recording, save
from lobrec.core.metrics.rates import compute_metrics
from lobrec.core.metrics.results import CaseResult
from lobrec.errors import TransportFailure
from lobrec.running.exchange import Answer
from lobrec.running.live import LiveLink
from lobrec.running.playback import ReplayExchange, open_for_replay
from lobrec.running.runner import no_sleep, replay_case, run_case
from tests.support.gateway import build_small_suite

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
        replayed = replay_case(ReplayExchange(open_for_replay(path)), SUITE, case(case_id), MODEL)
        return live, replayed

    with tempfile.TemporaryDirectory() as directory:
        live, replayed = asyncio.run(both(Path(directory) / f"{case_id}.json"))
    assert msgspec.json.encode(replayed) == msgspec.json.encode(live)
    return live, seen


# --- 1. a 2xx completion is the model's answer -----------------------------------------------------

RIGHT = completion([("read_file", '{"path": "README.md"}')])


@given(st.integers(min_value=200, max_value=299))
def test_any_2xx_completion_is_judged_like_a_200(status: int) -> None:
    result, seen = run_live_and_replay("sel-01", [(status, RIGHT)])
    assert result.status == "scored", result.reason
    assert result.passed
    assert [(call.status, call.judged) for call in result.api_calls] == [(status, True)]
    assert len(seen) == 1, "a 2xx is an answer: never retried"


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


# --- 6. a provider's refusal never decides the verdict -------------------------------------------------


def refusal(generation: Any, *, present: bool = True) -> bytes:
    """Groq's 400 `tool_use_failed`, carrying the model's output in `failed_generation`."""
    error: dict[str, Any] = {
        "message": "Tool call validation failed: parameters did not match schema",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
    }
    if present:
        error["failed_generation"] = generation
    return json.dumps({"error": error}).encode()


def test_a_refused_call_that_passes_our_checks_passes_live_and_replayed() -> None:
    body = refusal('{"name": "read_file", "arguments": {"path": "README.md"}}')
    result, seen = run_live_and_replay("sel-01", [(400, body)])
    assert result.status == "scored" and result.passed
    step = result.steps[0]
    assert step.calls[0].schema_valid is True
    assert step.quirks == ["arguments as an object", "call rejected by the provider"]
    assert [(call.status, call.judged) for call in result.api_calls] == [(400, True)]
    assert len(seen) == 1


def test_a_refused_call_with_string_arguments_is_read_as_any_call() -> None:
    body = refusal('{"name": "read_file", "arguments": "{\\"path\\": \\"README.md\\"}"}')
    result, _ = run_live_and_replay("sel-01", [(400, body)])
    assert result.passed and result.steps[0].quirks == ["call rejected by the provider"]
    assert result.steps[0].calls[0].arguments == '{"path": "README.md"}'


def test_a_chain_goes_on_after_a_refused_call_that_passes_and_echoes_it() -> None:
    first = refusal('{"name": "search_code", "arguments": {"query": "def parse_config"}}')
    second = completion([("read_file", '{"path": "src/config.py"}')])
    third = completion([("send_slack", '{"channel": "#dev", "text": "in src/config.py"}')])
    result, seen = run_live_and_replay("chain-01", [(400, first), (200, second), (200, third)])
    assert result.status == "scored" and result.passed
    echoed = json.loads(seen[1])["messages"][-2]
    assert echoed["role"] == "assistant"
    assert echoed["tool_calls"] == [
        {
            "type": "function",
            "function": {"name": "search_code", "arguments": {"query": "def parse_config"}},
            "id": "call_0",
        }
    ]


def test_an_empty_list_or_empty_text_is_no_call_not_a_made_up_tool() -> None:
    for generation in ("[]", "", []):
        result, _ = run_live_and_replay("sel-01", [(400, refusal(generation))])
        assert result.status == "scored", generation
        step = result.steps[0]
        assert step.calls == [] and not step.passed
        assert [m.reason for m in step.mismatches] == ["expected a call to read_file, not made"]
        assert compute_metrics(SUITE, [result]).made_up_tool.total == 0
        nocall, _ = run_live_and_replay("none-01", [(400, refusal(generation))])
        assert nocall.passed, generation


def test_a_non_string_generation_is_the_output_already_parsed() -> None:
    as_text, _ = run_live_and_replay(
        "par-01",
        [
            (
                400,
                refusal(
                    '[{"name": "read_file", "arguments": {"path": "a.txt"}}, '
                    '{"name": "read_file", "arguments": {"path": "b.txt"}}]'
                ),
            )
        ],
    )
    as_value, _ = run_live_and_replay(
        "par-01",
        [
            (
                400,
                refusal(
                    [
                        {"name": "read_file", "arguments": {"path": "a.txt"}},
                        {"name": "read_file", "arguments": {"path": "b.txt"}},
                    ]
                ),
            )
        ],
    )
    assert as_text.passed and as_value.passed
    assert msgspec.json.encode(as_text.steps) == msgspec.json.encode(as_value.steps)
    single, _ = run_live_and_replay(
        "sel-01", [(400, refusal({"name": "read_file", "arguments": {"path": "README.md"}}))]
    )
    assert single.passed


def test_text_that_is_not_a_call_is_one_call_with_no_name() -> None:
    for generation in ("<function=read_file>{}</function>", "42", '"read_file"'):
        result, _ = run_live_and_replay("sel-01", [(400, refusal(generation))])
        step = result.steps[0]
        assert [call.name for call in step.calls] == [None] and not step.passed


def test_a_refusal_without_the_models_output_errors_the_case() -> None:
    for body in (refusal(None), refusal("x", present=False)):
        result, _ = run_live_and_replay("sel-01", [(400, body)])
        assert result.status == "errored"
        assert result.reason == (
            "step 1: the gateway answered 400: Tool call validation failed: parameters did not match schema"
        )


_arguments_texts = st.one_of(
    st.text(max_size=20),
    st.dictionaries(st.sampled_from(["path", "start_line", "x"]), st.integers() | st.text(max_size=5)).map(
        json.dumps
    ),
    st.just('{"path": "README.md"}'),
)


@given(st.sampled_from(["read_file", "search_code", "made_up", ""]), _arguments_texts)
def test_a_refused_call_gets_the_verdict_the_same_call_gets_in_a_completion(
    name: str, arguments: str
) -> None:
    """Any name and arguments text: through Groq's refusal or a 200, the same verdict and records,
    but for the refusal's quirk (the provider's verdict never decides ours)."""
    from lobrec.core.judge import wire
    from lobrec.core.judge.step import judge_step

    sel = case("sel-01")
    offered = SUITE.offered_tools(sel)
    generation = json.dumps({"name": name, "arguments": arguments})
    refused = judge_step(sel.steps[0], wire.parse_tool_use_failed(refusal(generation)), offered, 0)
    answered = judge_step(sel.steps[0], wire.parse_completion(completion([(name, arguments)])), offered, 0)
    assert refused.passed == answered.passed
    assert refused.mismatches == answered.mismatches

    def without_quirks(verdict: Any) -> Any:
        return [msgspec.structs.replace(call, quirks=[]) for call in verdict.calls]

    assert without_quirks(refused) == without_quirks(answered)
    assert all("call rejected by the provider" in call.quirks for call in refused.calls)


# --- 4. the chain echo sends the model's calls back unchanged --------------------------------------

any_text = st.lists(
    st.characters() | st.integers(min_value=0xD800, max_value=0xDFFF).map(chr), max_size=16
).map("".join)
"""Any code points, lone surrogates included (JSON carries them as `\\udXXX` escapes)."""


def _reply_body(arguments: str, ascii_only: bool) -> bytes:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search_code", "arguments": arguments}}
        ],
    }
    value = {"model": MODEL, "choices": [{"message": message}]}
    try:
        return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate is not UTF-8: on the wire it is an escape
        return json.dumps(value).encode()


def _sent_arguments(body: bytes) -> Any:
    return json.loads(body)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]


@given(any_text, st.booleans())
def test_any_arguments_text_goes_back_in_the_next_request_as_received(
    arguments: str, ascii_only: bool
) -> None:
    from lobrec.core.judge import wire

    body = _reply_body(arguments, ascii_only)
    reply = wire.parse_completion(body)
    request = wire.request_body(MODEL, [wire.assistant_message(reply)], [])
    echoed = json.loads(request)["messages"][0]["tool_calls"][0]["function"]["arguments"]
    assert echoed == _sent_arguments(body)


@given(any_text)
def test_a_chain_echoes_arguments_holding_any_code_point(query: str) -> None:
    # The arguments text holds the code points themselves; the reply body spells a lone one `\ud800`.
    arguments = json.dumps({"query": query}, ensure_ascii=False)
    first = _reply_body(arguments, ascii_only=True)
    second = completion([("read_file", '{"path": "src/config.py"}')])
    third = completion([("send_slack", '{"channel": "#dev", "text": "in src/config.py"}')])
    result, seen = run_live_and_replay("chain-01", [(200, first), (200, second), (200, third)])
    assert result.passed
    echoed = json.loads(seen[1])["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert echoed == _sent_arguments(first)  # (an escaped pair `\ud800\udc00` is one code point)


def test_the_issue_example_goes_back_byte_for_byte() -> None:
    body = (
        b'{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", '
        b'"type": "function", "function": {"name": "search_code", '
        b'"arguments": "{\\"path\\": \\"\\ud800\\"}"}}]}}]}'
    )
    second = completion([("read_file", '{"path": "src/config.py"}')])
    third = completion([("send_slack", '{"channel": "#dev", "text": "in src/config.py"}')])
    _, seen = run_live_and_replay("chain-01", [(200, body), (200, second), (200, third)])
    assert b'"arguments":"{\\"path\\": \\"\\ud800\\"}"' in seen[1]


# --- 3. valid JSON is never refused ------------------------------------------------------------------


def _integer_part(length: int, first: int, filler: str) -> str:
    return (str(first) + (filler or "0") * length)[:length]


_digits = st.builds(
    _integer_part,
    st.integers(min_value=1, max_value=6000) | st.sampled_from([4301, 6000]),
    st.integers(min_value=1, max_value=9),
    st.text(alphabet="0123456789", max_size=8),
) | st.just("0")
json_numbers = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    _digits,
    st.sampled_from(["", ".5", ".000"]) | st.from_regex(r"\A\.[0-9]{1,30}\Z"),
    st.sampled_from(["", "e5", "E-3", "e+400", "e-400"]),
)
"""Any JSON number: an integer part of up to 6,000 digits (Python's `int` stops at 4,300)."""


@given(json_numbers)
def test_any_valid_json_number_in_the_arguments_parses(number: str) -> None:
    from lobrec.core.metrics.results import encode_results
    from lobrec.running.run_result import build_run_result

    arguments = '{"path": "README.md", "start_line": ' + number + "}"
    script: list[Answer | TransportFailure] = [
        Answer(200, {"x-lobstack-cost-usd": "0.0001"}, completion([("read_file", arguments)]), 5.0)
    ]
    result = asyncio.run(run_case(Scripted(script), SUITE, case("sel-01"), MODEL, sleep=no_sleep))
    assert result.status == "scored" and result.passed  # the check is on `path` only
    record = result.steps[0].calls[0]
    assert record.arguments == arguments
    assert not any("not valid JSON" in error for error in record.schema_errors)
    if number.lstrip("-").isdigit():  # an integer literal: valid exactly when it is at least 1
        assert record.schema_valid == (not number.startswith("-") and number.strip("0") != "")
    encode_results(build_run_result(SUITE, {MODEL: [result]}))  # the results file holds it


def test_an_integer_past_pythons_digit_limit_is_judged_exactly() -> None:
    from lobrec.core.suite.checks import run_check
    from lobrec.core.suite.format import Eq, Range
    from lobrec.core.suite.jsonschema import validate

    huge = "9" * 5000
    arguments = '{"path": "README.md", "start_line": ' + huge + "}"
    script: list[Answer | TransportFailure] = [Answer(200, {}, completion([("read_file", arguments)]), 5.0)]
    result = asyncio.run(run_case(Scripted(script), SUITE, case("sel-01"), MODEL, sleep=no_sleep))
    assert result.passed and result.steps[0].calls[0].schema_valid is True
    from lobrec.core.judge import wire

    parsed = wire.parse_completion(completion([("read_file", arguments)])).calls[0].arguments
    assert parsed is not None
    value = parsed["start_line"]
    assert validate({"type": "integer", "maximum": 10}, value) == [
        f"$: expected at most 10, got {huge[:79]}…"
    ]
    assert run_check(Range(arg="n", min=1), {"n": value}) is None
    assert run_check(Range(arg="n", max=1e308), {"n": value}) is not None
    assert run_check(Eq(arg="n", value=1), {"n": value}) is not None

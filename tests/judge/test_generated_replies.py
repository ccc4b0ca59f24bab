"""Every case of the suite against hypothesis-generated replies: anything a gateway could send.

A reply is drawn from JSON of every shape: any JSON value at all, or a chat completion whose every
field may be missing, of the wrong type, or odd (lone surrogates written as `\\ud800`, huge numbers,
names of real and made-up tools, arguments that are JSON of any kind, or not JSON). At two levels:

- core: `wire.parse_completion` either gives a `Reply` or raises `NotACompletion` (the case would be
  errored); `judge_step` then judges it against every step of every case without raising, and the
  verdict, and the chain's next request, encode (the results file and the wire can hold them);
- runner: `run_case` through `LiveLink` over `httpx.MockTransport`, with generated statuses
  and bodies, ends every case scored or errored-with-a-reason; the run's metrics and results file
  build; and replaying the recorded cassette gives the identical case result.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lobrec.cassette.vcrpy import new_for_recording, save
from lobrec.core.judge import wire
from lobrec.core.judge.step import judge_step
from lobrec.core.metrics.results import CaseResult, encode_results
from lobrec.core.suite.format import CallStep, Suite
from lobrec.running.live import LiveLink
from lobrec.running.playback import ReplayExchange, open_for_replay
from lobrec.running.run_result import build_run_result
from lobrec.running.runner import no_sleep, replay_case, run_case
from lobrec.suite_file import load_suite
from tests.support.faults import MOCK_URL, real_suite_path
from tests.support.gateway import build_small_suite

_path = real_suite_path()
SUITE: Suite = load_suite(_path) if _path is not None else build_small_suite()
MODEL = "generated/model"
TOOL_NAMES = sorted({tool.function.name for tool in SUITE.tools})
ANSWERS = [
    call.answer
    for case in SUITE.cases
    for step in case.steps
    if isinstance(step, CallStep)
    for call in step.calls
]

# --- what a gateway could send -------------------------------------------------------------------

texts = st.text(st.characters(exclude_categories=()), max_size=12)
"""Any code points, lone surrogates included (JSON can carry them as `\\udXXX` escapes)."""

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)


def _or_anything(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return strategy | json_values


names = _or_anything(st.sampled_from(TOOL_NAMES) | st.sampled_from(TOOL_NAMES).map(lambda n: n + "_v2"))
argument_objects = st.sampled_from(ANSWERS) | st.builds(
    lambda answer, extra: {**answer, **extra},
    st.sampled_from(ANSWERS),
    st.dictionaries(texts, json_values, max_size=2),
)
arguments = _or_anything(
    argument_objects.map(json.dumps) | json_values.map(json.dumps) | texts | st.just('{"path": "READ')
)
functions = _or_anything(st.fixed_dictionaries({}, optional={"name": names, "arguments": arguments}))
tool_calls = _or_anything(
    st.fixed_dictionaries(
        {"function": functions},
        optional={"id": _or_anything(texts), "type": _or_anything(st.just("function"))},
    )
)
messages = _or_anything(
    st.fixed_dictionaries(
        {},
        optional={
            "role": _or_anything(st.just("assistant")),
            "content": _or_anything(texts),
            "tool_calls": _or_anything(st.lists(tool_calls, max_size=4)),
        },
    )
)
completions = st.fixed_dictionaries(
    {
        "choices": _or_anything(
            st.lists(_or_anything(st.fixed_dictionaries({"message": messages})), max_size=2)
        )
    },
    optional={"model": _or_anything(texts), "id": json_values, "usage": json_values},
)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A body as bytes: mostly completion-shaped, sometimes any JSON, written ASCII-safe or raw."""
    value = draw(completions | json_values)
    if draw(st.booleans()):
        return json.dumps(value).encode()
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


STATUSES = st.sampled_from([200, 200, 200, 200, 200, 400, 404, 429, 500, 502, 503, 504])
replies = st.tuples(STATUSES, bodies())

DEEP = b'{"choices": [{"message": {"content": ' + b"[" * 5000 + b"]" * 5000 + b"}}]}"
DEEP_ARGUMENTS = json.dumps(
    {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "x", "arguments": "[" * 900 + "]" * 900}}]}}
        ]
    }
).encode()
SURROGATES = json.dumps(
    {
        "model": "\ud800",
        "choices": [
            {
                "message": {
                    "content": "\udfff",
                    "tool_calls": [
                        {"id": "\ud83d", "function": {"name": "\ud800", "arguments": '{"a": "\\ud800"}'}}
                    ],
                }
            }
        ],
    }
).encode()


# --- core: parse and judge -----------------------------------------------------------------------


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(body=bodies())
@example(body=DEEP)
@example(body=DEEP_ARGUMENTS)
@example(body=SURROGATES)
@example(body=b'{"choices": [{"message": {"content": "\xed\xa0\x80"}}]}')
@example(body=b"")
@example(body=b"\xff\xfe")
@example(body=b"1e400")
def test_parse_and_judge_never_raise(body: bytes) -> None:
    try:
        reply = wire.parse_completion(body)
    except wire.NotACompletion as exc:
        assert str(exc).startswith("the gateway's 200 body is not")
        return
    for case in SUITE.cases:
        offered = SUITE.offered_tools(case)
        for index, step in enumerate(case.steps):
            verdict = judge_step(step, reply, offered, index)
            assert isinstance(verdict.passed, bool)
            msgspec.json.encode(verdict)  # the results file can hold it
        # A chain echoes the model's own turn back: that request must encode too.
        wire.request_body(MODEL, [*case.messages, wire.assistant_message(reply)], offered)


# --- the runner, through the transport -----------------------------------------------------------


def handler(served: list[tuple[int, bytes]]) -> Any:
    """Serve the drawn replies in order, then the last one again."""
    queue = list(served)

    def handle(request: httpx.Request) -> httpx.Response:
        status, body = queue.pop(0) if len(queue) > 1 else queue[0]
        return httpx.Response(status, content=body, headers={"content-type": "application/json"})

    return handle


def check_result(result: CaseResult) -> None:
    assert result.status in ("scored", "errored"), (result.status, result.reason)
    if result.status == "errored":
        assert isinstance(result.reason, str) and result.reason.startswith("step ")
    else:
        assert result.reason is None and result.steps


async def run_all(served: list[tuple[int, bytes]]) -> list[CaseResult]:
    results = []
    async with LiveLink(httpx.MockTransport(handler(served)), MOCK_URL) as link:
        for case in SUITE.cases:
            exchange = link.recording_into(new_for_recording(Path("unused.json")))
            results.append(await run_case(exchange, SUITE, case, MODEL, sleep=no_sleep))
    return results


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(served=st.lists(replies, min_size=1, max_size=6))
@example(served=[(200, SURROGATES)])
@example(served=[(400, b'{"error": {"message": "\\ud800 \\u001b[31m"}}')])
def test_every_case_ends_scored_or_errored(served: list[tuple[int, bytes]]) -> None:
    results = asyncio.run(run_all(served))
    for result in results:
        check_result(result)
    run = build_run_result(SUITE, {MODEL: results})
    encode_results(run)  # metrics over any mix of verdicts, and the file, build


async def record_and_replay(
    case_index: int, served: list[tuple[int, bytes]], root: Path
) -> tuple[CaseResult, CaseResult]:
    case = SUITE.cases[case_index]
    path = root / f"{case.id}.json"
    async with LiveLink(httpx.MockTransport(handler(served)), MOCK_URL) as link:
        cassette = new_for_recording(path)
        live = await run_case(link.recording_into(cassette), SUITE, case, MODEL, sleep=no_sleep)
        save(cassette)
    replayed = replay_case(ReplayExchange(open_for_replay(path)), SUITE, case, MODEL)
    return live, replayed


def _zero_latency(result: CaseResult) -> CaseResult:
    return msgspec.structs.replace(
        result, api_calls=[msgspec.structs.replace(c, latency_ms=0.0) for c in result.api_calls]
    )


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(case_index=st.integers(0, len(SUITE.cases) - 1), served=st.lists(replies, min_size=1, max_size=5))
def test_replay_of_any_recorded_reply_is_identical(case_index: int, served: list[tuple[int, bytes]]) -> None:
    """Whatever was recorded replays to the same case result (the live elapsed time is measured
    on the live side and read back from the cassette, so it is compared as recorded)."""
    with tempfile.TemporaryDirectory() as directory:
        live, replayed = asyncio.run(record_and_replay(case_index, served, Path(directory)))
    check_result(live)
    assert msgspec.json.encode(replayed) == msgspec.json.encode(live)

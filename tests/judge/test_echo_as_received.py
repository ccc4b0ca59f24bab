"""A chain echoes the model's turn as received: a call's `id` goes back unchanged in the assistant
turn and in its tool message's `tool_call_id`, a lone surrogate included (JSON carries it as a
`\\ud800` escape, which UTF-8 cannot hold), and so do the calls of a provider's refusal
(`failed_generation`). What is judged and written to the results reads a lone surrogate as U+FFFD;
live and replay agree (`run_live_and_replay` checks both)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given

from lobrec.core.judge import wire
from tests.judge.test_judge_edges import MODEL, any_text, completion, refusal, run_live_and_replay

_NEXT = [
    (200, completion([("read_file", '{"path": "src/config.py"}')])),
    (200, completion([("send_slack", '{"channel": "#dev", "text": "in src/config.py"}')])),
]


def _reply_with_id(call_id: str) -> bytes:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "search_code", "arguments": "{}"}}
        ],
    }
    return json.dumps({"model": MODEL, "choices": [{"message": message}]}).encode()


def _echo(request: bytes) -> tuple[Any, Any]:
    """The echoed call's id and its tool message's `tool_call_id` in a chain's next request."""
    messages = json.loads(request)["messages"]
    return messages[-2]["tool_calls"][0]["id"], messages[-1]["tool_call_id"]


@given(any_text.filter(bool))
def test_any_call_id_goes_back_as_received_in_the_turn_and_its_tool_message(call_id: str) -> None:
    body = _reply_with_id(call_id)
    sent = json.loads(body)["choices"][0]["message"]["tool_calls"][0]["id"]  # an escaped pair is one
    reply = wire.parse_completion(body)
    messages = [wire.assistant_message(reply), wire.tool_message(reply.calls[0], "ok")]
    assert _echo(wire.request_body(MODEL, messages, [])) == (sent, sent)


def test_a_lone_surrogate_in_a_call_id_goes_back_as_the_same_escape_live_and_replayed() -> None:
    result, seen = run_live_and_replay("chain-01", [(200, _reply_with_id("call_\ud800")), *_NEXT])
    assert result.passed
    assert _echo(seen[1]) == ("call_\ud800", "call_\ud800")
    assert b'"tool_call_id":"call_\\ud800"' in seen[1]
    assert b"\\ufffd" not in seen[1] and "\ufffd".encode() not in seen[1]


def test_a_refused_call_goes_back_with_its_lone_surrogates_as_received() -> None:
    generation = '{"name": "search_code", "arguments": {"query": "config \\ud800"}}'
    result, seen = run_live_and_replay("chain-01", [(400, refusal(generation)), *_NEXT])
    assert result.passed
    echoed = json.loads(seen[1])["messages"][-2]["tool_calls"][0]
    assert echoed["function"]["arguments"] == {"query": "config \ud800"}
    assert b'"query":"config \\ud800"' in seen[1]
    # judged and written to the results as U+FFFD
    assert result.steps[0].calls[0].arguments == '{"query": "config \ufffd"}'


def test_a_refused_call_given_as_json_text_keeps_its_lone_surrogate_in_the_arguments_text() -> None:
    generation = [{"name": "search_code", "arguments": '{"query": "\udc00"}'}]
    result, seen = run_live_and_replay("chain-01", [(400, refusal(generation)), *_NEXT])
    assert result.passed
    echoed = json.loads(seen[1])["messages"][-2]["tool_calls"][0]
    assert echoed["function"]["arguments"] == '{"query": "\udc00"}'
    assert result.steps[0].calls[0].arguments == '{"query": "\ufffd"}'


def test_arguments_sent_as_an_object_keep_their_lone_surrogate_in_the_echo_only() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search_code", "arguments": {"query": "x\ud800"}},
            }
        ],
    }
    body = json.dumps({"model": MODEL, "choices": [{"message": message}]}).encode()
    result, seen = run_live_and_replay("chain-01", [(200, body), *_NEXT])
    assert result.passed
    assert result.steps[0].calls[0].arguments == '{"query": "x\ufffd"}'
    assert b'"arguments":{"query":"x\\ud800"}' in seen[1]

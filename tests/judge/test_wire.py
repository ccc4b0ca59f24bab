"""Request bodies are deterministic; a body that is not a chat completion is the gateway's fault."""

from __future__ import annotations

import json

import pytest

from lobrec.core.judge.wire import NotACompletion, offered_tools_json, parse_completion, request_body
from lobrec.core.suite.format import FunctionSpec, Message, Tool

TOOL = Tool(type="function", function=FunctionSpec(name="f", description="d", parameters={"type": "object"}))


def test_request_body_has_exactly_the_four_fields_in_order() -> None:
    body = request_body(
        "m/x", [Message(role="system", content="s"), Message(role="user", content="é")], [TOOL]
    )
    assert body == (
        b'{"model":"m/x","messages":[{"role":"system","content":"s"},{"role":"user","content":"\xc3\xa9"}],'
        b'"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],'
        b'"temperature":0}'
    )


def test_request_body_is_the_same_bytes_every_time() -> None:
    messages = [Message(role="user", content="hi"), {"role": "assistant", "content": None, "tool_calls": []}]
    assert len({request_body("m", messages, [TOOL]) for _ in range(5)}) == 1


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"<html>busy</html>", "the gateway's 200 body is not JSON (17 bytes)"),
        (b"[1, 2]", "the gateway's 200 body is not a chat completion (not an object)"),
        (b'{"ok": true}', "the gateway's 200 body is not a chat completion (no choices)"),
        (b'{"choices": []}', "the gateway's 200 body is not a chat completion (no choices)"),
        (b'{"choices": [{"message": "hi"}]}', "the gateway's 200 body is not a chat completion (no message)"),
        (b'{"choices": [{"message": {}}], "x": NaN}', "the gateway's 200 body is not JSON (40 bytes)"),
    ],
)
def test_not_a_completion_is_a_gateway_error(body: bytes, error: str) -> None:
    with pytest.raises(NotACompletion) as info:
        parse_completion(body)
    assert str(info.value) == error


def test_reply_keeps_the_answering_model_and_content() -> None:
    reply = parse_completion(
        json.dumps({"model": "fake/alpha", "choices": [{"message": {"content": "hi"}}]}).encode()
    )
    assert (reply.model, reply.content, reply.calls, reply.tool_calls_problem) == (
        "fake/alpha",
        "hi",
        [],
        None,
    )


def test_a_request_with_the_tools_written_once_is_byte_for_byte_the_request() -> None:
    """`offered_tools_json` is written once per suite and tool list; a request carrying it must be the
    request lobrec always sent (a replay finds its answer by these bytes), for every case."""
    from lobrec.suite_file import load_suite

    suite = load_suite(None)
    for case in suite.cases:
        written = offered_tools_json(suite, case)
        assert written is offered_tools_json(suite, case)
        assert request_body("a/b", list(case.messages), written) == request_body(
            "a/b", list(case.messages), suite.offered_tools(case)
        )

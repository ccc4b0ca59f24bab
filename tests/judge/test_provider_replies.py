"""Every provider shape of issue 17, pinned with small replies of our own (tested on any clone)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge import wire
from lobrec.core.judge.step import judge_step
from lobrec.core.suite.format import CallStep, ExpectedCall, FunctionSpec, NoCallStep, Tool

TOOL = Tool(
    type="function",
    function=FunctionSpec(
        name="list_files",
        description="d",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "additionalProperties": False,
        },
    ),
)
CALL = CallStep(calls=[ExpectedCall(name="list_files", answer={})])


def body(message: dict[str, Any] | None, finish: str = "stop") -> bytes:
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
    if message is not None:
        choice["message"] = message
    return json.dumps({"id": "x", "model": "m", "choices": [choice]}).encode()


def one_call(function: dict[str, Any], call_id: Any = "call_a") -> bytes:
    item: dict[str, Any] = {"type": "function", "function": function}
    if call_id is not None:
        item["id"] = call_id
    return body({"role": "assistant", "content": None, "tool_calls": [item]}, "tool_calls")


@pytest.mark.parametrize(
    "function",
    [
        {"name": "list_files"},
        {"name": "list_files", "arguments": None},
        {"name": "list_files", "arguments": ""},
    ],
)
def test_missing_null_or_empty_arguments_are_no_arguments(function: dict[str, Any]) -> None:
    reply = wire.parse_completion(one_call(function))
    assert reply.calls[0].arguments == {}
    verdict = judge_step(CALL, reply, [TOOL], 0)
    assert verdict.passed
    assert verdict.calls[0].schema_valid is True
    assert verdict.calls[0].quirks == [wire.QUIRK_MISSING_ARGUMENTS]
    assert verdict.quirks == [wire.QUIRK_MISSING_ARGUMENTS]


def test_missing_arguments_still_meet_the_schema() -> None:
    required = Tool(
        type="function",
        function=FunctionSpec(
            name="list_files", description="d", parameters={"type": "object", "required": ["path"]}
        ),
    )
    verdict = judge_step(CALL, wire.parse_completion(one_call({"name": "list_files"})), [required], 0)
    assert verdict.calls[0].schema_valid is False


def test_arguments_as_an_object_are_accepted_as_parsed_with_the_quirk() -> None:
    reply = wire.parse_completion(one_call({"name": "list_files", "arguments": {"path": "src"}}))
    assert reply.calls[0].arguments == {"path": "src"}
    verdict = judge_step(CALL, reply, [TOOL], 0)
    assert verdict.passed and verdict.calls[0].quirks == [wire.QUIRK_ARGUMENTS_OBJECT]
    assert json.loads(verdict.calls[0].arguments or "") == {"path": "src"}


@pytest.mark.parametrize("arguments", [["src"], 3, True, '"src"', "[1]", "null"])
def test_json_that_is_not_an_object_is_still_rejected(arguments: Any) -> None:
    reply = wire.parse_completion(one_call({"name": "list_files", "arguments": arguments}))
    assert reply.calls[0].arguments is None
    verdict = judge_step(CALL, reply, [TOOL], 0)
    assert not verdict.passed and verdict.calls[0].schema_valid is False


def test_duplicate_keys_do_not_parse_as_an_object_and_the_verdict_says_why() -> None:
    reply = wire.parse_completion(one_call({"name": "list_files", "arguments": '{"path": "x", "path": "y"}'}))
    verdict = judge_step(CALL, reply, [TOOL], 0)
    assert not verdict.passed
    assert verdict.calls[0].schema_valid is False
    assert "'path' appears more than once" in verdict.mismatches[0].reason


keys = st.text(max_size=4)
values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4))


@given(st.lists(st.tuples(keys, values), max_size=6, unique_by=lambda pair: pair[0]))
def test_any_object_without_duplicate_keys_is_accepted(pairs: list[tuple[str, Any]]) -> None:
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"
    call = wire.parse_completion(one_call({"name": "list_files", "arguments": text})).calls[0]
    assert call.arguments == dict(pairs)


@given(
    st.lists(st.tuples(keys, values), min_size=1, max_size=5),
    st.data(),
    st.booleans(),
)
def test_any_object_with_a_duplicated_key_is_rejected(
    pairs: list[tuple[str, Any]], data: st.DataObject, nested: bool
) -> None:
    key = data.draw(st.sampled_from([k for k, _ in pairs]))
    members = [*pairs, (key, data.draw(values))]
    order = data.draw(st.permutations(members))
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in order) + "}"
    if nested:
        text = '{"outer": ' + text + "}"
    call = wire.parse_completion(one_call({"name": "list_files", "arguments": text})).calls[0]
    assert call.arguments is None
    assert "appears more than once" in (call.problem or "")


def test_refusal_with_null_content_is_the_verdict_text() -> None:
    reply = wire.parse_completion(body({"role": "assistant", "content": None, "refusal": "I can't help."}))
    verdict = judge_step(NoCallStep(), reply, [TOOL], 0)
    assert verdict.passed and verdict.content == "I can't help."


def test_content_parts_keep_the_text_and_drop_thinking() -> None:
    parts = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]},
        {"type": "text", "text": "Hi."},
    ]
    reply = wire.parse_completion(body({"role": "assistant", "content": parts}))
    assert reply.content == "Hi."


def test_content_filter_is_a_reply_with_no_calls_and_a_visible_reason() -> None:
    reply = wire.parse_completion(body(None, "content_filter"))
    assert reply.calls == [] and reply.quirks == [wire.QUIRK_CONTENT_FILTER]
    verdict = judge_step(CALL, reply, [TOOL], 0)
    assert not verdict.passed and not verdict.names_match
    assert "content filter" in verdict.mismatches[0].reason
    assert verdict.quirks == [wire.QUIRK_CONTENT_FILTER]
    assert judge_step(NoCallStep(), reply, [TOOL], 0).quirks == [wire.QUIRK_CONTENT_FILTER]


def test_no_message_without_a_content_filter_is_still_not_a_completion() -> None:
    with pytest.raises(wire.NotACompletion):
        wire.parse_completion(body(None, "stop"))


GROQ = json.dumps(
    {
        "error": {
            "message": "Tool call validation failed: parameters did not match schema",
            "type": "invalid_request_error",
            "code": "tool_use_failed",
            "failed_generation": '{"name": "list_files", "arguments": {"dir": "src"}}',
        }
    }
).encode()


def test_groq_tool_use_failed_is_the_models_answer_judged_by_our_checks_and_schema() -> None:
    assert wire.tool_use_failed(400, GROQ)
    assert not wire.tool_use_failed(200, GROQ)
    assert not wire.tool_use_failed(400, b'{"error": {"code": "invalid_api_key", "message": "no"}}')
    assert not wire.tool_use_failed(400, b"not json")
    reply = wire.parse_tool_use_failed(GROQ)
    verdict = judge_step(CALL, reply, [TOOL], 0)
    # The step has no checks, so the call passes; the schema (no `dir`) makes it invalid arguments.
    assert verdict.passed and verdict.names_match
    assert verdict.calls[0].name == "list_files" and verdict.calls[0].schema_valid is False
    assert verdict.calls[0].schema_errors == ['$: unexpected property "dir"']
    assert verdict.quirks == [wire.QUIRK_ARGUMENTS_OBJECT, wire.QUIRK_REJECTED_BY_PROVIDER]


def test_chain_echo_keeps_the_whole_message_and_ids_agree_with_tool_messages() -> None:
    message = {
        "role": "assistant",
        "content": "Let me look.",
        "reasoning_content": "think",
        "tool_calls": [
            {"id": "", "type": "function", "function": {"name": "list_files", "arguments": "{}"}},
            {"type": "function", "function": {"name": "list_files", "arguments": "{}"}},
            {"id": "call_z", "type": "function", "function": {"name": "list_files", "arguments": "{}"}},
        ],
    }
    reply = wire.parse_completion(body(message, "tool_calls"))
    echoed = wire.assistant_message(reply)
    assert echoed["reasoning_content"] == "think" and echoed["content"] == "Let me look."
    ids = [call["id"] for call in echoed["tool_calls"]]
    assert ids == ["call_0", "call_1", "call_z"]
    assert ids == [wire.tool_message(call, "r").tool_call_id for call in reply.calls]
    assert message["tool_calls"][0]["id"] == ""  # the received message is not changed


@pytest.mark.parametrize(
    "arguments_json",
    ['{"path": "x", "path": "y"}', '{"outer": {"path": "x", "path": "y"}}', '{"list": [{"a": 1, "a": 2}]}'],
)
def test_an_object_sent_as_arguments_obeys_the_same_duplicate_key_rule(arguments_json: str) -> None:
    raw = (
        '{"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, '
        '"tool_calls": [{"id": "c", "type": "function", "function": {"name": "list_files", "arguments": '
        + arguments_json
        + "}}]}}]}"
    ).encode()
    call = wire.parse_completion(raw).calls[0]
    assert call.arguments is None and "appears more than once" in (call.problem or "")


def test_duplicate_keys_elsewhere_in_a_body_do_not_matter() -> None:
    raw = (
        b'{"model": "a", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant",'
        b' "content": "hi", "content": "hello"}}]}'
    )
    reply = wire.parse_completion(raw)
    assert reply.content == "hello" and reply.model == "m"
    assert (
        json.loads(wire.request_body("m", [wire.assistant_message(reply)], [TOOL]))["messages"][0]["content"]
        == "hello"
    )


def _groq(generation: str) -> bytes:
    return json.dumps(
        {"error": {"message": "m", "code": "tool_use_failed", "failed_generation": generation}}
    ).encode()


def test_groq_failed_generation_with_several_calls_or_plain_text() -> None:
    several = wire.parse_tool_use_failed(
        _groq('[{"name": "list_files", "arguments": {}}, {"name": "read_file", "arguments": {"p": 1}}]')
    )
    assert [call.name for call in several.calls] == ["list_files", "read_file"]
    assert [call.arguments for call in several.calls] == [{}, {"p": 1}]
    text = wire.parse_tool_use_failed(_groq("<function=list_files>{}</function>"))
    assert [call.name for call in text.calls] == [None]
    verdict = judge_step(CALL, text, [TOOL], 0)
    assert not verdict.passed and verdict.calls[0].arguments == '"<function=list_files>{}</function>"'

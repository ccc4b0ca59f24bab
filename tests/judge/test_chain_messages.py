"""In a chain, each scripted result goes back for the model's call the judge paired with it."""

from __future__ import annotations

import json

from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion
from lobrec.core.suite.format import CallStep, Eq, ExpectedCall, Message
from lobrec.running.runner import _next_messages

STEP = CallStep(
    calls=[
        ExpectedCall(
            name="read_file", checks=[Eq(arg="path", value="a.py")], answer={"path": "a.py"}, result="AAA"
        ),
        ExpectedCall(
            name="read_file", checks=[Eq(arg="path", value="b.py")], answer={"path": "b.py"}, result="BBB"
        ),
    ]
)


def test_results_follow_the_pairing_not_the_order_of_expected_calls() -> None:
    calls = [
        {
            "id": "call_x",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "b.py"}'},
        },
        {
            "id": "call_y",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
        },
    ]
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": calls}}]})
    reply = parse_completion(body.encode())
    verdict = judge_step(STEP, reply, [], 0)
    assert verdict.pairing == [1, 0]

    history = _next_messages([Message(role="user", content="read both")], STEP, reply, verdict)
    assistant, first, second = history[1:]
    assert assistant == {"role": "assistant", "content": None, "tool_calls": calls}
    assert (first.tool_call_id, first.content) == ("call_x", "BBB")
    assert (second.tool_call_id, second.content) == ("call_y", "AAA")


def test_the_next_request_echoes_the_whole_message_and_ids_agree() -> None:
    """DeepSeek answers 400 to a tool turn without its reasoning_content; Gemini sends id ""."""
    calls = [
        {"id": "", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}},
        {"type": "function", "function": {"name": "read_file", "arguments": '{"path": "b.py"}'}},
    ]
    message = {
        "role": "assistant",
        "content": "Reading both.",
        "reasoning_content": "The user wants two files.",
        "tool_calls": calls,
    }
    reply = parse_completion(json.dumps({"choices": [{"message": message}]}).encode())
    verdict = judge_step(STEP, reply, [], 0)
    history = _next_messages([Message(role="user", content="read both")], STEP, reply, verdict)
    assistant, first, second = history[1:]
    assert isinstance(assistant, dict)
    assert assistant["reasoning_content"] == "The user wants two files."
    assert assistant["content"] == "Reading both."
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_0", "call_1"]
    assert (first.tool_call_id, first.content) == ("call_0", "AAA")
    assert (second.tool_call_id, second.content) == ("call_1", "BBB")
    assert [call["function"] for call in assistant["tool_calls"]] == [call["function"] for call in calls]

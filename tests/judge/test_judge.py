"""The judge on well-formed and malformed replies: it never raises, and says why a step failed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion
from lobrec.core.suite.format import CallStep, Contains, Eq, ExpectedCall, FunctionSpec, NoCallStep, Tool

READ = Tool(
    type="function",
    function=FunctionSpec(
        name="read_file",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}, "start_line": {"type": "integer", "minimum": 1}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
)
SEND = Tool(
    type="function",
    function=FunctionSpec(
        name="send_slack",
        parameters={
            "type": "object",
            "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
            "required": ["channel", "text"],
            "additionalProperties": False,
        },
    ),
)
OFFERED = [READ, SEND]

ONE_READ = CallStep(
    calls=[
        ExpectedCall(
            name="read_file", checks=[Eq(arg="path", value="src/app.py")], answer={"path": "src/app.py"}
        )
    ]
)
TWO_READS = CallStep(
    calls=[
        ExpectedCall(name="read_file", checks=[Eq(arg="path", value="a.py")], answer={"path": "a.py"}),
        ExpectedCall(name="read_file", checks=[Contains(arg="path", value=".py")], answer={"path": "b.py"}),
    ]
)
NO_CALL = NoCallStep(answer="Hello!")


def completion(message: dict[str, Any]) -> bytes:
    return json.dumps(
        {"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", **message}}]}
    ).encode()


def calls(*pairs: tuple[Any, Any]) -> dict[str, Any]:
    return {
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(pairs)
        ],
    }


def reasons(step: Any, message: dict[str, Any]) -> tuple[bool, list[str]]:
    verdict = judge_step(step, parse_completion(completion(message)), OFFERED, 0)
    return verdict.passed, [f"{m.path}: {m.reason}" for m in verdict.mismatches]


# (step, message, passed, reasons)
TABLE: list[tuple[Any, dict[str, Any], bool, list[str]]] = [
    (ONE_READ, calls(("read_file", '{"path": "src/app.py"}')), True, []),
    (ONE_READ, calls(("read_file", '{"path": "src/app.py", "start_line": 3}')), True, []),
    (
        ONE_READ,
        calls(("read_file", '{"path": "src/main.py"}')),
        False,
        ["calls[0].arguments.path: read_file: path: not equal"],
    ),
    (ONE_READ, {"content": "I would read it."}, False, ["names: expected a call to read_file, not made"]),
    (
        ONE_READ,
        {"content": "x", "tool_calls": None},
        False,
        ["names: expected a call to read_file, not made"],
    ),
    (ONE_READ, {"content": "x", "tool_calls": []}, False, ["names: expected a call to read_file, not made"]),
    (ONE_READ, {"tool_calls": "read_file"}, False, ["tool_calls: tool_calls is str, not a list"]),
    (
        ONE_READ,
        {"tool_calls": [42]},
        False,
        [
            "names: expected a call to read_file, not made",
            "names: unexpected call to <no name>",
            "calls[0].arguments: tool call 0 is not an object",
        ],
    ),
    (
        ONE_READ,
        calls((None, '{"path": "src/app.py"}')),
        False,
        [
            "names: expected a call to read_file, not made",
            "names: unexpected call to <no name>",
        ],
    ),
    (
        ONE_READ,
        calls(("read_file", {"path": "src/app.py"})),
        True,
        [],
    ),
    (
        ONE_READ,
        calls(("read_file", ["src/app.py"])),
        False,
        ["calls[0].arguments: arguments of read_file are list, not a string or an object"],
    ),
    (
        ONE_READ,
        calls(("read_file", '{"path": "x", "path": "src/app.py"}')),
        False,
        [
            "calls[0].arguments: arguments of read_file are not a JSON object: "
            "the key 'path' appears more than once"
        ],
    ),
    (
        ONE_READ,
        calls(("read_file", '{"path": "src/app.py"')),
        False,
        ["calls[0].arguments: arguments of read_file are not valid JSON"],
    ),
    (
        ONE_READ,
        calls(("read_file", '["src/app.py"]')),
        False,
        ["calls[0].arguments: arguments of read_file are JSON but not an object"],
    ),
    (
        ONE_READ,
        calls(("read_file", '{"path": NaN}')),
        False,
        ["calls[0].arguments: arguments of read_file are not valid JSON"],
    ),
    (
        ONE_READ,
        calls(("read_file", '{"path": "src/app.py"}'), ("read_file", '{"path": "src/app.py"}')),
        False,
        [
            "names: unexpected call to read_file",
        ],
    ),
    (
        ONE_READ,
        calls(("read_flie", '{"path": "src/app.py"}')),
        False,
        [
            "names: expected a call to read_file, not made",
            "names: unexpected call to read_flie",
        ],
    ),
    # content and calls both present: judged on the calls
    (
        ONE_READ,
        {
            "content": "Reading it now.",
            **{k: v for k, v in calls(("read_file", '{"path": "src/app.py"}')).items() if k != "content"},
        },
        True,
        [],
    ),
    # one-to-one matching: call 0 fits both expected calls, call 1 only the second; greedy would fail
    (TWO_READS, calls(("read_file", '{"path": "a.py"}'), ("read_file", '{"path": "b.py"}')), True, []),
    (TWO_READS, calls(("read_file", '{"path": "b.py"}'), ("read_file", '{"path": "a.py"}')), True, []),
    (
        TWO_READS,
        calls(("read_file", '{"path": "b.py"}'), ("read_file", '{"path": "c.py"}')),
        False,
        [
            "calls[0].arguments.path: read_file: path: not equal",
        ],
    ),
    (
        TWO_READS,
        calls(("read_file", '{"path": "a.py"}')),
        False,
        ["names: expected a call to read_file, not made"],
    ),
    (NO_CALL, {"content": "Hi there!"}, True, []),
    (NO_CALL, {"content": None, "tool_calls": []}, True, []),
    (
        NO_CALL,
        calls(("send_slack", '{"channel": "#x", "text": "hi"}')),
        False,
        ["tool_calls: called send_slack when no call was needed"],
    ),
    (NO_CALL, {"tool_calls": {"oops": 1}}, False, ["tool_calls: called <no name> when no call was needed"]),
]


@pytest.mark.parametrize(("step", "message", "passed", "expected"), TABLE)
def test_judge_table(step: Any, message: dict[str, Any], passed: bool, expected: list[str]) -> None:
    assert reasons(step, message) == (passed, expected)


def test_pairing_maps_expected_to_observed_calls() -> None:
    reply = parse_completion(
        completion(calls(("read_file", '{"path": "b.py"}'), ("read_file", '{"path": "a.py"}')))
    )
    verdict = judge_step(TWO_READS, reply, OFFERED, 0)
    assert verdict.pairing == [1, 0]


def test_call_records_feed_the_metrics() -> None:
    reply = parse_completion(
        completion(
            calls(
                ("read_file", '{"path": "a.py", "extra": 1}'),
                ("delete_repo", "{}"),
                ("send_slack", "{not json"),
            )
        )
    )
    records = judge_step(ONE_READ, reply, OFFERED, 0).calls
    summary = [(r.name, r.offered, r.schema_valid, r.schema_errors) for r in records]
    assert summary == [
        ("read_file", True, False, ['$: unexpected property "extra"']),
        ("delete_repo", False, None, []),
        ("send_slack", True, False, ["arguments of send_slack are not valid JSON"]),
    ]


def test_names_match_is_the_multiset_rule() -> None:
    reply = parse_completion(completion(calls(("read_file", '{"path": "zzz"}'))))
    verdict = judge_step(ONE_READ, reply, OFFERED, 0)
    assert (verdict.passed, verdict.names_match) == (False, True)

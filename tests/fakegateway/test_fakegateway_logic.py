"""The fake gateway's brain, without sockets: which case a request is, what each model answers,
which fault the n-th request gets, and the CLI's refusals."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
import typer
from typer.testing import CliRunner

from lobrec.cli._command import Command
from lobrec.cli.fake import fake_gateway_command
from lobrec.core.judge.wire import assistant_message, parse_completion, request_body, tool_message
from lobrec.core.suite.format import (
    CallStep,
    Case,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Suite,
    Tool,
)
from lobrec.errors import ConfigError
from lobrec.fakegateway import MODELS, FakeGateway, FaultRule, answer, is_loopback, locate
from lobrec.fakegateway.completions import (
    FakeReply,
    Turn,
    error_reply,
    parse_request,
    price,
    status_fault_reply,
)
from lobrec.fakegateway.faults import FaultAction, FaultBook, decode_fault_rules, planned_status
from lobrec.fakegateway.models import (
    AUTO_CHOICES,
    NO_MORE_STEPS,
    SILENT_REPLY,
    SLOPPY_BEHAVIOURS,
    UNKNOWN_CASE,
    Location,
    break_schema,
    oracle_turn,
    sloppy_plan,
    sloppy_turn,
)

SYSTEM = "You work in /srv/app. Today is 2026-10-21 (UTC)."


def _tool(name: str, properties: dict[str, Any]) -> Tool:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return Tool(type="function", function=FunctionSpec(name=name, parameters=parameters))


def _case(case_id: str, tools: list[str], text: str, steps: list[CallStep | NoCallStep]) -> Case:
    group = "no_call" if isinstance(steps[0], NoCallStep) else "selection"
    return Case(
        id=case_id, group=group, tools=tools, messages=[Message(role="user", content=text)], steps=steps
    )


SUITE = Suite(
    name="unit",
    version="1.0.0",
    system_prompt=SYSTEM,
    tools=[
        _tool("read_file", {"path": {"type": "string"}, "start_line": {"type": "integer"}}),
        _tool("search_code", {"query": {"type": "string"}}),
        _tool("send_slack", {"channel": {"type": "string"}, "text": {"type": "string"}}),
    ],
    cases=[
        _case(
            "one",
            ["search_code", "read_file"],
            "Show README.md from line 3.",
            [CallStep(calls=[ExpectedCall(name="read_file", answer={"path": "README.md", "start_line": 3})])],
        ),
        _case(
            "pair",
            ["read_file", "search_code"],
            "Open a.txt and b.txt.",
            [
                CallStep(
                    calls=[
                        ExpectedCall(name="read_file", answer={"path": "a.txt"}),
                        ExpectedCall(name="read_file", answer={"path": "b.txt"}),
                    ]
                )
            ],
        ),
        _case(
            "chain",
            ["search_code", "read_file", "send_slack"],
            "Find parse_config, read its file, tell #dev.",
            [
                CallStep(
                    calls=[
                        ExpectedCall(name="search_code", answer={"query": "parse_config"}, result="x.py:1")
                    ]
                ),
                CallStep(
                    calls=[ExpectedCall(name="read_file", answer={"path": "x.py"}, result="def parse_config")]
                ),
                CallStep(
                    calls=[ExpectedCall(name="send_slack", answer={"channel": "#dev", "text": "x.py ✓"})]
                ),
            ],
        ),
        _case("hello", ["send_slack"], "Hi!", [NoCallStep(answer="Hello!")]),
        _case("bare", ["read_file"], "Thanks.", [NoCallStep()]),
    ],
)
CASE = {case.id: case for case in SUITE.cases}


def _history(case: Case, step: int) -> list[dict[str, Any]]:
    """The runner's chain: the oracle's own calls for each earlier step, then the scripted results."""
    history: list[dict[str, Any]] = []
    for index in range(step):
        reply = parse_completion(answer(SUITE, _body("fixture/oracle", case, history)).body)
        history.append(assistant_message(reply))
        step_calls = case.steps[index].calls  # type: ignore[union-attr]
        for call, expected in zip(reply.calls, step_calls, strict=True):
            history.append(msgspec.to_builtins(tool_message(call, expected.result or "")))
    return history


def _body(model: str, case: Case, history: list[dict[str, Any]] | None = None) -> bytes:
    messages: list[Any] = [Message(role="system", content=SYSTEM), *case.messages, *(history or [])]
    return request_body(model, messages, SUITE.offered_tools(case))


def _request(model: str, case_id: str, step: int = 0) -> bytes:
    case = CASE[case_id]
    return _body(model, case, _history(case, step))


def _calls(*pairs: tuple[str, str], step: int = 0) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{step}_{i}", "type": "function", "function": {"name": name, "arguments": text}}
        for i, (name, text) in enumerate(pairs)
    ]


# --- a whole response ---------------------------------------------------------------------------


def test_oracle_answers_a_call_step_with_a_whole_chat_completion() -> None:
    body = _request("fixture/oracle", "one")
    reply = answer(SUITE, body)
    assert reply.status == 200
    assert reply.headers == {"content-type": "application/json", "x-lobstack-cost-usd": "0.0001345"}
    assert json.loads(reply.body) == {
        "id": "chatcmpl-bd6659a8fc436126de235343",
        "object": "chat.completion",
        "created": 1792540800,
        "model": "fixture/oracle",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_0_0",
                            "type": "function",
                            "function": {
                                "name": "read_file",
                                "arguments": '{"path": "README.md", "start_line": 3}',
                            },
                        }
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 134, "completion_tokens": 45, "total_tokens": 179},
    }
    assert len(body) == 535


def test_the_same_request_gets_the_same_bytes_and_another_model_another_id() -> None:
    body = _request("fixture/oracle", "pair")
    assert answer(SUITE, body) == answer(SUITE, body)
    first = json.loads(answer(SUITE, body).body)["id"]
    second = json.loads(answer(SUITE, body, model="fixture/unpriced").body)["id"]
    assert first != second


# --- every model, table-driven --------------------------------------------------------------------

ORACLE_ONE = {
    "role": "assistant",
    "content": None,
    "tool_calls": _calls(("read_file", '{"path": "README.md", "start_line": 3}')),
}
ORACLE_PAIR = {
    "role": "assistant",
    "content": None,
    "tool_calls": _calls(("read_file", '{"path": "a.txt"}'), ("read_file", '{"path": "b.txt"}')),
}

MODEL_ROWS: list[tuple[str, str, int, dict[str, Any], str]] = [
    # model, case, step, the whole message, the response's model field
    ("fixture/oracle", "one", 0, ORACLE_ONE, "fixture/oracle"),
    ("fixture/oracle", "pair", 0, ORACLE_PAIR, "fixture/oracle"),
    (
        "fixture/oracle",
        "chain",
        0,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": _calls(("search_code", '{"query": "parse_config"}')),
        },
        "fixture/oracle",
    ),
    (
        "fixture/oracle",
        "chain",
        1,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": _calls(("read_file", '{"path": "x.py"}'), step=1),
        },
        "fixture/oracle",
    ),
    (
        "fixture/oracle",
        "chain",
        2,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": _calls(("send_slack", '{"channel": "#dev", "text": "x.py ✓"}'), step=2),
        },
        "fixture/oracle",
    ),
    ("fixture/oracle", "chain", 3, {"role": "assistant", "content": NO_MORE_STEPS}, "fixture/oracle"),
    ("fixture/oracle", "hello", 0, {"role": "assistant", "content": "Hello!"}, "fixture/oracle"),
    ("fixture/oracle", "bare", 0, {"role": "assistant", "content": "Done."}, "fixture/oracle"),
    ("fixture/silent", "one", 0, {"role": "assistant", "content": SILENT_REPLY}, "fixture/silent"),
    ("fixture/silent", "hello", 0, {"role": "assistant", "content": SILENT_REPLY}, "fixture/silent"),
    (
        "fixture/eager",
        "one",
        0,
        {"role": "assistant", "content": None, "tool_calls": _calls(("search_code", "{}"))},
        "fixture/eager",
    ),
    (
        "fixture/eager",
        "hello",
        0,
        {"role": "assistant", "content": None, "tool_calls": _calls(("send_slack", "{}"))},
        "fixture/eager",
    ),
    ("fixture/no-temperature", "one", 0, ORACLE_ONE, "fixture/no-temperature"),
    ("fixture/unpriced", "pair", 0, ORACLE_PAIR, "fixture/unpriced"),
    ("auto", "one", 0, ORACLE_ONE, "fake/alpha"),
    ("auto", "pair", 0, ORACLE_PAIR, "fake/beta"),
    ("auto", "hello", 0, {"role": "assistant", "content": "Hello!"}, "fake/alpha"),
]


@pytest.mark.parametrize(("model", "case_id", "step", "message", "served"), MODEL_ROWS)
def test_each_model_answers_the_step(
    model: str, case_id: str, step: int, message: dict[str, Any], served: str
) -> None:
    body = _request(model, case_id, step)
    reply = answer(SUITE, body)
    completion = json.loads(reply.body)
    usage = completion["usage"]
    expected_headers = {"content-type": "application/json"}
    if model != "fixture/unpriced":
        expected_headers["x-lobstack-cost-usd"] = price(usage["prompt_tokens"], usage["completion_tokens"])
    if model == "fixture/no-temperature":
        expected_headers["x-lobstack-dropped-params"] = "temperature"
    assert (reply.status, reply.headers) == (200, expected_headers)
    assert completion["model"] == served
    assert completion["choices"] == [
        {
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
        }
    ]
    assert usage["prompt_tokens"] == -(-len(body) // 4)


def test_auto_routes_to_both_fake_models_across_cases() -> None:
    served = {json.loads(answer(SUITE, _request("auto", case.id)).body)["model"] for case in SUITE.cases}
    assert served == set(AUTO_CHOICES)


def test_no_temperature_says_nothing_when_no_temperature_was_sent() -> None:
    body = json.dumps({"model": "fixture/no-temperature", "messages": [{"role": "user", "content": "Hi!"}]})
    assert "x-lobstack-dropped-params" not in answer(SUITE, body.encode()).headers


def test_eager_without_tools_answers_in_text() -> None:
    body = json.dumps({"model": "fixture/eager", "messages": [{"role": "user", "content": "Hi!"}]}).encode()
    message = json.loads(answer(SUITE, body).body)["choices"][0]["message"]
    assert message == {"role": "assistant", "content": "No tools were offered."}


@pytest.mark.parametrize(("model", "served"), [("fixture/oracle", "fixture/oracle"), ("auto", "fake/alpha")])
def test_an_unknown_request_gets_i_dont_know(model: str, served: str) -> None:
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "Something else."}]}).encode()
    completion = json.loads(answer(SUITE, body).body)
    assert (completion["model"], completion["choices"][0]["message"]) == (
        served,
        {"role": "assistant", "content": UNKNOWN_CASE},
    )


def test_an_unknown_model_is_404_model_not_found() -> None:
    reply = answer(SUITE, _request("gpt-imaginary", "one"))
    assert reply == FakeReply(
        status=404,
        headers={"content-type": "application/json"},
        body=b'{"error":{"message":"The model `gpt-imaginary` does not exist. Known models: fixture/oracle, '
        b"fixture/silent, fixture/eager, fixture/sloppy, fixture/no-temperature, fixture/unpriced, "
        b'fixture/plausible, fixture/flaky, auto, fake/alpha, fake/beta.",'
        b'"type":"invalid_request_error","code":"model_not_found"}}',
    )


# --- request validation ---------------------------------------------------------------------------

BAD_REQUESTS = [
    (b"{not json", "The request body is not valid JSON."),
    (b"[]", "The request body must be a JSON object."),
    (b'{"messages": [{"role": "user"}]}', "`model` is required and must be a non-empty string."),
    (b'{"model": "auto"}', "`messages` is required and must be a non-empty array."),
    (b'{"model": "auto", "messages": []}', "`messages` is required and must be a non-empty array."),
    (b'{"model": "auto", "messages": ["hi"]}', "`messages[0]` must be an object with a string `role`."),
    (b'{"model": "auto", "messages": [{"role": "user"}], "tools": {}}', "`tools` must be an array."),
    (
        b'{"model": "auto", "messages": [{"role": "user"}], "tools": [{"type": "function"}]}',
        "`tools[0].function.name` is required and must be a string.",
    ),
    (
        b'{"model": "auto", "messages": [{"role": "user"}], "stream": true}',
        "Streaming is not supported by the fake gateway.",
    ),
]


@pytest.mark.parametrize(("body", "message"), BAD_REQUESTS)
def test_invalid_requests_get_400_in_the_gateway_error_shape(body: bytes, message: str) -> None:
    expected = {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_request"}}
    reply = answer(SUITE, body)
    assert (reply.status, reply.headers, json.loads(reply.body)) == (
        400,
        {"content-type": "application/json"},
        expected,
    )
    assert parse_request(body) == reply


# --- locating the case and step -------------------------------------------------------------------


def _located(messages: list[dict[str, Any]]) -> tuple[str, int] | None:
    location = locate(SUITE, messages)
    return None if location is None else (location.case.id, location.step)


def test_locate_with_and_without_the_system_prompt() -> None:
    user = {"role": "user", "content": "Open a.txt and b.txt."}
    assert _located([{"role": "system", "content": SYSTEM}, user]) == ("pair", 0)
    assert _located([{"role": "system", "content": "another prompt"}, user]) == ("pair", 0)
    assert _located([user]) == ("pair", 0)
    assert _located([{"role": "user", "content": "Open a.txt and b.txt!"}]) is None
    assert _located([{"role": "assistant", "content": "Open a.txt and b.txt."}]) is None


def test_locate_counts_assistant_turns_after_the_case_messages() -> None:
    case = CASE["chain"]
    for step in range(3):
        messages = json.loads(_body("fixture/oracle", case, _history(case, step)))["messages"]
        assert _located(messages) == ("chain", step)


# --- sloppy ---------------------------------------------------------------------------------------

SLOPPY_ROWS: list[tuple[str, int, str, Turn]] = [
    # case, step, behaviour, the whole turn
    ("one", 0, "correct", Turn(calls=[("read_file", '{"path": "README.md", "start_line": 3}')])),
    ("one", 0, "wrong_tool", Turn(calls=[("search_code", '{"path": "README.md", "start_line": 3}')])),
    ("one", 0, "made_up_name", Turn(calls=[("read_file_v2", '{"path": "README.md", "start_line": 3}')])),
    ("one", 0, "not_json", Turn(calls=[("read_file", '{"path": "README.md')])),
    ("one", 0, "schema_break", Turn(calls=[("read_file", '{"path": 12345, "start_line": 3}')])),
    ("one", 0, "parallel_split", Turn(calls=[("read_file", '{"path": "README.md", "start_line": 3}')])),
    ("one", 0, "needless_call", Turn(calls=[("read_file", '{"path": "README.md", "start_line": 3}')])),
    ("pair", 0, "parallel_split", Turn(calls=[("read_file", '{"path": "a.txt"}')])),
    (
        "pair",
        0,
        "wrong_tool",
        Turn(calls=[("search_code", '{"path": "a.txt"}'), ("read_file", '{"path": "b.txt"}')]),
    ),
    ("pair", 0, "not_json", Turn(calls=[("read_file", '{"path":'), ("read_file", '{"path": "b.txt"}')])),
    ("chain", 2, "not_json", Turn(calls=[("send_slack", '{"channel": "#dev"')])),
    ("chain", 2, "wrong_tool", Turn(calls=[("search_code", '{"channel": "#dev", "text": "x.py ✓"}')])),
    ("hello", 0, "correct", Turn(content="Hello!")),
    ("hello", 0, "needless_call", Turn(calls=[("send_slack", "{}")])),
    ("hello", 0, "wrong_tool", Turn(calls=[("send_slack", "{}")])),
    ("chain", 3, "not_json", Turn(content=NO_MORE_STEPS)),
]


@pytest.mark.parametrize(("case_id", "step", "behaviour", "turn"), SLOPPY_ROWS)
def test_sloppy_mistakes(case_id: str, step: int, behaviour: Any, turn: Turn) -> None:
    case = CASE[case_id]
    assert sloppy_turn(SUITE, Location(case=case, step=step), case.tools, behaviour) == turn


def test_sloppy_wrong_tool_without_another_offered_tool_makes_a_name_up() -> None:
    location = Location(case=CASE["one"], step=0)
    assert sloppy_turn(SUITE, location, ["read_file"], "wrong_tool") == Turn(
        calls=[("read_file_v2", '{"path": "README.md", "start_line": 3}')]
    )
    assert sloppy_turn(SUITE, location, ["read_file", "read_file_v2"], "made_up_name") == Turn(
        calls=[("read_file_v2_v2", '{"path": "README.md", "start_line": 3}')]
    )


def test_sloppy_needless_call_with_no_tool_offered_makes_a_name_up() -> None:
    location = Location(case=CASE["hello"], step=0)
    assert sloppy_turn(SUITE, location, [], "needless_call") == Turn(calls=[("lookup", "{}")])


def test_sloppy_plan_for_the_unit_suite() -> None:
    assert {case.id: sloppy_plan(case) for case in SUITE.cases} == {
        "one": ("parallel_split", 0),
        "pair": ("wrong_tool", 0),
        "chain": ("parallel_split", 2),
        "hello": ("correct", 0),
        "bare": ("not_json", 0),
    }


def test_sloppy_keeps_about_half_the_cases_correct() -> None:
    cases = [_case(f"case-{i:03}", ["read_file"], "x", [NoCallStep()]) for i in range(400)]
    behaviours = [sloppy_plan(case)[0] for case in cases]
    assert set(behaviours) == set(SLOPPY_BEHAVIOURS)
    assert 0.3 <= behaviours.count("correct") / len(behaviours) <= 0.5


@pytest.mark.parametrize("case_id", list(CASE))
def test_sloppy_answers_its_plan_at_the_strike_step_and_the_oracle_elsewhere(case_id: str) -> None:
    case = CASE[case_id]
    behaviour, strike = sloppy_plan(case)
    for step in range(len(case.steps)):
        location = Location(case=case, step=step)
        expected = (
            sloppy_turn(SUITE, location, case.tools, behaviour) if step == strike else oracle_turn(location)
        )
        message = json.loads(answer(SUITE, _request("fixture/sloppy", case_id, step)).body)["choices"][0][
            "message"
        ]
        got = Turn(
            content=message["content"],
            calls=[
                (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])
            ],
        )
        assert got == expected


BREAK_ROWS: list[tuple[dict[str, Any], dict[str, Any], str]] = [
    ({"path": "a"}, {"properties": {"path": {"type": "string"}}}, '{"path": 12345}'),
    ({"n": 3}, {"properties": {"n": {"type": "integer"}}}, '{"n": "not-a-number"}'),
    ({"n": 3.5}, {"properties": {"n": {"type": "number"}}}, '{"n": "not-a-number"}'),
    ({"n": 1}, {"properties": {"n": {"type": ["integer", "string"]}}}, '{"n": true}'),
    ({"flag": True}, {"properties": {"flag": {"enum": [True, False]}}}, '{"flag": 12345}'),
    ({"tags": ["a"], "x": 1}, {}, '{"tags": 12345, "x": 1}'),
    ({}, {"properties": {"path": {"type": "string"}}}, "[]"),
]


@pytest.mark.parametrize(("arguments", "parameters", "broken"), BREAK_ROWS)
def test_break_schema(arguments: dict[str, Any], parameters: dict[str, Any], broken: str) -> None:
    assert break_schema(arguments, parameters) == broken


# --- fault rules ----------------------------------------------------------------------------------

Request = tuple[str | None, str | None, int | None]
FAULT_ROWS: list[tuple[str, list[dict[str, Any]], list[Request], list[str | None]]] = [
    (
        "a burst of two 429 then success",
        [{"case": "one", "faults": ["429", "429"]}],
        [("auto", "one", 0)] * 4,
        ["429", "429", None, None],
    ),
    ("503 forever", [{"faults": [], "then": "503"}], [("auto", "one", 0)] * 3, ["503", "503", "503"]),
    (
        "counted per model, case and step",
        [{"faults": ["500"]}],
        [
            ("auto", "one", 0),
            ("auto", "one", 0),
            ("auto", "one", 1),
            ("fixture/oracle", "one", 0),
            (None, None, None),
        ],
        ["500", None, "500", "500", "500"],
    ),
    (
        "only matching requests count",
        [{"model": "auto", "step": 1, "faults": ["reset", "truncate"], "then": "hang"}],
        [
            ("auto", "one", 0),
            ("auto", "one", 1),
            ("fixture/oracle", "one", 1),
            ("auto", "one", 1),
            ("auto", "one", 1),
        ],
        [None, "reset", None, "truncate", "hang"],
    ),
    (
        "the first matching rule wins",
        [{"case": "one", "faults": ["502"]}, {"faults": ["504", "504"]}],
        [("auto", "one", 0), ("auto", "one", 0), ("auto", "two", 0), ("auto", "two", 0), ("auto", "two", 0)],
        ["502", None, "504", "504", None],
    ),
    ("no rules", [], [("auto", "one", 0)], [None]),
]


@pytest.mark.parametrize(
    ("rules", "requests", "faults"), [row[1:] for row in FAULT_ROWS], ids=[r[0] for r in FAULT_ROWS]
)
def test_fault_book(rules: list[dict[str, Any]], requests: list[Request], faults: list[str | None]) -> None:
    book = FaultBook()
    book.add(decode_fault_rules(json.dumps({"rules": rules}).encode()))
    got = []
    for model, case, step in requests:
        action = book.take(model, case, step)
        got.append(None if action is None else action.fault)
    assert got == faults


def test_fault_book_clear_forgets_rules_and_counts() -> None:
    book = FaultBook()
    book.add([FaultRule(faults=["429"])])
    assert book.take("auto", "one", 0) == FaultAction(fault="429")
    book.clear()
    assert book.take("auto", "one", 0) is None
    book.add([FaultRule(faults=["hang"], hang_seconds=0.5, huge_bytes=10)])
    assert book.take("auto", "one", 0) == FaultAction(fault="hang", hang_seconds=0.5, huge_bytes=10)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b'{"rules": [{"faults": ["418"]}]}',
            "fault rules: Invalid enum value '418' - at `$.rules[0].faults[0]`",
        ),
        (
            b'{"rules": [{"cases": "one"}]}',
            "fault rules: Object contains unknown field `cases` - at `$.rules[0]`",
        ),
        (
            b'{"rules": [{"faults": [429]}]}',
            "fault rules: Expected `str`, got `int` - at `$.rules[0].faults[0]`",
        ),
        (
            b'{"rules": [{"hang_seconds": -1}]}',
            "fault rules: Expected `float` >= 0.0 - at `$.rules[0].hang_seconds`",
        ),
        (b"{}", "fault rules: Object missing required field `rules`"),
        (b"{", "fault rules: not valid JSON: Input data was truncated"),
    ],
)
def test_bad_fault_rules_name_the_json_path(body: bytes, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        decode_fault_rules(body)
    assert str(caught.value) == message


OK = FakeReply(status=200, headers={}, body=b"")
NOT_FOUND = FakeReply(status=404, headers={}, body=b"")


@pytest.mark.parametrize(
    ("fault", "reply", "status"),
    [
        (None, OK, 200),
        (None, NOT_FOUND, 404),
        ("hang", OK, 200),
        ("truncate", NOT_FOUND, 404),
        ("reset", OK, None),
        ("429", OK, 429),
        ("400", OK, 400),
        ("not_json", OK, 200),
        ("not_completion", OK, 200),
        ("huge", OK, 200),
    ],
)
def test_planned_status(fault: Any, reply: FakeReply, status: int | None) -> None:
    action = None if fault is None else FaultAction(fault=fault)
    assert planned_status(action, reply) == status


@pytest.mark.parametrize(
    ("status", "body", "extra"),
    [
        (
            400,
            '{"error":{"message":"The request was rejected. (injected fault)","type":"invalid_request_error",'
            '"code":"bad_request"}}',
            {},
        ),
        (
            429,
            '{"error":{"message":"Rate limit reached; retry after 1 second. (injected fault)",'
            '"type":"rate_limit_error","code":"rate_limit_exceeded"}}',
            {"retry-after": "1"},
        ),
        (
            500,
            '{"error":{"message":"The gateway failed to process the request. (injected fault)",'
            '"type":"server_error","code":"internal_error"}}',
            {},
        ),
        (
            502,
            '{"error":{"message":"The upstream provider returned an invalid response. (injected fault)",'
            '"type":"upstream_error","code":"bad_gateway"}}',
            {},
        ),
        (
            503,
            '{"error":{"message":"The gateway is overloaded; try again later. (injected fault)",'
            '"type":"server_error","code":"service_unavailable"}}',
            {},
        ),
        (
            504,
            '{"error":{"message":"The upstream provider did not answer in time. (injected fault)",'
            '"type":"upstream_error","code":"upstream_timeout"}}',
            {},
        ),
    ],
)
def test_status_faults_use_the_gateway_error_shape(status: int, body: str, extra: dict[str, str]) -> None:
    assert status_fault_reply(status) == FakeReply(
        status=status, headers={"content-type": "application/json", **extra}, body=body.encode()
    )


def test_error_reply_allows_a_null_code() -> None:
    assert error_reply(418, "teapot", "invalid_request_error", None).body == (
        b'{"error":{"message":"teapot","type":"invalid_request_error","code":null}}'
    )


@pytest.mark.parametrize(
    ("prompt", "completion", "cost"),
    [(1, 1, "0.000002"), (153, 72, "0.0001845"), (2000, 0, "0.001"), (2_000_000, 0, "1")],
)
def test_price_is_a_plain_decimal(prompt: int, completion: int, cost: str) -> None:
    assert price(prompt, completion) == cost


# --- hosts and the CLI's refusals -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("::", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_fake_gateway_refuses_a_remote_host_before_binding() -> None:
    with pytest.raises(ConfigError) as caught:
        FakeGateway(SUITE, host="0.0.0.0")
    assert str(caught.value) == (
        "refusing to listen on 0.0.0.0, which is not a loopback address; "
        "pass --allow-remote to serve other machines"
    )


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("fake-gateway", cls=Command)(fake_gateway_command)
    return app


def test_cli_refuses_a_remote_host_without_allow_remote() -> None:
    result = CliRunner().invoke(_cli(), ["--host", "0.0.0.0", "--suite", "does-not-matter.json"])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "lobrec: refusing to listen on 0.0.0.0, which is not a loopback address; "
        "pass --allow-remote to serve other machines\n",
    )


def test_cli_reports_an_unreadable_suite(tmp_path: Any) -> None:
    path = tmp_path / "missing.json"
    result = CliRunner().invoke(_cli(), ["--suite", str(path)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"lobrec: {path}: cannot read the suite file: No such file or directory\n",
    )


def test_every_model_is_listed() -> None:
    assert MODELS == (
        "fixture/oracle",
        "fixture/silent",
        "fixture/eager",
        "fixture/sloppy",
        "fixture/no-temperature",
        "fixture/unpriced",
        "fixture/plausible",
        "fixture/flaky",
        "auto",
        "fake/alpha",
        "fake/beta",
    )


def test_auto_answers_as_the_model_it_picks_and_the_candidates_miss_different_cases() -> None:
    from pathlib import Path

    from lobrec.fakegateway.models import auto_choice, routed_misses
    from lobrec.suite_file import load_suite

    real = load_suite(Path(__file__).resolve().parents[2] / "suite" / "suite.json")
    alpha = {case.id for case in real.cases if routed_misses("fake/alpha", case.id)}
    beta = {case.id for case in real.cases if routed_misses("fake/beta", case.id)}
    assert alpha and beta and alpha != beta and not routed_misses("fixture/oracle", "sel-01")
    for case_id in CASE:
        auto = json.loads(answer(SUITE, _request("auto", case_id)).body)
        pick = auto_choice(case_id)
        direct = json.loads(answer(SUITE, _request(pick, case_id)).body)
        assert auto["model"] == direct["model"] == pick
        assert auto["choices"] == direct["choices"]

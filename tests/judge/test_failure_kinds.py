"""Failure kinds: each kind pinned on a hand-built verdict, precedence, and through the judge."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lobrec.core.judge.failures import FAILURE_KINDS, StepFailure, annotate_case, broke_at, classify_step
from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion
from lobrec.core.metrics.results import CallRecord, CaseResult, Mismatch, StepVerdict
from lobrec.core.suite.format import (
    CallStep,
    Case,
    Eq,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Regex,
    Tool,
)


def call(name: str | None, arguments: str | None = "{}", *, offered: bool = True) -> CallRecord:
    return CallRecord(name=name, arguments=arguments, offered=offered, schema_valid=True if offered else None)


def verdict(
    expected: list[str],
    calls: list[CallRecord],
    mismatches: list[Mismatch] | None = None,
    *,
    expects: str = "call",
    passed: bool = False,
) -> StepVerdict:
    return StepVerdict(
        index=0,
        expects=expects,  # type: ignore[arg-type]
        passed=passed,
        names_match=sorted(expected) == sorted(str(c.name) for c in calls),
        expected_names=expected,
        calls=calls,
        mismatches=mismatches
        if mismatches is not None
        else [Mismatch(path="x", expected=1, got=2, reason="r")],
    )


WITHHELD = Mismatch(path="message", expected="a reply", got=None, reason="content filter")
NOT_A_LIST = Mismatch(
    path="tool_calls", expected="a list of tool calls", got=None, reason="tool_calls is dict"
)


def unparsed(index: int) -> Mismatch:
    return Mismatch(
        path=f"calls[{index}].arguments", expected="a JSON object", got="x", reason="did not parse"
    )


DATE_CHECK = Mismatch(
    path="calls[0].arguments.date",
    expected="matches /^2024-/i",
    got="2023-01-01",
    reason="book: date: does not match",
    check="regex",
    argument="date",
)

# (label, verdict, later steps' tools, expected failure)
TABLE: list[tuple[str, StepVerdict, set[str], StepFailure | None]] = [
    ("passed", verdict(["read"], [call("read")], [], passed=True), set(), None),
    ("withheld", verdict(["read"], [], [WITHHELD]), set(), StepFailure(kind="reply_withheld")),
    (
        "call where none was needed",
        verdict([], [call("read")], expects="no_call"),
        set(),
        StepFailure(kind="call_not_needed"),
    ),
    (
        "tool_calls not a list",
        verdict(["read"], [call(None, None, offered=False)], [NOT_A_LIST]),
        set(),
        StepFailure(kind="malformed_tool_calls"),
    ),
    (
        "nameless call",
        verdict(["read"], [call(None, offered=False)]),
        set(),
        StepFailure(kind="malformed_tool_calls"),
    ),
    (
        "no call",
        verdict(["read"], [], [Mismatch(path="names", expected="read", got=None, reason="r")]),
        set(),
        StepFailure(kind="no_call"),
    ),
    (
        "made-up tool",
        verdict(["read"], [call("read_v2", offered=False)]),
        set(),
        StepFailure(kind="made_up_tool"),
    ),
    (
        "made-up beats extra",
        verdict(["read"], [call("read"), call("zzz", offered=False)]),
        set(),
        StepFailure(kind="made_up_tool"),
    ),
    (
        "later step's tool instead",
        verdict(["search"], [call("read")]),
        {"read"},
        StepFailure(kind="premature_chain_call"),
    ),
    (
        "later step's tool as well",
        verdict(["search"], [call("search"), call("read")]),
        {"read"},
        StepFailure(kind="premature_chain_call"),
    ),
    (
        "missing from a parallel set",
        verdict(["read", "read", "send"], [call("read"), call("send")]),
        set(),
        StepFailure(kind="missing_parallel_call"),
    ),
    ("extra call", verdict(["read"], [call("read"), call("read")]), set(), StepFailure(kind="extra_call")),
    (
        "extra call not in later steps",
        verdict(["search"], [call("search"), call("send")]),
        {"read"},
        StepFailure(kind="extra_call"),
    ),
    ("wrong but offered tool", verdict(["read"], [call("send")]), set(), StepFailure(kind="wrong_tool")),
    (
        "not JSON",
        verdict(["read"], [call("read", '{"path": ')], [unparsed(0)]),
        set(),
        StepFailure(kind="arguments_not_json"),
    ),
    (
        "JSON but not an object",
        verdict(["read"], [call("read", "[1, 2]")], [unparsed(0)]),
        set(),
        StepFailure(kind="arguments_not_object"),
    ),
    (
        "names before arguments",
        verdict(["read"], [call("send", "{")], [unparsed(0)]),
        set(),
        StepFailure(kind="wrong_tool"),
    ),
    (
        "argument check",
        verdict(["book"], [call("book", '{"date": "2023-01-01"}')], [DATE_CHECK]),
        set(),
        StepFailure(kind="argument_check", argument="date", check="regex"),
    ),
    (
        "argument check in a file from before `check`",
        verdict(
            ["book"],
            [call("book")],
            [Mismatch(path="calls[0].arguments.a.b", expected="= 1", got=2, reason="book: a.b: not equal")],
        ),
        set(),
        StepFailure(kind="argument_check", argument="a.b"),
    ),
    (
        "duplicate call",
        verdict(
            ["read", "read"],
            [call("read"), call("read")],
            [
                Mismatch(
                    path="calls[1]", expected="read", got="read", reason="its only match is already paired"
                )
            ],
        ),
        set(),
        StepFailure(kind="duplicate_call"),
    ),
    ("nothing explains it", verdict(["read"], [call("read")], []), set(), StepFailure(kind="other")),
    (
        "no-call step failed without calls",
        verdict([], [], expects="no_call"),
        set(),
        StepFailure(kind="other"),
    ),
]


@pytest.mark.parametrize(("label", "given", "later", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_each_kind_on_a_hand_built_verdict(
    label: str, given: StepVerdict, later: set[str], expected: StepFailure | None
) -> None:
    assert classify_step(given, later) == expected


def test_the_table_covers_every_kind() -> None:
    pinned = {row[3].kind for row in TABLE if row[3] is not None}
    assert pinned == set(FAILURE_KINDS)


# --- through the judge: the verdicts lobrec actually writes -------------------------------------

BOOK = Tool(
    type="function",
    function=FunctionSpec(
        name="book",
        parameters={"type": "object", "properties": {"date": {"type": "string"}, "room": {"type": "string"}}},
    ),
)
READ = Tool(type="function", function=FunctionSpec(name="read", parameters={"type": "object"}))
BOOK_STEP = CallStep(
    calls=[
        ExpectedCall(
            name="book",
            checks=[Eq(arg="room", value="A"), Regex(arg="date", pattern="^2024-")],
            answer={"room": "A", "date": "2024-05-01"},
        )
    ]
)


def reply(message: dict[str, Any]) -> Any:
    body = {"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", **message}}]}
    return parse_completion(json.dumps(body).encode())


def tool_call(name: str, arguments: str) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"content": "I booked it."}, StepFailure(kind="no_call")),
        ({"tool_calls": [tool_call("read", "{}")]}, StepFailure(kind="wrong_tool")),
        ({"tool_calls": [tool_call("book_room", "{}")]}, StepFailure(kind="made_up_tool")),
        ({"tool_calls": [tool_call("book", '{"room": "A"')]}, StepFailure(kind="arguments_not_json")),
        ({"tool_calls": [tool_call("book", '"room A"')]}, StepFailure(kind="arguments_not_object")),
        (
            {"tool_calls": [tool_call("book", '{"room": "A", "date": "2023-05-01"}')]},
            StepFailure(kind="argument_check", argument="date", check="regex"),
        ),
        (
            {
                "tool_calls": [
                    tool_call("book", '{"room": "A", "date": "2024-05-01"}'),
                    tool_call("book", "{}"),
                ]
            },
            StepFailure(kind="extra_call"),
        ),
    ],
)
def test_kinds_of_judged_replies(message: dict[str, Any], expected: StepFailure) -> None:
    judged = judge_step(BOOK_STEP, reply(message), [BOOK, READ], 0)
    assert classify_step(judged) == expected


def test_a_needless_call_through_the_judge() -> None:
    judged = judge_step(NoCallStep(answer="hi"), reply({"tool_calls": [tool_call("read", "{}")]}), [READ], 0)
    assert classify_step(judged) == StepFailure(kind="call_not_needed")


CHAIN = Case(
    id="chain-x",
    group="chains",
    tools=["book", "read"],
    messages=[Message(role="user", content="read then book")],
    steps=[CallStep(calls=[ExpectedCall(name="read", answer={})]), BOOK_STEP, NoCallStep(answer="done")],
)


def test_a_chain_that_calls_the_next_step_early_breaks_at_step_0() -> None:
    step0 = judge_step(CHAIN.steps[0], reply({"tool_calls": [tool_call("book", "{}")]}), [BOOK, READ], 0)
    result = CaseResult(id="chain-x", group="chains", status="scored", steps=[step0])
    annotated = annotate_case(CHAIN, result)
    assert annotated.broke_at == 0
    assert annotated.steps[0].failure_kind == "premature_chain_call"


def test_a_chain_that_breaks_later_names_that_step() -> None:
    step0 = judge_step(CHAIN.steps[0], reply({"tool_calls": [tool_call("read", "{}")]}), [BOOK, READ], 0)
    step1 = judge_step(
        CHAIN.steps[1], reply({"tool_calls": [tool_call("book", '{"room": "B"}')]}), [BOOK, READ], 1
    )
    result = CaseResult(id="chain-x", group="chains", status="scored", steps=[step0, step1])
    annotated = annotate_case(CHAIN, result)
    assert (annotated.broke_at, [s.failure_kind for s in annotated.steps]) == (1, [None, "argument_check"])
    assert (annotated.steps[1].failure_argument, annotated.steps[1].failure_check) == ("room", "eq")


def test_errored_cases_keep_their_reason_and_get_no_kind() -> None:
    step0 = judge_step(CHAIN.steps[0], reply({"content": "no"}), [BOOK, READ], 0)
    result = CaseResult(id="chain-x", group="chains", status="errored", reason="HTTP 503", steps=[step0])
    assert annotate_case(CHAIN, result) == result
    assert broke_at(CHAIN, result) is None


def test_arguments_nested_past_the_recursion_limit_are_classified_without_raising() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    given = verdict(["read"], [call("read", deep)], [unparsed(0)])
    assert classify_step(given) == StepFailure(kind="arguments_not_object")
    broken = verdict(["read"], [call("read", "{" + deep)], [unparsed(0)])
    assert classify_step(broken) == StepFailure(kind="arguments_not_json")

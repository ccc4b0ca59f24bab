"""The build check: each rule catches a broken suite, with one exact line naming where.

One small valid suite (one case per group) is mutated a rule at a time; each row of the table is a
mutation and the exact problem lines it must produce. The CLI is tested on the same suite written
to a temporary file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from lobrec.cli.suite import suite_app
from lobrec.core.suite.build_rules import check_suite, reference_reply, summary
from lobrec.core.suite.format import Suite, encode_suite

PROMPT = "You are a test assistant. Today is Wednesday, 2026-10-21; the time zone is UTC."
COUNTS = {"selection": 1, "arguments": 1, "near_misses": 1, "no_call": 1, "parallel": 1, "chains": 1}


def _tool(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return {
        "type": "function",
        "function": {"name": name, "description": f"The {name} tool.", "parameters": parameters},
    }


def _case(case_id: str, group: str, tools: list[str], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": case_id,
        "group": group,
        "note": f"What {case_id} tests.",
        "tools": tools,
        "messages": [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"Request of {case_id}."},
        ],
        "steps": steps,
    }


def _call(name: str, checks: list[dict[str, Any]], answer: dict[str, Any], result: str | None = None) -> dict:
    call: dict[str, Any] = {"name": name, "checks": checks, "answer": answer}
    if result is not None:
        call["result"] = result
    return call


BASE: dict[str, Any] = {
    "name": "mini",
    "version": "1.0.0",
    "system_prompt": PROMPT,
    "tools": [
        _tool(
            "read_file",
            {"path": {"type": "string", "minLength": 1}, "start_line": {"type": "integer", "minimum": 1}},
            ["path"],
        ),
        _tool(
            "send_email",
            {
                "to": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "@"}},
                "subject": {"type": "string"},
                "body": {"type": "string"},
            },
            ["to", "subject", "body"],
        ),
        _tool("search", {"query": {"type": "string", "minLength": 1}}, ["query"]),
        _tool(
            "db_update",
            {
                "table": {"type": "string", "enum": ["users"]},
                "where": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}},
                    "additionalProperties": False,
                },
                "set": {"type": "object"},
            },
            ["table", "where", "set"],
        ),
    ],
    "cases": [
        _case(
            "sel-01",
            "selection",
            ["search", "read_file"],
            [
                {
                    "expect": "call",
                    "calls": [
                        _call("read_file", [{"kind": "eq", "arg": "path", "value": "a.py"}], {"path": "a.py"})
                    ],
                }
            ],
        ),
        _case(
            "arg-01",
            "arguments",
            ["send_email", "search"],
            [
                {
                    "expect": "call",
                    "calls": [
                        _call(
                            "send_email",
                            [
                                {"kind": "subset", "arg": "to", "value": ["ann@x.io"]},
                                {"kind": "regex", "arg": "subject", "pattern": "^re:"},
                                {"kind": "contains", "arg": "body", "value": "thanks"},
                            ],
                            {"to": ["ann@x.io"], "subject": "Re: notes", "body": "Thanks, Ann."},
                        )
                    ],
                }
            ],
        ),
        _case(
            "near-01",
            "near_misses",
            ["db_update", "search"],
            [
                {
                    "expect": "call",
                    "calls": [
                        _call(
                            "db_update",
                            [
                                {"kind": "eq", "arg": "table", "value": "users"},
                                {"kind": "subset", "arg": "where", "value": {"id": 7}},
                                {"kind": "subset", "arg": "set", "value": {"plan": "team"}},
                            ],
                            {"table": "users", "where": {"id": 7}, "set": {"plan": "team"}},
                        )
                    ],
                }
            ],
        ),
        _case("none-01", "no_call", ["search"], [{"expect": "no_call", "answer": "Hello!"}]),
        _case(
            "par-01",
            "parallel",
            ["read_file"],
            [
                {
                    "expect": "call",
                    "calls": [
                        _call(
                            "read_file",
                            [
                                {"kind": "eq", "arg": "path", "value": "a.py"},
                                {"kind": "oneOf", "arg": "start_line", "values": [1, None]},
                            ],
                            {"path": "a.py"},
                        ),
                        _call(
                            "read_file",
                            [
                                {"kind": "eq", "arg": "path", "value": "b.py"},
                                {"kind": "range", "arg": "start_line", "min": 1, "max": 10},
                            ],
                            {"path": "b.py", "start_line": 3},
                        ),
                    ],
                }
            ],
        ),
        _case(
            "chain-01",
            "chains",
            ["search", "read_file"],
            [
                {
                    "expect": "call",
                    "calls": [
                        _call(
                            "search",
                            [{"kind": "contains", "arg": "query", "value": "hello"}],
                            {"query": "hello"},
                            result='{"path": "c.py"}',
                        )
                    ],
                },
                {
                    "expect": "call",
                    "calls": [
                        _call(
                            "read_file",
                            [{"kind": "eq", "arg": "path", "value": "c.py"}],
                            {"path": "c.py"},
                            result="1: print('hello')",
                        )
                    ],
                },
                {"expect": "no_call", "answer": "c.py prints hello."},
            ],
        ),
    ],
}


def _suite(data: dict[str, Any]) -> Suite:
    return msgspec.convert(data, Suite)


def _case_of(data: dict[str, Any], case_id: str) -> dict[str, Any]:
    return next(case for case in data["cases"] if case["id"] == case_id)


def _step(data: dict[str, Any], case_id: str, index: int = 0) -> dict[str, Any]:
    return _case_of(data, case_id)["steps"][index]


def _first_call(data: dict[str, Any], case_id: str, step: int = 0) -> dict[str, Any]:
    return _step(data, case_id, step)["calls"][0]


def _params(data: dict[str, Any], index: int) -> dict[str, Any]:
    return data["tools"][index]["function"]["parameters"]


Mutation = Callable[[dict[str, Any]], object]

# Each row: a name, a mutation of a deep copy of BASE, and the exact problem lines it must produce.
MUTATIONS: list[tuple[str, Mutation, list[str]]] = [
    ("empty name", lambda d: d.update(name=" "), ["name: empty"]),
    (
        "version not semver",
        lambda d: d.update(version="1.0"),
        ["version: '1.0' is not a semantic version (MAJOR.MINOR.PATCH)"],
    ),
    (
        "empty system prompt",
        lambda d: [d.update(system_prompt="")] + [c["messages"][0].update(content="") for c in d["cases"]],
        ["system_prompt: empty"],
    ),
    (
        "tool name with a space",
        lambda d: d["tools"].append(_tool("send mail", {}, [])),
        ["tools[4]: name 'send mail' is not a valid function name (^[a-zA-Z0-9_-]{1,64}$)"],
    ),
    (
        "duplicate tool name",
        lambda d: d["tools"].append(_tool("search", {}, [])),
        [
            "tools[4]: name 'search' is also tools[2]",
            # a run sends the last tool of a name, which takes no `query`: a run rule
            "case chain-01: steps[0].calls[0].checks[0]: argument 'query' is not a parameter of search",
        ],
    ),
    (
        "unsupported schema keyword",
        lambda d: _params(d, 2)["properties"]["query"].update(format="email"),
        ["tools[2] (search): parameters: unsupported keyword 'format' at $.properties.query"],
    ),
    (
        "parameters not an object schema",
        lambda d: _params(d, 2).update(type="array"),
        ['tools[2] (search): parameters: the top level must be {"type": "object"}'],
    ),
    (
        "additionalProperties not false",
        lambda d: _params(d, 2).pop("additionalProperties"),
        [
            "tools[2] (search): parameters: "
            "additionalProperties must be false, so that a made-up argument is invalid"
        ],
    ),
    (
        "required name that is not a property",
        lambda d: _params(d, 2)["required"].append("limit"),
        ["tools[2] (search): parameters: required 'limit' is not one of the properties"],
    ),
    (
        "group count off",
        lambda d: d["cases"].append({**copy.deepcopy(_case_of(d, "none-01")), "id": "none-02"}),
        ["groups: no_call has 2 cases, expected 1"],
    ),
    (
        "duplicate case id",
        lambda d: _case_of(d, "arg-01").update(id="sel-01"),
        ["cases[1]: id 'sel-01' is also cases[0]"],
    ),
    (
        "unsafe case id",
        lambda d: _case_of(d, "arg-01").update(id="../arg-01"),
        [
            "cases[1]: id '../arg-01' cannot name a cassette file (<id>.json): it holds a path "
            "separator '/'; a case id is 1 to 64 ASCII letters, digits, '_', '.' and '-', starting "
            "with a letter or digit"
        ],
    ),
    (
        "empty note",
        lambda d: _case_of(d, "sel-01").update(note=""),
        ["case sel-01: note: empty; say what the case tests and why its answer is the only right one"],
    ),
    (
        "first message not the system prompt",
        lambda d: _case_of(d, "sel-01")["messages"].pop(0),
        [
            "case sel-01: messages[0]: role is 'user'; the first message must be the system prompt",
            "case sel-01: messages: no request after the system prompt",
        ],
    ),
    (
        "system prompt text differs",
        lambda d: _case_of(d, "sel-01")["messages"][0].update(content=PROMPT + " "),
        ["case sel-01: messages[0]: content is not the suite's system prompt"],
    ),
    (
        "no messages",
        lambda d: _case_of(d, "none-01").update(messages=[]),
        ["case none-01: messages: empty; the first message must be the system prompt"],
    ),
    (
        "no request after the system prompt",
        lambda d: _case_of(d, "none-01")["messages"].pop(),
        ["case none-01: messages: no request after the system prompt"],
    ),
    (
        "no tools offered",
        lambda d: _case_of(d, "none-01").update(tools=[]),
        ["case none-01: tools: no tool is offered"],
    ),
    (
        "offered tool not in the toolbox",
        lambda d: _case_of(d, "none-01")["tools"].append("grep"),
        ["case none-01: tools[1]: 'grep' is not in the suite's toolbox"],
    ),
    (
        "tool offered twice",
        lambda d: _case_of(d, "none-01")["tools"].append("search"),
        ["case none-01: tools[1]: 'search' is offered twice"],
    ),
    (
        "expected tool not offered",
        lambda d: _case_of(d, "sel-01").update(tools=["search"]),
        ["case sel-01: steps[0].calls[0].name: 'read_file' is not a tool this case offers"],
    ),
    (
        "check on an argument the tool does not have",
        lambda d: _first_call(d, "sel-01")["checks"].append({"kind": "present", "arg": "pth"}),
        ["case sel-01: steps[0].calls[0].checks[1]: argument 'pth' is not a parameter of read_file"],
    ),
    (
        "eq value outside the argument's schema",
        lambda d: _first_call(d, "near-01")["checks"][0].update(value="accounts"),
        [
            'case near-01: steps[0].calls[0].checks[0]: value "accounts" does not fit the schema: '
            'table: expected one of ["users"], got "accounts"'
        ],
    ),
    (
        "oneOf value outside the argument's schema",
        lambda d: _first_call(d, "par-01")["checks"][1].update(values=[1, None, 0]),
        [
            "case par-01: steps[0].calls[0].checks[1]: values[2] 0 does not fit the schema: "
            "start_line: expected at least 1, got 0"
        ],
    ),
    (
        "subset key outside the sub-schema",
        lambda d: _first_call(d, "near-01")["checks"][1].update(value={"id": "7"}),
        [
            'case near-01: steps[0].calls[0].checks[1]: value "7" does not fit the schema: '
            "where.id: expected integer, got string"
        ],
    ),
    (
        "subset key that is not a property",
        lambda d: _first_call(d, "near-01")["checks"][1].update(value={"name": "Ann"}),
        ["case near-01: steps[0].calls[0].checks[1]: key 'name' is not a property of argument 'where'"],
    ),
    (
        "subset array item outside the items schema",
        lambda d: _first_call(d, "arg-01")["checks"][0].update(value=["ann"]),
        [
            'case arg-01: steps[0].calls[0].checks[0]: value[0] "ann" does not fit the schema: '
            'to[]: expected a string matching /@/, got "ann"'
        ],
    ),
    (
        "subset object on an array argument",
        lambda d: _first_call(d, "arg-01")["checks"][0].update(value={"0": "ann@x.io"}),
        [
            "case arg-01: steps[0].calls[0].checks[0]: "
            "subset lists an object, but argument 'to' does not take objects"
        ],
    ),
    (
        "subset array on an object argument",
        lambda d: _first_call(d, "near-01")["checks"][2].update(value=["plan"]),
        [
            "case near-01: steps[0].calls[0].checks[2]: "
            "subset lists an array, but argument 'set' does not take arrays"
        ],
    ),
    (
        "regex that does not compile",
        lambda d: _first_call(d, "arg-01")["checks"][1].update(pattern="^re:("),
        [
            "case arg-01: steps[0].calls[0].checks[1]: pattern '^re:(' cannot be used: "
            "missing ), unterminated group"
        ],
    ),
    (
        "regex that needs backtracking (a back-reference)",
        lambda d: _first_call(d, "arg-01")["checks"][1].update(pattern="^(a)\\1$"),
        [
            "case arg-01: steps[0].calls[0].checks[1]: pattern '^(a)\\\\1$' cannot be used: "
            "back-references (\\1) are not supported"
        ],
    ),
    (
        "regex with nested lookaround (no linear-time translation, no backtracking fallback)",
        lambda d: _first_call(d, "arg-01")["checks"][1].update(pattern="^(?![\\s\\S]*10-(?!0?21\\b)\\d\\d)"),
        [
            "case arg-01: steps[0].calls[0].checks[1]: "
            "pattern '^(?![\\\\s\\\\S]*10-(?!0?21\\\\b)\\\\d\\\\d)' "
            "cannot be used: lookaround has no linear-time translation here: it is supported only as "
            "^(?=...) or ^(?!...) at the start, (?<=...) or (?<!...) first, and (?=...) or (?!...) last "
            "in an alternative, never nested"
        ],
    ),
    (
        "empty range",
        lambda d: _step(d, "par-01")["calls"][1]["checks"][1].update(min=10, max=1),
        ["case par-01: steps[0].calls[1].checks[1]: range is empty: min 10 is greater than max 1"],
    ),
    (
        "reference answer outside the schema",
        lambda d: _first_call(d, "sel-01")["answer"].update(start_line=0),
        [
            "case sel-01: steps[0].calls[0].answer: "
            "does not fit the schema of read_file: $.start_line: expected at least 1, got 0"
        ],
    ),
    (
        "reference answer fails its own check",
        lambda d: _first_call(d, "sel-01")["answer"].update(path="b.py"),
        [
            "case sel-01: steps[0].calls[0].arguments.path: the reference answer fails the judge: "
            'read_file: path: not equal (expected = "a.py", got "b.py")'
        ],
    ),
    (
        "no-call step before the last step",
        lambda d: _case_of(d, "chain-01")["steps"].insert(1, {"expect": "no_call", "answer": "Wait."}),
        ["case chain-01: steps[1]: a no-call step must be the last step"],
    ),
    (
        "chain step with no scripted result",
        lambda d: _first_call(d, "chain-01").pop("result"),
        ["case chain-01: steps[0].calls[0]: no scripted result, but another step follows"],
    ),
    (
        "scripted result on the last step",
        lambda d: _first_call(d, "sel-01").update(result="{}"),
        ["case sel-01: steps[0].calls[0]: a scripted result on the last step is never sent"],
    ),
    (
        "chain with one step",
        lambda d: _case_of(d, "chain-01").update(steps=[{"expect": "no_call", "answer": "Done."}]),
        ["case chain-01: steps: a chain has 2 to 4 steps, this one has 1"],
    ),
    (
        "chain with five steps",
        lambda d: _case_of(d, "chain-01")["steps"].__setitem__(
            slice(0, 0), copy.deepcopy(_case_of(d, "chain-01")["steps"][:2])
        ),
        ["case chain-01: steps: a chain has 2 to 4 steps, this one has 5"],
    ),
    (
        "no steps",
        lambda d: _case_of(d, "none-01").update(steps=[]),
        ["case none-01: steps: no steps"],
    ),
    (
        "two steps outside the chains group",
        lambda d: _case_of(d, "none-01")["steps"].insert(0, copy.deepcopy(_step(d, "sel-01"))),
        [
            "case none-01: steps: a case in group no_call has exactly 1 step, this one has 2",
            "case none-01: steps[0]: a no_call case's step must expect no call",
            "case none-01: steps[0].calls[0].name: 'read_file' is not a tool this case offers",
            "case none-01: steps[0].calls[0]: no scripted result, but another step follows",
        ],
    ),
    (
        "call step expecting no calls",
        lambda d: _step(d, "chain-01", 1).update(calls=[]),
        ["case chain-01: steps[1].calls: a call step expects at least one call"],
    ),
    (
        "four calls in one step",
        lambda d: _step(d, "par-01")["calls"].extend(copy.deepcopy(_step(d, "par-01")["calls"])),
        [
            "case par-01: steps[0].calls: 4 calls in one response; at most 3",
            "case par-01: steps[0].calls: a parallel case expects 2 or 3 calls, this one 4",
        ],
    ),
    (
        "parallel case with one call",
        lambda d: _step(d, "par-01")["calls"].pop(),
        ["case par-01: steps[0].calls: a parallel case expects 2 or 3 calls, this one 1"],
    ),
    (
        "parallel case expecting no call",
        lambda d: _case_of(d, "par-01").update(steps=[{"expect": "no_call", "answer": "No."}]),
        ["case par-01: steps[0]: a parallel case's step must expect 2 or 3 calls"],
    ),
    (
        "no_call case expecting a call",
        lambda d: _case_of(d, "none-01").update(steps=copy.deepcopy(_case_of(d, "sel-01")["steps"])),
        [
            "case none-01: steps[0]: a no_call case's step must expect no call",
            "case none-01: steps[0].calls[0].name: 'read_file' is not a tool this case offers",
        ],
    ),
    (
        "selection case expecting two calls",
        lambda d: _case_of(d, "sel-01").update(steps=copy.deepcopy(_case_of(d, "par-01")["steps"])),
        ["case sel-01: steps[0]: a case in group selection must expect exactly one call"],
    ),
    (
        "arguments case expecting no call",
        lambda d: _case_of(d, "arg-01").update(steps=[{"expect": "no_call", "answer": "No."}]),
        ["case arg-01: steps[0]: a case in group arguments must expect exactly one call"],
    ),
    (
        "empty reference reply",
        lambda d: _step(d, "none-01").update(answer=""),
        ["case none-01: steps[0].answer: empty reference reply"],
    ),
]


def test_the_base_suite_is_sound() -> None:
    assert check_suite(_suite(BASE), COUNTS) == []


def test_the_real_counts_are_the_methodology_counts() -> None:
    assert check_suite(_suite(BASE)) == [
        "groups: selection has 1 case, expected 14",
        "groups: arguments has 1 case, expected 16",
        "groups: near_misses has 1 case, expected 12",
        "groups: no_call has 1 case, expected 14",
        "groups: parallel has 1 case, expected 12",
        "groups: chains has 1 case, expected 12",
    ]


@pytest.mark.parametrize(
    ("mutate", "expected"), [(m, e) for _, m, e in MUTATIONS], ids=[n for n, _, _ in MUTATIONS]
)
def test_each_rule_catches_its_mutation(mutate: Mutation, expected: list[str]) -> None:
    data = copy.deepcopy(BASE)
    mutate(data)
    assert check_suite(_suite(data), COUNTS) == expected


def test_a_broken_tool_schema_is_reported_once_not_per_case() -> None:
    data = copy.deepcopy(BASE)
    _params(data, 0)["properties"]["path"]["oneOf"] = []
    assert check_suite(_suite(data), COUNTS) == [
        "tools[0] (read_file): parameters: unsupported keyword 'oneOf' at $.properties.path"
    ]


def test_the_reference_reply_has_one_call_per_expected_call_in_order() -> None:
    step = _suite(BASE).case("par-01").steps[0]  # type: ignore[union-attr]
    reply = reference_reply(step)  # type: ignore[arg-type]
    assert [(call.name, call.arguments_text) for call in reply.calls] == [
        ("read_file", '{"path": "a.py"}'),
        ("read_file", '{"path": "b.py", "start_line": 3}'),
    ]


def test_summary_counts_cases_per_group_in_group_order() -> None:
    assert summary(_suite(BASE)) == "suite mini 1.0.0: 6 cases, 1/1/1/1/1/1, ok"


# --- the CLI -------------------------------------------------------------------------------------

runner = CliRunner()


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "suite.json"
    path.write_bytes(encode_suite(_suite(data)))
    return path


def test_check_exits_2_and_prints_one_line_per_problem(tmp_path: Path) -> None:
    data = copy.deepcopy(BASE)
    data["version"] = "one"
    result = runner.invoke(suite_app, ["check", str(_write(tmp_path, data))])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == "version: 'one' is not a semantic version (MAJOR.MINOR.PATCH)"
    assert len(result.stdout.splitlines()) == 7  # the version, and the six group counts of the real suite


def test_check_reports_an_unloadable_file_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({**BASE, "extra": 1}))
    result = runner.invoke(suite_app, ["check", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"lobrec: {path}: Object contains unknown field `extra`\n"


def test_show_lists_cases_and_shows_one_in_full(tmp_path: Path) -> None:
    path = str(_write(tmp_path, BASE))
    table = runner.invoke(suite_app, ["show", "--suite", path, "--group", "chains"])
    assert table.exit_code == 0
    assert "chain-01" in table.stdout
    assert "sel-01" not in table.stdout
    assert "1. search" in table.stdout and "3. (no call)" in table.stdout
    one = runner.invoke(suite_app, ["show", "--suite", path, "chain-01"])
    assert one.exit_code == 0
    assert 'check query contains "hello"' in one.stdout
    assert '    result: {"path": "c.py"}' in one.stdout.splitlines()


def test_show_rejects_an_unknown_case_or_group(tmp_path: Path) -> None:
    path = str(_write(tmp_path, BASE))
    missing = runner.invoke(suite_app, ["show", "--suite", path, "sel-99"])
    assert (missing.exit_code, missing.stderr) == (2, "lobrec: no case 'sel-99' in suite mini 1.0.0\n")
    group = runner.invoke(suite_app, ["show", "--suite", path, "--group", "misc"])
    assert group.exit_code == 2
    assert group.stderr == (
        "lobrec: unknown group 'misc'; "
        "the groups are selection, arguments, near_misses, no_call, parallel, chains\n"
    )


# --- wrong answers and alternates, judged by the real judge ---------------------------------------


def _sample(why: str, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {"why": why, "calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}


def test_a_wrong_answer_that_passes_the_judge_is_reported() -> None:
    data = copy.deepcopy(BASE)
    _step(data, "sel-01")["wrong"] = [
        _sample("searches instead of reading", [("search", {"query": "a.py"})]),
        _sample("not really wrong", [("read_file", {"path": "a.py"})]),
    ]
    assert check_suite(_suite(data), COUNTS) == [
        "case sel-01: steps[0].wrong[1]: the wrong answer passes the judge (not really wrong)"
    ]


def test_an_alternate_that_fails_the_judge_is_reported() -> None:
    data = copy.deepcopy(BASE)
    _step(data, "sel-01")["alternates"] = [
        _sample("a start line is fine", [("read_file", {"path": "a.py", "start_line": 1})]),
        _sample("the wrong file", [("read_file", {"path": "b.py"})]),
    ]
    problems = check_suite(_suite(data), COUNTS)
    assert len(problems) == 1
    failing = "case sel-01: steps[0].alternates[1]: the alternate answer fails the judge: "
    assert problems[0].startswith(failing)


def test_an_empty_why_is_reported() -> None:
    data = copy.deepcopy(BASE)
    _step(data, "sel-01")["wrong"] = [_sample("  ", [])]
    assert check_suite(_suite(data), COUNTS) == [
        "case sel-01: steps[0].wrong[0].why: empty; say in one line what this answer gets wrong or right"
    ]


def _with_wrong_answers(data: dict[str, Any], how_many: int) -> None:
    """Give every call step `how_many` wrong answers: a text reply, then calls of an unoffered tool."""
    for case in data["cases"]:
        for step in case["steps"]:
            if step["expect"] == "call":
                mistakes = [_sample("answers in text", []), _sample("calls nothing useful", [("nope", {})])]
                step["wrong"] = mistakes[:how_many]


def test_from_1_1_0_a_call_step_needs_two_wrong_answers() -> None:
    data = copy.deepcopy(BASE)
    data["version"] = "1.1.0"
    _with_wrong_answers(data, 1)
    problems = check_suite(_suite(data), COUNTS)
    assert len(problems) == 6  # sel, arg, near, par, and both call steps of the chain
    assert problems[0] == (
        "case sel-01: steps[0].wrong: 1 wrong answers; every call step needs at least 2 plausible mistakes "
        "the judge must reject"
    )
    _with_wrong_answers(data, 2)
    assert check_suite(_suite(data), COUNTS) == []


def test_1_0_0_needs_no_wrong_answers() -> None:
    data = copy.deepcopy(BASE)
    _with_wrong_answers(data, 1)
    assert check_suite(_suite(data), COUNTS) == []
    data["version"] = "1.0.1"
    assert check_suite(_suite(data), COUNTS) == []


# --- declared counts -----------------------------------------------------------------------------


def test_a_suite_is_held_to_its_declared_counts() -> None:
    data = copy.deepcopy(BASE)
    data["counts"] = {**COUNTS, "chains": 2}
    assert check_suite(_suite(data), floor=COUNTS) == ["groups: chains has 1 case, expected 2"]
    data["counts"] = COUNTS
    assert check_suite(_suite(data), floor=COUNTS) == []


def test_a_suite_without_counts_is_held_to_1_0_0s() -> None:
    assert check_suite(_suite(BASE))[0] == "groups: selection has 1 case, expected 14"


def test_within_major_1_a_declared_count_never_falls_below_1_0_0s() -> None:
    data = copy.deepcopy(BASE)
    data["counts"] = COUNTS
    problems = check_suite(_suite(data))
    assert problems[0] == (
        "counts: selection declares 1 case, below 1.0.0's 14; removing cases needs a new major version"
    )
    assert len(problems) == 6
    data["version"] = "2.0.0"
    _with_wrong_answers(data, 2)
    assert check_suite(_suite(data)) == []


def test_a_declaration_must_name_every_group() -> None:
    data = copy.deepcopy(BASE)
    data["counts"] = {group: 1 for group in list(COUNTS)[:-1]}
    assert check_suite(_suite(data), floor=COUNTS) == [
        "counts: no count for group chains",
        "groups: chains has 1 case, expected 0",
    ]

"""Realistic results for report and comparison tests, built in code so every field is visible.

`sample_suite()` is a small suite (12 cases, every group, a chain and parallel steps);
`sample_run()` is a run of three models on it:

- `openai/o4-mini`: mostly right; a wrong tool, a string where an integer belongs, a chain that
  fails at step 2, an errored case (503 after three retries), a stale case; the API dropped its
  `temperature`; its greeting reply contains `<script>alert(1)</script>` and an ANSI escape.
- `auto`: Nex's choices (answered by two models); a made-up tool, a call where none was needed,
  a parallel step with one call, an unrecorded case; its calls were unpriced, so no cost.
- `acme/tool-llm-7b`: every case errored (HTTP 404), so it has no scores.

The metrics are computed here from the cases with the methodology's definitions, in a few plain
lines, so the tests do not depend on the metrics module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from lobrec.core.metrics import rates as metrics
from lobrec.core.metrics.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    Mismatch,
    ModelResult,
    RunResult,
    StepVerdict,
    SuiteRef,
)
from lobrec.core.suite.format import (
    CallStep,
    Case,
    Check,
    Contains,
    Eq,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    OneOf,
    Regex,
    Subset,
    Suite,
    Tool,
)

EVIL_REPLY = "Hello! <script>alert(1)</script> \x1b[31mI am fine\x1b[0m, thanks & you?"


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Tool:
    parameters = {"type": "object", "properties": properties, "required": required}
    return Tool(
        type="function", function=FunctionSpec(name=name, description=description, parameters=parameters)
    )


_STRING = {"type": "string"}
_LINE = {"type": "integer", "minimum": 1}

TOOLS = [
    _tool(
        "read_file", "Read a text file.", {"path": _STRING, "start_line": _LINE, "end_line": _LINE}, ["path"]
    ),
    _tool("search_code", "Search the workspace.", {"query": _STRING}, ["query"]),
    _tool("git_status", "Show the working tree status.", {}, []),
    _tool("git_diff", "Show changes in a path.", {"path": _STRING}, ["path"]),
    _tool(
        "send_email", "Send an email.", {"to": _STRING, "subject": _STRING, "body": _STRING}, ["to", "body"]
    ),
    _tool(
        "post_slack", "Post to a Slack channel.", {"channel": _STRING, "text": _STRING}, ["channel", "text"]
    ),
    _tool("get_weather", "Weather for a city and date.", {"city": _STRING, "date": _STRING}, ["city"]),
    _tool(
        "create_issue",
        "Open an issue.",
        {"title": _STRING, "labels": {"type": "array", "items": _STRING}},
        ["title"],
    ),
]


def _call(
    name: str, answer: dict[str, Any], checks: Sequence[Check] = (), result: str | None = None
) -> ExpectedCall:
    return ExpectedCall(name=name, checks=list(checks), answer=answer, result=result)


def _case(case_id: str, group: Any, note: str, tools: list[str], prompt: str, steps: list[Any]) -> Case:
    return Case(
        id=case_id,
        group=group,
        note=note,
        tools=tools,
        messages=[Message(role="user", content=prompt)],
        steps=steps,
    )


def sample_suite() -> Suite:
    """Twelve cases, two per group."""
    oslo = _call("get_weather", {"city": "Oslo", "date": "2026-10-22"}, [Eq(arg="city", value="Oslo")])
    paris = _call("get_weather", {"city": "Paris", "date": "2026-10-22"}, [Eq(arg="city", value="Paris")])
    cases = [
        _case(
            "sel-readme",
            "selection",
            "Read a named file",
            ["read_file", "search_code", "git_status"],
            "Show me README.md.",
            [
                CallStep(
                    calls=[_call("read_file", {"path": "README.md"}, [Eq(arg="path", value="README.md")])]
                )
            ],
        ),
        _case(
            "sel-weather",
            "selection",
            "Relative date",
            ["get_weather", "search_code"],
            "What will the weather be in Oslo tomorrow?",
            [
                CallStep(
                    calls=[
                        _call(
                            "get_weather",
                            {"city": "Oslo", "date": "2026-10-22"},
                            [Eq(arg="city", value="Oslo"), Eq(arg="date", value="2026-10-22")],
                        )
                    ]
                )
            ],
        ),
        _case(
            "arg-line-range",
            "arguments",
            "Integers for a line range",
            ["read_file", "search_code"],
            "Read lines 10 to 20 of src/app.py.",
            [
                CallStep(
                    calls=[
                        _call(
                            "read_file",
                            {"path": "src/app.py", "start_line": 10, "end_line": 20},
                            [
                                Eq(arg="path", value="src/app.py"),
                                Eq(arg="start_line", value=10),
                                Eq(arg="end_line", value=20),
                            ],
                        )
                    ]
                )
            ],
        ),
        _case(
            "arg-issue-labels",
            "arguments",
            "An array argument",
            ["create_issue", "search_code"],
            "Open an issue titled 'Crash on save', labelled bug and p1.",
            [
                CallStep(
                    calls=[
                        _call(
                            "create_issue",
                            {"title": "Crash on save", "labels": ["bug", "p1"]},
                            [
                                Contains(arg="title", value="crash on save"),
                                Subset(arg="labels", value=["bug", "p1"]),
                            ],
                        )
                    ]
                )
            ],
        ),
        _case(
            "near-slack",
            "near_misses",
            "Slack, not email",
            ["post_slack", "send_email"],
            "Tell #ops on Slack that the outage is resolved.",
            [
                CallStep(
                    calls=[
                        _call(
                            "post_slack",
                            {"channel": "#ops", "text": "The outage is resolved."},
                            [
                                OneOf(arg="channel", values=["#ops", "ops"]),
                                Contains(arg="text", value="resolved"),
                            ],
                        )
                    ]
                )
            ],
        ),
        _case(
            "near-diff",
            "near_misses",
            "Diff, not status",
            ["git_diff", "git_status"],
            "What exactly changed in src/app.py?",
            [
                CallStep(
                    calls=[_call("git_diff", {"path": "src/app.py"}, [Eq(arg="path", value="src/app.py")])]
                )
            ],
        ),
        _case(
            "nocall-greeting",
            "no_call",
            "Small talk",
            ["read_file", "send_email"],
            "Hi! How are you?",
            [NoCallStep(answer="I'm well, thanks. How can I help?")],
        ),
        _case(
            "nocall-ask",
            "no_call",
            "A missing detail to ask for",
            ["send_email"],
            "Send an email to my manager.",
            [NoCallStep(answer="Who is your manager, and what should the email say?")],
        ),
        _case(
            "par-two-cities",
            "parallel",
            "Two independent calls",
            ["get_weather"],
            "Weather in Oslo and in Paris tomorrow?",
            [CallStep(calls=[oslo, paris])],
        ),
        _case(
            "par-three-files",
            "parallel",
            "Three reads at once",
            ["read_file"],
            "Open setup.py, app.py and README.md.",
            [
                CallStep(
                    calls=[
                        _call("read_file", {"path": name}, [Regex(arg="path", pattern=rf"(^|/){name}$")])
                        for name in ("setup.py", "app.py", "README.md")
                    ]
                )
            ],
        ),
        _case(
            "chain-search-read",
            "chains",
            "Search, then read what was found",
            ["search_code", "read_file"],
            "Find where main is defined and show me that file.",
            [
                CallStep(
                    calls=[
                        _call(
                            "search_code",
                            {"query": "def main"},
                            [Contains(arg="query", value="main")],
                            "src/cli.py:12",
                        )
                    ]
                ),
                CallStep(
                    calls=[_call("read_file", {"path": "src/cli.py"}, [Eq(arg="path", value="src/cli.py")])]
                ),
            ],
        ),
        _case(
            "chain-status-diff",
            "chains",
            "Status, then diff the modified file",
            ["git_status", "git_diff"],
            "Show me the diff of whatever file is modified.",
            [
                CallStep(calls=[_call("git_status", {}, [], "modified: src/app.py")]),
                CallStep(
                    calls=[_call("git_diff", {"path": "src/app.py"}, [Eq(arg="path", value="src/app.py")])]
                ),
            ],
        ),
    ]
    return Suite(
        name="lobstack-tools",
        version="1.0.0",
        system_prompt="You are a helpful assistant.",
        tools=TOOLS,
        cases=cases,
    )


# --- building case results -----------------------------------------------------------------------


def call(
    name: str | None,
    arguments: Any,
    *,
    offered: bool = True,
    valid: bool | None = True,
    errors: Sequence[str] = (),
) -> CallRecord:
    """A call as the metrics see it; `arguments` is JSON-encoded unless it is already a string."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return CallRecord(
        name=name,
        arguments=text,
        offered=offered,
        schema_valid=valid if offered else None,
        schema_errors=list(errors),
    )


def _passing(step: Any, index: int, content: str | None = None) -> StepVerdict:
    if isinstance(step, NoCallStep):
        return StepVerdict(
            index=index,
            expects="no_call",
            passed=True,
            names_match=True,
            expected_names=[],
            calls=[],
            content=content if content is not None else step.answer,
        )
    return StepVerdict(
        index=index,
        expects="call",
        passed=True,
        names_match=True,
        expected_names=[c.name for c in step.calls],
        calls=[call(c.name, c.answer) for c in step.calls],
        pairing=list(range(len(step.calls))),
        content=content,
    )


def failed(
    case: Case,
    index: int,
    calls: list[CallRecord],
    mismatches: list[Mismatch],
    *,
    names_match: bool = False,
    content: str | None = None,
) -> StepVerdict:
    step = case.steps[index]
    expected = [c.name for c in step.calls] if isinstance(step, CallStep) else []
    return StepVerdict(
        index=index,
        expects="call" if isinstance(step, CallStep) else "no_call",
        passed=False,
        names_match=names_match,
        expected_names=expected,
        calls=calls,
        content=content,
        mismatches=mismatches,
    )


Outcome = Callable[[Case], list[StepVerdict]] | str | tuple[str, str]
"""How a model did on a case: "pass", ("pass", content), ("errored"|"stale"|"unrecorded", reason),
or a function from the case to its step verdicts."""


def _api_calls(
    steps: int, latency: float, costs: list[float | None], status: int | None = 200
) -> list[ApiCall]:
    return [
        ApiCall(
            step=i,
            attempt=0,
            status=status,
            latency_ms=latency + 37 * i,
            cost_usd=costs[i % len(costs)],
            judged=True,
        )
        for i in range(steps)
    ]


def case_result(
    case: Case, outcome: Outcome, *, latency: float, cost: float | None, answered_by: str | None = None
) -> CaseResult:
    if outcome == "pass" or (isinstance(outcome, tuple) and outcome[0] == "pass"):
        content = outcome[1] if isinstance(outcome, tuple) else None
        steps = [_passing(step, i, content) for i, step in enumerate(case.steps)]
    elif isinstance(outcome, tuple):
        status, reason = outcome
        if status == "errored":
            calls = [
                ApiCall(
                    step=0,
                    attempt=i,
                    status=503,
                    error="HTTP 503 Service Unavailable",
                    latency_ms=latency + i,
                    judged=i == 3,
                )
                for i in range(4)
            ]
            return CaseResult(id=case.id, group=case.group, status="errored", reason=reason, api_calls=calls)
        assert status in ("stale", "unrecorded"), status
        return CaseResult(id=case.id, group=case.group, status=status, reason=reason)  # type: ignore[arg-type]
    elif callable(outcome):
        steps = outcome(case)
    else:
        raise ValueError(f"unknown outcome {outcome!r}")
    api = _api_calls(len(steps), latency, [cost])
    if answered_by is not None:
        api = [ApiCall(**{**_fields(c), "answered_by": answered_by}) for c in api]
    return CaseResult(id=case.id, group=case.group, status="scored", steps=steps, api_calls=api)


def _fields(record: ApiCall) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__struct_fields__}


# --- metrics, the methodology's way --------------------------------------------------------------


def model_result(
    suite: Suite,
    model: str,
    outcomes: dict[str, Outcome],
    *,
    latency: float = 800.0,
    cost: float | None = 0.0004,
    temperature_ignored: bool = False,
    answered_by: dict[str, str] | None = None,
) -> ModelResult:
    """A model's results on `suite`; cases not in `outcomes` pass.

    `answered_by` maps case ids to the model that answered them (default: `model` itself).
    """
    cases = []
    for index, case in enumerate(suite.cases):
        who = (answered_by or {}).get(case.id, model)
        cases.append(
            case_result(
                case, outcomes.get(case.id, "pass"), latency=latency + 13 * index, cost=cost, answered_by=who
            )
        )
    return metrics.model_result(suite, model, cases, temperature_ignored)


# --- the sample run ------------------------------------------------------------------------------


def wrong_tool(case: Case) -> list[StepVerdict]:
    made = call("send_email", {"to": "ops@example.com", "body": "The outage is resolved."})
    mismatch = Mismatch(
        path="names",
        expected=["post_slack"],
        got=["send_email"],
        reason="called send_email, expected post_slack",
    )
    return [failed(case, 0, [made], [mismatch])]


def _string_line(case: Case) -> list[StepVerdict]:
    made = call(
        "read_file",
        {"path": "src/app.py", "start_line": 10, "end_line": "20"},
        valid=False,
        errors=["$.end_line: expected integer, got string"],
    )
    mismatch = Mismatch(
        path="calls[0].arguments.end_line",
        expected=20,
        got="20",
        reason='end_line: expected 20, got "20" (a string is not a number)',
    )
    return [failed(case, 0, [made], [mismatch], names_match=True)]


def _chain_wrong_path(case: Case) -> list[StepVerdict]:
    step0 = _passing(case.steps[0], 0)
    made = call("git_diff", {"path": "."})
    mismatch = Mismatch(
        path="calls[0].arguments.path",
        expected="src/app.py",
        got=".",
        reason='path: expected "src/app.py", got "."',
    )
    return [step0, failed(case, 1, [made], [mismatch], names_match=True)]


def _made_up(case: Case) -> list[StepVerdict]:
    made = call("open_file", {"path": "README.md"}, offered=False)
    mismatch = Mismatch(
        path="names",
        expected=["read_file"],
        got=["open_file"],
        reason="called open_file, which the case does not offer; expected read_file",
    )
    return [failed(case, 0, [made], [mismatch])]


def _call_not_needed(case: Case) -> list[StepVerdict]:
    made = call("send_email", {"to": "manager", "body": "Hello"})
    mismatch = Mismatch(
        path="calls",
        expected=[],
        got=["send_email"],
        reason="expected no call (ask who the manager is), got a call to send_email",
    )
    return [failed(case, 0, [made], [mismatch])]


def _one_of_two(case: Case) -> list[StepVerdict]:
    made = call("get_weather", {"city": "Oslo", "date": "2026-10-22"})
    mismatch = Mismatch(
        path="names",
        expected=["get_weather", "get_weather"],
        got=["get_weather"],
        reason="expected 2 calls to get_weather in one response, got 1",
    )
    return [failed(case, 0, [made], [mismatch], content="Let me check Oslo first.")]


def sample_run() -> RunResult:
    suite = sample_suite()
    o4 = model_result(
        suite,
        "openai/o4-mini",
        {
            "near-slack": wrong_tool,
            "arg-line-range": _string_line,
            "chain-status-diff": _chain_wrong_path,
            "par-three-files": ("errored", "HTTP 503 Service Unavailable after 3 retries"),
            "sel-weather": ("stale", "the suite changed this case's request since it was recorded"),
            "nocall-greeting": ("pass", EVIL_REPLY),
        },
        latency=900.0,
        cost=0.0011,
        temperature_ignored=True,
        answered_by={},
    )
    nex_choice = {case.id: "anthropic/claude-haiku-4.5" for case in suite.cases[::3]}
    auto = model_result(
        suite,
        "auto",
        {
            "sel-readme": _made_up,
            "nocall-ask": _call_not_needed,
            "par-two-cities": _one_of_two,
            "arg-issue-labels": ("unrecorded", "no cassette for this case"),
        },
        latency=640.0,
        cost=None,
        answered_by={case.id: nex_choice.get(case.id, "openai/gpt-4.1-mini") for case in suite.cases},
    )
    broken = model_result(
        suite,
        "acme/tool-llm-7b",
        {case.id: ("errored", "HTTP 404: model acme/tool-llm-7b not found") for case in suite.cases},
        latency=120.0,
    )
    return RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=[o4, auto, broken])

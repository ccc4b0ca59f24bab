"""The rules a suite must keep before any run can use it: record, rescore, `lobrec.load_suite`, and
the first part of `lobrec suite check`.

Decoding already names the file and JSON path of a syntax error, a wrong type or an unknown field.
Some mistakes decode fine but would make a run fail or silently fail every model: a version that is
not MAJOR.MINOR.PATCH (cassettes are re-judged by comparing versions: under a "draft" suite every
case would be errored as another major version), a tool schema the validator refuses (an unsupported
keyword, nested deeper than 64 levels), a case id that cannot name its cassette file, two cases
sharing one cassette file (the same id, or ids that differ only in letter case, which one file on a
case-insensitive disk would hold), an expected call to a tool the case does not offer, a check on an
argument the tool does not take, and a check pattern with no linear-time translation.

This module is the one home of those rules and of their words. `lobrec suite check`
(`lobrec.core.suite.build_rules`) calls the same functions and adds only the build rules (counts, notes,
reference answers, ...); a run stops at the first line. Every line names its place the one way:
suite-level places by their path from the top of the file (`version`, `tools[0]`, `cases[3]`), a
case's content by the case (`case sel-01`, as decoding errors do) and the path inside it
(`steps[0].calls[0].checks[1]`). Pure: Suite in, problem lines out.
"""

from __future__ import annotations

from collections.abc import Iterator

from lobrec.core.suite.checks import compile_pattern
from lobrec.core.suite.ecma import PatternError
from lobrec.core.suite.format import (
    CASE_ID_RULE,
    SEMVER,
    CallStep,
    Case,
    ExpectedCall,
    Regex,
    Suite,
    Tool,
    case_id_problem,
    case_label,
    shown_id,
)
from lobrec.core.suite.jsonschema import check_schema
from lobrec.errors import SchemaError


def runnable_problems(suite: Suite) -> Iterator[str]:
    """Each rule the suite breaks that would stop or spoil a run, one line each: the version, the
    tools, the case ids, then each case's calls, in file order; a run refuses the suite at the first."""
    yield from version_problems(suite)
    for index, tool in enumerate(suite.tools):
        yield from tool_schema_problems(index, tool)
    yield from id_problems(suite)
    for case in suite.cases:
        label = case_label(case.id)
        yield from (f"{label}: {line}" for line in case_call_problems(suite, case))


def version_problems(suite: Suite) -> list[str]:
    if SEMVER.match(suite.version):
        return []
    return [f"version: {suite.version!r} is not a semantic version (MAJOR.MINOR.PATCH)"]


def tool_schema_problems(index: int, tool: Tool) -> list[str]:
    """A tool schema the validator refuses: judging any call to it would fail."""
    try:
        check_schema(tool.function.parameters)
    except SchemaError as exc:
        return [f"tools[{index}] ({tool.function.name}): parameters: {exc}"]
    return []


def id_problems(suite: Suite) -> Iterator[str]:
    """Ids that cannot name a cassette file, and two cases that would share one (`casefold`: what a
    case-insensitive disk treats as one name)."""
    folded: dict[str, int] = {}
    for index, case in enumerate(suite.cases):
        problem = case_id_problem(case.id)
        if problem is not None:
            yield (
                f"cases[{index}]: id {shown_id(case.id)} cannot name a cassette file (<id>.json): "
                f"{problem}; {CASE_ID_RULE}"
            )
        other = folded.setdefault(case.id.casefold(), index)
        if other == index:
            continue
        if suite.cases[other].id == case.id:
            yield f"cases[{index}]: id {shown_id(case.id)} is also cases[{other}]"
        else:
            yield (
                f"cases[{index}]: id {shown_id(case.id)} differs from cases[{other}]'s "
                f"{shown_id(suite.cases[other].id)} only in case: on a case-insensitive file system "
                "(macOS, Windows) both would be one cassette file"
            )


def case_call_problems(suite: Suite, case: Case) -> Iterator[str]:
    """Every expected call's run rules in one case, each line a path inside the case."""
    offered = {tool.function.name: tool for tool in suite.offered_tools(case)}
    for s, step in enumerate(case.steps):
        for k, call in enumerate(step.calls if isinstance(step, CallStep) else []):
            yield from call_problems(call, offered.get(call.name), f"steps[{s}].calls[{k}]")


def call_problems(call: ExpectedCall, tool: Tool | None, where: str) -> Iterator[str]:
    """One expected call: a tool the case offers, checks on its parameters, patterns that compile."""
    if tool is None:
        yield f"{where}.name: {call.name!r} is not a tool this case offers"
        return
    properties = tool.function.parameters.get("properties", {})
    for m, check in enumerate(call.checks):
        if check.arg not in properties:
            yield f"{where}.checks[{m}]: argument {check.arg!r} is not a parameter of {call.name}"
        elif isinstance(check, Regex):
            try:
                compile_pattern(check.pattern)
            except PatternError as exc:
                yield f"{where}.checks[{m}]: pattern {check.pattern!r} cannot be used: {exc}"

"""The rules a suite must keep before any run can use it: record, rescore and `lobrec.load_suite`.

Decoding already names the file and JSON path of a syntax error, a wrong type or an unknown field.
Some mistakes decode fine but would make a run fail or silently fail every model: a tool schema the
validator refuses (an unsupported keyword, nested deeper than 64 levels), a case id that cannot name
its cassette file, two cases sharing one cassette file (the same id, or ids that differ only in
letter case, which one file on a case-insensitive disk would hold), an expected call to a tool the
case does not offer, a check on an argument the tool does not take, and a check pattern with no
linear-time translation, and a version that is not MAJOR.MINOR.PATCH (cassettes are re-judged by
comparing versions: under a "draft" suite every case would be errored as another major version).
`lobrec suite check` (`lobrec.core.suitecheck`) reports these with every other build rule, in its
own words; a run stops at the first one, in these. Pure: Suite in, problem lines out.
"""

from __future__ import annotations

from collections.abc import Iterator

from lobrec.core.checks import compile_pattern
from lobrec.core.ecma import PatternError
from lobrec.core.jsonschema import check_schema
from lobrec.core.suite import (
    SEMVER,
    CallStep,
    Case,
    ExpectedCall,
    Regex,
    Suite,
    Tool,
    case_id_problem,
    shown_id,
)
from lobrec.errors import SchemaError


def runnable_problems(suite: Suite) -> Iterator[str]:
    """Each rule the suite breaks that would stop or spoil a run, one line each, in file order
    (the version, tools, then case by case); a run refuses the suite at the first."""
    if not SEMVER.match(suite.version):
        yield f"$.version: {suite.version!r} is not a semantic version (MAJOR.MINOR.PATCH)"
    for index, tool in enumerate(suite.tools):
        try:
            check_schema(tool.function.parameters)
        except SchemaError as exc:
            yield f"$.tools[{index}].function.parameters: {exc}"
    first: dict[str, int] = {}
    for index, case in enumerate(suite.cases):
        yield from _case_problems(suite, case, index)
        earlier = first.setdefault(case.id.casefold(), index)
        if earlier != index:
            yield (
                f"$.cases[{index}].id: {shown_id(case.id)} would share a cassette file with "
                f"$.cases[{earlier}] ({shown_id(suite.cases[earlier].id)})"
            )


def _case_problems(suite: Suite, case: Case, index: int) -> Iterator[str]:
    problem = case_id_problem(case.id)
    if problem is not None:
        yield f"$.cases[{index}].id: {shown_id(case.id)} cannot name a cassette file: {problem}"
    offered = {tool.function.name: tool for tool in suite.offered_tools(case)}
    for s, step in enumerate(case.steps):
        for k, call in enumerate(step.calls if isinstance(step, CallStep) else []):
            yield from _call_problems(
                case, call, offered.get(call.name), f"$.cases[{index}].steps[{s}].calls[{k}]"
            )


def _call_problems(case: Case, call: ExpectedCall, tool: Tool | None, where: str) -> Iterator[str]:
    if tool is None:
        yield f"{where}.name: {call.name!r} is not a tool case {case.id} offers"
        return
    properties = tool.function.parameters.get("properties", {})
    for m, check in enumerate(call.checks):
        if check.arg not in properties:
            yield f"{where}.checks[{m}].arg: {check.arg!r} is not a parameter of {call.name}"
        elif isinstance(check, Regex):
            try:
                compile_pattern(check.pattern)
            except PatternError as exc:
                yield f"case {case.id}: {where}.checks[{m}]: pattern {check.pattern!r} cannot be used: {exc}"

"""The suite's build check: every rule a published suite must keep, as a list of problems.

A suite is hand-written, and a mistake in it (a check on a misspelt argument, a reference answer
that fails its own checks, a chain step with no scripted result) would silently make a case
unpassable or meaningless, and every score quoted on that version would carry the mistake. So
`lobrec suite check` (and the unit test on the committed suite) refuses a suite that breaks any
rule below. It runs the rules every run needs (`lobrec.core.suite.run_rules`, the one home of those and of
their words) and adds the build rules here. Each problem is one line naming where it is, the one
way `run_rules` names places: suite-level fields, `tools[i]` and `cases[i]` by path, a case's content
by case id and the path inside the case, e.g.

    case sel-03: steps[0].calls[0].checks[1]: argument 'pth' is not a parameter of read_file

The build rules: the header (name, semver version, system prompt); the toolbox (valid unique function
names, parameters an object schema with `additionalProperties: false` that uses only the supported
JSON Schema keywords); the group counts and unique, path-safe case ids; per case, the system prompt
first, a request after it, offered tools that exist, once each; the shape of the steps for the
case's group; every check addressing a parameter of the offered tool with a value that fits its
schema; reference answers that fit the schema and pass the step through the real judge; scripted
results exactly where another step follows. Pure: Suite in, lines out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from lobrec.core.judge.jsonvalue import preview
from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import ObservedCall, Reply
from lobrec.core.metrics.results import StepVerdict
from lobrec.core.suite.format import (
    GROUPS,
    SEMVER,
    CallStep,
    Case,
    Check,
    Eq,
    ExpectedCall,
    Group,
    NoCallStep,
    OneOf,
    Range,
    Regex,
    SampleAnswer,
    Step,
    Subset,
    Suite,
    Tool,
    case_label,
    version_order,
)
from lobrec.core.suite.jsonschema import validate
from lobrec.core.suite.run_rules import call_problems, id_problems, tool_schema_problems, version_problems
from lobrec.core.words import counted

COUNTS_1_0_0: dict[Group, int] = {
    "selection": 14,
    "arguments": 16,
    "near_misses": 12,
    "no_call": 14,
    "parallel": 12,
    "chains": 12,
}
"""Cases per group in suite 1.0.0, as the methodology page states them.

A suite declares its own counts (`Suite.counts`); one that declares none is held to these. Within
major version 1 a declared count may grow but never fall below these: removing cases is a major
change, and scores on a smaller group would not be comparable with 1.0.0's.
"""

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What OpenAI-compatible APIs accept as a function name."""

MAX_CALLS_PER_STEP = 3
MIN_WRONG_ANSWERS = 2
"""From suite 1.1.0 on, each call step carries at least this many wrong answers."""
CHAIN_STEPS = (2, 4)
PARALLEL_CALLS = (2, 3)
ONE_CALL_GROUPS: tuple[Group, ...] = ("selection", "arguments", "near_misses")


def check_suite(
    suite: Suite, counts: Mapping[Group, int] | None = None, floor: Mapping[Group, int] = COUNTS_1_0_0
) -> list[str]:
    """Every rule the suite breaks, one line each, in file order; an empty list means it is sound.

    `counts` is the number of cases each group must have; by default the suite's declared counts, or
    1.0.0's when it declares none (tests pass a small suite's own). `floor` is what a major-1 suite
    may not declare less than (tests of a small suite pass its counts again).
    """
    problems = _check_header(suite)
    usable = _check_tools(suite, problems)
    required = required_counts(suite) if counts is None else counts
    _check_declared_counts(suite, floor, problems)
    _check_groups_and_ids(suite, required, problems)
    for case in suite.cases:
        label = case_label(case.id)
        problems.extend(f"{label}: {line}" for line in _check_case(suite, case, usable))
    return problems


def summary(suite: Suite) -> str:
    """The one-line description of a sound suite: name, version, case counts per group."""
    counts = "/".join(str(sum(1 for case in suite.cases if case.group == group)) for group in GROUPS)
    return f"suite {suite.name} {suite.version}: {counted(len(suite.cases), 'case')}, {counts}, ok"


# --- suite level ---------------------------------------------------------------------------------


def required_counts(suite: Suite) -> dict[Group, int]:
    """The cases per group the suite must have: its declaration, else 1.0.0's (a missing group counts 0)."""
    if suite.counts is None:
        return dict(COUNTS_1_0_0)
    return {group: suite.counts.get(group, 0) for group in GROUPS}


def _check_declared_counts(suite: Suite, floor: Mapping[Group, int], problems: list[str]) -> None:
    if suite.counts is None:
        return
    for group in GROUPS:
        if group not in suite.counts:
            problems.append(f"counts: no count for group {group}")
    if not SEMVER.match(suite.version) or suite.major != 1:
        return
    for group in GROUPS:
        declared = suite.counts.get(group)
        if declared is not None and declared < floor[group]:
            problems.append(
                f"counts: {group} declares {counted(declared, 'case')}, below 1.0.0's {floor[group]}; "
                "removing cases needs a new major version"
            )


def _check_header(suite: Suite) -> list[str]:
    problems = []
    if not suite.name.strip():
        problems.append("name: empty")
    problems.extend(version_problems(suite))
    if not suite.system_prompt.strip():
        problems.append("system_prompt: empty")
    return problems


def _check_tools(suite: Suite, problems: list[str]) -> dict[str, Tool]:
    """Report toolbox problems; return the tools whose schemas can be used to check cases."""
    usable: dict[str, Tool] = {}
    first_index: dict[str, int] = {}
    for index, tool in enumerate(suite.tools):
        name = tool.function.name
        where = f"tools[{index}]"
        if not FUNCTION_NAME.match(name):
            problems.append(f"{where}: name {name!r} is not a valid function name (^[a-zA-Z0-9_-]{{1,64}}$)")
        refused = tool_schema_problems(index, tool)
        problems.extend(refused)
        if name in first_index:
            problems.append(f"{where}: name {name!r} is also tools[{first_index[name]}]")
            continue
        first_index[name] = index
        if refused:
            continue
        schema_problems = _parameter_problems(tool.function.parameters)
        problems.extend(f"{where} ({name}): parameters: {line}" for line in schema_problems)
        if not schema_problems:
            usable[name] = tool
    return usable


def _parameter_problems(parameters: dict[str, Any]) -> list[str]:
    """The build rules of a tool schema the validator accepts (`run_rules` owns the validator's)."""
    problems = []
    if parameters.get("type") != "object":
        problems.append('the top level must be {"type": "object"}')
    if parameters.get("additionalProperties") is not False:
        problems.append("additionalProperties must be false, so that a made-up argument is invalid")
    properties = parameters.get("properties", {})
    problems.extend(
        f"required {name!r} is not one of the properties"
        for name in parameters.get("required", [])
        if name not in properties
    )
    return problems + _empty_enums(parameters)


def _empty_enums(parameters: dict[str, Any]) -> list[str]:
    """`enum: []` is valid JSON Schema, but in a tool it is an authoring mistake: nothing can be sent."""
    problems = []
    stack: list[tuple[Any, str]] = [(parameters, "$")]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("enum") == []:
            problems.append(f"{where}: enum is empty: no value can pass")
        for name, sub in sorted(node.get("properties", {}).items(), reverse=True):
            stack.append((sub, f"{where}.properties.{name}"))
        stack.extend((node[keyword], f"{where}.{keyword}") for keyword in _SUBSCHEMAS if keyword in node)
    return problems


_SUBSCHEMAS = ("items", "additionalProperties")


def _check_groups_and_ids(suite: Suite, counts: Mapping[Group, int], problems: list[str]) -> None:
    for group in GROUPS:
        count = sum(1 for case in suite.cases if case.group == group)
        if count != counts[group]:
            problems.append(f"groups: {group} has {counted(count, 'case')}, expected {counts[group]}")
    problems.extend(id_problems(suite))


# --- one case ------------------------------------------------------------------------------------


def _check_case(suite: Suite, case: Case, usable: dict[str, Tool]) -> list[str]:
    problems: list[str] = []
    if not case.note.strip():
        problems.append("note: empty; say what the case tests and why its answer is the only right one")
    _check_messages(suite, case, problems)
    offered = _check_offered(suite, case, problems)
    _check_step_shape(case, problems)
    for index, step in enumerate(case.steps):
        match step:
            case NoCallStep():
                if not step.answer.strip():
                    problems.append(f"steps[{index}].answer: empty reference reply")
            case CallStep():
                _check_call_step(suite, case, index, offered, usable, problems)
    return problems


def _check_call_step(
    suite: Suite, case: Case, index: int, offered: set[str], usable: dict[str, Tool], problems: list[str]
) -> None:
    """The expected calls of step `index`, then, when their checks are sound, its sample answers."""
    step = case.steps[index]
    assert isinstance(step, CallStep)
    where = f"steps[{index}]"
    is_last = index == len(case.steps) - 1
    sound = True
    tools = {tool.function.name: tool for tool in suite.offered_tools(case) if tool.function.name in offered}
    for position, call in enumerate(step.calls):
        call_where = f"{where}.calls[{position}]"
        sound = _check_call(call, call_where, tools, usable, problems) and sound
        problems.extend(_result_problems(call, call_where, is_last))
    if sound:
        _check_reference(step, index, case, suite, usable, problems)
        _check_samples(step, index, case, suite, usable, problems)
    if _requires_wrong_answers(suite) and len(step.wrong) < MIN_WRONG_ANSWERS:
        problems.append(
            f"{where}.wrong: {len(step.wrong)} wrong answers; every call step needs at least "
            f"{MIN_WRONG_ANSWERS} plausible mistakes the judge must reject"
        )


def _result_problems(call: ExpectedCall, where: str, is_last: bool) -> list[str]:
    """A scripted result is needed exactly where another step follows (it is sent back before it)."""
    if not is_last and call.result is None:
        return [f"{where}: no scripted result, but another step follows"]
    if is_last and call.result is not None:
        return [f"{where}: a scripted result on the last step is never sent"]
    return []


def _check_messages(suite: Suite, case: Case, problems: list[str]) -> None:
    if not case.messages:
        problems.append("messages: empty; the first message must be the system prompt")
        return
    first = case.messages[0]
    if first.role != "system":
        problems.append(f"messages[0]: role is {first.role!r}; the first message must be the system prompt")
    elif first.content != suite.system_prompt:
        problems.append("messages[0]: content is not the suite's system prompt")
    if len(case.messages) < 2:
        problems.append("messages: no request after the system prompt")


def _check_offered(suite: Suite, case: Case, problems: list[str]) -> set[str]:
    """Report problems with case.tools; return the names it offers that exist in the toolbox."""
    if not case.tools:
        problems.append("tools: no tool is offered")
    known = {tool.function.name for tool in suite.tools}
    offered: set[str] = set()
    for index, name in enumerate(case.tools):
        if name not in known:
            problems.append(f"tools[{index}]: {name!r} is not in the suite's toolbox")
        elif name in offered:
            problems.append(f"tools[{index}]: {name!r} is offered twice")
        else:
            offered.add(name)
    return offered


def _check_step_shape(case: Case, problems: list[str]) -> None:
    steps = case.steps
    if not steps:
        problems.append("steps: no steps")
        return
    problems.extend(_step_count_problems(case))
    for index, step in enumerate(steps):
        problems.extend(_step_problems(f"steps[{index}]", step, is_last=index == len(steps) - 1))
    problems.extend(_first_step_problems(case.group, steps[0]))


def _step_count_problems(case: Case) -> list[str]:
    count = len(case.steps)
    if case.group == "chains":
        low, high = CHAIN_STEPS
        return (
            []
            if low <= count <= high
            else [f"steps: a chain has {low} to {high} steps, this one has {count}"]
        )
    return (
        []
        if count == 1
        else [f"steps: a case in group {case.group} has exactly 1 step, this one has {count}"]
    )


def _step_problems(where: str, step: Step, is_last: bool) -> list[str]:
    if isinstance(step, NoCallStep):
        return [] if is_last else [f"{where}: a no-call step must be the last step"]
    if not step.calls:
        return [f"{where}.calls: a call step expects at least one call"]
    if len(step.calls) > MAX_CALLS_PER_STEP:
        return [f"{where}.calls: {len(step.calls)} calls in one response; at most {MAX_CALLS_PER_STEP}"]
    return []


def _first_step_problems(group: Group, first: Step) -> list[str]:
    """The shape each group asks of its (first) step: no call, two or three calls, or exactly one."""
    problems = []
    if group == "no_call" and not isinstance(first, NoCallStep):
        problems.append("steps[0]: a no_call case's step must expect no call")
    if group == "parallel":
        problems.extend(_parallel_problems(first))
    if group in ONE_CALL_GROUPS and not (isinstance(first, CallStep) and len(first.calls) == 1):
        problems.append(f"steps[0]: a case in group {group} must expect exactly one call")
    return problems


def _parallel_problems(first: Step) -> list[str]:
    low, high = PARALLEL_CALLS
    if not isinstance(first, CallStep):
        return [f"steps[0]: a parallel case's step must expect {low} or {high} calls"]
    if not low <= len(first.calls) <= high:
        return [f"steps[0].calls: a parallel case expects {low} or {high} calls, this one {len(first.calls)}"]
    return []


# --- one expected call ---------------------------------------------------------------------------


def _check_call(
    call: ExpectedCall, where: str, offered: dict[str, Tool], usable: dict[str, Tool], problems: list[str]
) -> bool:
    """Report problems with one expected call; True when its checks are sound enough to judge with.

    The run rules come first (`runnable.call_problems`: an offered tool, known arguments, patterns
    that compile). A broken check is the thing to fix; judging the reference answer against it would
    only repeat the problem, or fail to compile.
    """
    broken = list(call_problems(call, offered.get(call.name), where))
    problems.extend(broken)
    if call.name not in offered:
        return True
    tool = usable.get(call.name)
    if tool is None or tool is not offered[call.name] or broken:
        return False  # a broken schema or a second tool of that name, reported under tools[i]
    parameters = tool.function.parameters
    properties: dict[str, Any] = parameters.get("properties", {})
    sound = True
    for index, check in enumerate(call.checks):
        check_where = f"{where}.checks[{index}]"
        lines = _check_value(check, properties[check.arg])
        problems.extend(f"{check_where}: {line}" for line in lines)
        sound = sound and not lines
    for error in validate(parameters, call.answer):
        problems.append(f"{where}.answer: does not fit the schema of {call.name}: {error}")
    return sound


def _check_value(check: Check, schema: Any) -> list[str]:
    """Problems with a check's own value against its argument's schema (never the model's value)."""
    arg = check.arg
    match check:
        case Eq(value=value):
            return [] if value is None else _fits(schema, value, arg, "value")
        case OneOf(values=values):
            return _one_of_problems(schema, values, arg)
        case Subset(value=dict() as value):
            return _subset_object(schema, value, arg)
        case Subset(value=list() as value):
            return _subset_array(schema, value, arg)
        case Regex():
            return []  # whether it compiles is a run rule (`runnable.call_problems`)
        case Range(min=low, max=high):
            return _range_problems(low, high)
        case _:
            return []


def _one_of_problems(schema: Any, values: list[Any], arg: str) -> list[str]:
    lines = []
    for index, value in enumerate(values):
        if value is not None:  # null stands for "left out", which the schema does not judge
            lines.extend(_fits(schema, value, arg, f"values[{index}]"))
    return lines


def _range_problems(low: float | None, high: float | None) -> list[str]:
    if low is not None and high is not None and low > high:
        return [f"range is empty: min {low:g} is greater than max {high:g}"]
    return []


def _fits(schema: Any, value: Any, arg: str, label: str) -> list[str]:
    return [
        f"{label} {preview(value)} does not fit the schema: {_relabel(error, arg)}"
        for error in validate(schema, value)
    ]


def _relabel(error: str, prefix: str) -> str:
    """Turn the validator's `$`-rooted path into one rooted at the argument (`$.a[0]` -> `arg.a[0]`)."""
    return prefix + error[1:] if error.startswith("$") else error


def _takes(schema: Any, json_type: str) -> bool:
    if not isinstance(schema, dict) or "type" not in schema:
        return True
    declared = schema["type"]
    return json_type == declared if isinstance(declared, str) else json_type in declared


def _subset_object(schema: Any, value: dict[str, Any], arg: str) -> list[str]:
    if not _takes(schema, "object"):
        return [f"subset lists an object, but argument {arg!r} does not take objects"]
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    additional = schema.get("additionalProperties", True) if isinstance(schema, dict) else True
    lines = []
    for key, item in value.items():
        if key in properties:
            lines.extend(_fits(properties[key], item, f"{arg}.{key}", "value"))
        elif additional is False:
            lines.append(f"key {key!r} is not a property of argument {arg!r}")
        elif isinstance(additional, dict):
            lines.extend(_fits(additional, item, f"{arg}.{key}", "value"))
    return lines


def _subset_array(schema: Any, value: list[Any], arg: str) -> list[str]:
    if not _takes(schema, "array"):
        return [f"subset lists an array, but argument {arg!r} does not take arrays"]
    items = schema.get("items") if isinstance(schema, dict) else None
    if items is None:
        return []
    lines = []
    for index, item in enumerate(value):
        lines.extend(_fits(items, item, f"{arg}[]", f"value[{index}]"))
    return lines


# --- reference answers through the real judge ----------------------------------------------------


def sample_reply(calls: list[tuple[str, dict[str, Any]]], model: str = "reference") -> Reply:
    """The reply that makes exactly these calls, in order, as a model would send them."""
    observed = []
    for index, (name, arguments) in enumerate(calls):
        text = json.dumps(arguments, ensure_ascii=False)
        raw = {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": text}}
        observed.append(
            ObservedCall(
                index=index, id=f"call_{index}", name=name, arguments_text=text, arguments=arguments, raw=raw
            )
        )
    return Reply(model=model, content=None if observed else "(a text answer)", calls=observed)


def reference_reply(step: CallStep) -> Reply:
    """The reply a perfect model would send for a call step: one call per expected call, in order."""
    return sample_reply([(call.name, call.answer) for call in step.calls])


def _requires_wrong_answers(suite: Suite) -> bool:
    if not SEMVER.match(suite.version):
        return False
    return version_order(suite.version)[:2] >= (1, 1)


def _check_samples(
    step: CallStep, index: int, case: Case, suite: Suite, usable: dict[str, Tool], problems: list[str]
) -> None:
    """Alternates must pass the step and wrong answers must fail it, judged by the real judge."""
    offered = suite.offered_tools(case)
    if any(tool.function.name not in usable for tool in offered):
        return
    for kind, samples in (("alternates", step.alternates), ("wrong", step.wrong)):
        for position, sample in enumerate(samples):
            where = f"steps[{index}].{kind}[{position}]"
            if not sample.why.strip():
                problems.append(f"{where}.why: empty; say in one line what this answer gets wrong or right")
            reply = sample_reply([(call.name, call.arguments) for call in sample.calls], model=kind)
            verdict = judge_step(step, reply, offered, index)
            problems.extend(_sample_verdict_problems(where, kind, sample, verdict))


def _sample_verdict_problems(where: str, kind: str, sample: SampleAnswer, verdict: StepVerdict) -> list[str]:
    if kind == "alternates" and not verdict.passed:
        reasons = "; ".join(mismatch.reason for mismatch in verdict.mismatches)
        return [f"{where}: the alternate answer fails the judge: {reasons}"]
    if kind == "wrong" and verdict.passed:
        return [f"{where}: the wrong answer passes the judge ({sample.why})"]
    return []


def _check_reference(
    step: CallStep, index: int, case: Case, suite: Suite, usable: dict[str, Tool], problems: list[str]
) -> None:
    offered = suite.offered_tools(case)
    if not step.calls or any(tool.function.name not in usable for tool in offered):
        return  # nothing to judge, or a broken schema the judge cannot validate against
    verdict = judge_step(step, reference_reply(step), offered, index)
    if verdict.passed:
        return
    for mismatch in verdict.mismatches:
        problems.append(
            f"steps[{index}].{mismatch.path}: the reference answer fails the judge: {mismatch.reason} "
            f"(expected {mismatch.expected}, got {preview(mismatch.got)})"
        )

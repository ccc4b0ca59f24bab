"""Judging one step: the model's reply against what the step expects.

The rule: a no-call step passes when the reply has no tool calls. A call step passes when the names
called equal the names expected as a multiset, every call's arguments parse as a JSON object, and
the calls can be paired one to one with the expected calls so that every argument check holds.

The judge never raises on a model's reply; whatever the model sent becomes a verdict with reasons.
Schema validity is recorded per call for the valid-arguments metric, but it does not decide the step:
the checks do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from lobrec.core.judge.jsonvalue import preview
from lobrec.core.judge.matching import maximum_matching, perfect_matching, same_multiset
from lobrec.core.judge.wire import ObservedCall, Reply
from lobrec.core.memo import per_object
from lobrec.core.metrics.results import CallRecord, Mismatch, StepVerdict
from lobrec.core.suite.checks import failed_checks
from lobrec.core.suite.format import CallStep, ExpectedCall, FunctionSpec, NoCallStep, Step, Tool
from lobrec.core.suite.jsonschema import validator

NO_NAME = "<no name>"


@per_object
def _validator(function: FunctionSpec) -> Callable[[object], list[str]]:
    """The tool's parameters schema compiled once per tool object (judging asks per call)."""
    return validator(function.parameters)


def _call_record(call: ObservedCall, schemas: dict[str, FunctionSpec]) -> CallRecord:
    arguments = call.arguments_text if call.arguments_text is not None else _raw_arguments(call)
    quirks = list(call.quirks)
    if call.name is None or call.name not in schemas:
        return CallRecord(
            name=call.name, arguments=arguments, offered=False, schema_valid=None, quirks=quirks
        )
    if call.arguments is None:
        problem = call.problem or "arguments did not parse"
        return CallRecord(
            name=call.name,
            arguments=arguments,
            offered=True,
            schema_valid=False,
            schema_errors=[problem],
            quirks=quirks,
        )
    errors = _validator(schemas[call.name])(call.arguments)
    return CallRecord(
        name=call.name,
        arguments=arguments,
        offered=True,
        schema_valid=not errors,
        schema_errors=errors,
        quirks=quirks,
    )


def _raw_arguments(call: ObservedCall) -> str | None:
    if isinstance(call.raw, dict) and isinstance(call.raw.get("function"), dict):
        value = call.raw["function"].get("arguments")
        return None if value is None else preview(value, limit=2000)
    return None if call.raw is None else preview(call.raw, limit=2000)


def call_records(reply: Reply, offered: list[Tool]) -> list[CallRecord]:
    """Every call the model made, with offered/schema facts; a malformed `tool_calls` is one nameless call."""
    schemas = {tool.function.name: tool.function for tool in offered}
    records = [_call_record(call, schemas) for call in reply.calls]
    if reply.tool_calls_problem is not None:
        records.append(
            CallRecord(
                name=None,
                arguments=None,
                offered=False,
                schema_valid=None,
                schema_errors=[reply.tool_calls_problem],
            )
        )
    return records


def _times(count: int) -> str:
    return "" if count == 1 else f" {count} times"


def _name_mismatches(expected: list[str], called: list[str | None]) -> list[Mismatch]:
    wanted: Counter[str | None] = Counter(expected)
    made: Counter[str | None] = Counter(called)
    mismatches = [
        Mismatch(
            path="names",
            expected=name,
            got=None,
            reason=f"expected a call to {name}{_times(count)}, not made",
        )
        for name, count in sorted((wanted - made).items(), key=lambda item: str(item[0]))
    ]
    for name, count in sorted((made - wanted).items(), key=lambda item: str(item[0])):
        label = NO_NAME if name is None else name
        mismatches.append(
            Mismatch(
                path="names", expected=None, got=label, reason=f"unexpected call to {label}{_times(count)}"
            )
        )
    return mismatches


def _judge_no_call(step_index: int, reply: Reply, records: list[CallRecord]) -> StepVerdict:
    mismatches = []
    if records:
        names = [NO_NAME if record.name is None else record.name for record in records]
        mismatches.append(
            Mismatch(
                path="tool_calls",
                expected="no tool call",
                got=names,
                reason="called " + ", ".join(names) + " when no call was needed",
            )
        )
    return StepVerdict(
        index=step_index,
        expects="no_call",
        passed=not records,
        names_match=not records,
        expected_names=[],
        calls=records,
        content=reply.content,
        mismatches=mismatches,
        quirks=list(reply.quirks),
    )


def _reply_problems(reply: Reply, expected_names: list[str], names_match: bool) -> list[Mismatch]:
    """What keeps the reply from being paired at all: no reply, a malformed `tool_calls`, the wrong
    names, arguments that did not parse."""
    mismatches: list[Mismatch] = []
    if reply.withheld is not None:
        mismatches.append(Mismatch(path="message", expected="a reply", got=None, reason=reply.withheld))
    if reply.tool_calls_problem is not None:
        mismatches.append(
            Mismatch(
                path="tool_calls", expected="a list of tool calls", got=None, reason=reply.tool_calls_problem
            )
        )
    elif not names_match:
        mismatches.extend(_name_mismatches(expected_names, [call.name for call in reply.calls]))
    mismatches.extend(
        Mismatch(
            path=f"calls[{call.index}].arguments",
            expected="a JSON object",
            got=call.arguments_text,
            reason=call.problem or "arguments did not parse",
        )
        for call in reply.calls
        if call.arguments is None
    )
    return mismatches


def _pairing(
    expected: list[ExpectedCall], observed: list[ObservedCall]
) -> tuple[list[int] | None, list[Mismatch]]:
    """A pairing under which every check holds, or None and why each unpaired expected call failed."""
    failures = {
        (i, j): failed_checks(want.checks, got.arguments or {}) if want.name == got.name else None
        for i, want in enumerate(expected)
        for j, got in enumerate(observed)
    }
    pairing = perfect_matching(len(expected), len(observed), lambda i, j: failures[i, j] == [])
    if pairing is not None:
        return pairing, []
    return None, _explain_unpaired([call.name for call in expected], observed, failures)


def _judge_calls(step_index: int, step: CallStep, reply: Reply, records: list[CallRecord]) -> StepVerdict:
    expected_names = [call.name for call in step.calls]
    names_match = reply.tool_calls_problem is None and same_multiset(
        expected_names, [call.name for call in reply.calls]
    )
    pairing: list[int] | None = None
    mismatches = _reply_problems(reply, expected_names, names_match)
    if not mismatches:
        pairing, mismatches = _pairing(step.calls, reply.calls)
    return StepVerdict(
        index=step_index,
        expects="call",
        passed=pairing is not None,
        names_match=names_match,
        expected_names=expected_names,
        calls=records,
        content=reply.content,
        mismatches=mismatches,
        pairing=pairing or [],
        quirks=list(reply.quirks),
    )


def _explain_unpaired(
    expected_names: list[str],
    observed: list[ObservedCall],
    failures: dict[tuple[int, int], list[Mismatch] | None],
) -> list[Mismatch]:
    """For each expected call no full pairing could serve, the closest call's failed checks."""
    partial = maximum_matching(len(expected_names), len(observed), lambda i, j: failures[i, j] == [])
    mismatches: list[Mismatch] = []
    for i, paired in enumerate(partial):
        if paired is not None:
            continue
        candidates = [(len(f), j, f) for (ei, j), f in failures.items() if ei == i and f is not None]
        if not candidates:
            continue
        _, j, failed = min(candidates, key=lambda item: (item[0], item[1]))
        if not failed:
            mismatches.append(
                Mismatch(
                    path=f"calls[{j}]",
                    expected=expected_names[i],
                    got=observed[j].name,
                    reason=f"{expected_names[i]} call {i + 1}: its only match is "
                    "already paired with another expected call",
                )
            )
            continue
        for mismatch in failed:
            mismatches.append(
                Mismatch(
                    path=f"calls[{j}].{mismatch.path}",
                    expected=mismatch.expected,
                    got=mismatch.got,
                    reason=f"{expected_names[i]}: {mismatch.reason}",
                    check=mismatch.check,
                    argument=mismatch.argument,
                )
            )
    return mismatches


def judge_step(step: Step, reply: Reply, offered: list[Tool], index: int) -> StepVerdict:
    """The verdict for one step; `offered` are the tools the case sent (for made-up/valid metrics)."""
    records = call_records(reply, offered)
    match step:
        case NoCallStep():
            return _judge_no_call(index, reply, records)
        case CallStep():
            return _judge_calls(index, step, reply, records)

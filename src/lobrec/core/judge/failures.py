"""Why a step failed: one kind per failed step, from its verdict alone.

A failing step already lists its mismatches; a model builder wants the pattern ("it calls tools
when it should answer", "its dates are wrong"), so every failed step of a scored case gets one kind
from a closed set (`FailureKind`, documented in docs/metrics.md, "Failure kinds"). When several
apply, the first in `FAILURE_KINDS` wins: what the reply is (withheld, malformed), then whether a
call was due, then which tools, then how many, then the arguments' form, then their values. The
only fact beyond the verdict is which tools the case's later steps expect, which is what tells a
chain's premature call from an extra one.

Errored cases are not classified: their `reason` is an infrastructure failure, shown apart.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from typing import get_args

import msgspec

from lobrec.core.judge.wire import loads_json
from lobrec.core.metrics.results import CaseResult, FailureKind, StepVerdict
from lobrec.core.suite.format import CallStep, Case

FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)
"""Every kind, in precedence order (and the order of a model's `failures`)."""

_ARGUMENTS = re.compile(r"calls\[(\d+)\]\.arguments")
_CHECKED = re.compile(r"calls\[\d+\]\.arguments\.(.+)", re.DOTALL)
_PAIRED = re.compile(r"calls\[\d+\]")


class StepFailure(msgspec.Struct, frozen=True, kw_only=True):
    """A failed step's kind; `argument` and `check` name the failed check for `argument_check`."""

    kind: FailureKind
    argument: str | None = None
    check: str | None = None


def _parses(text: str | None) -> bool:
    if text is None:
        return False
    try:
        loads_json(text)  # the judge's reading: `{"a": NaN}` is not JSON, as its mismatch says
    except ValueError:
        return False
    except RecursionError:  # nested past Python's limit: JSON unless it opens as the object it isn't
        return not text.lstrip().startswith("{")
    return True


def _names(verdict: StepVerdict, later: Collection[str]) -> FailureKind | None:
    """Which tools were called against which were expected: made up, a later step's, too few, too
    many or others; None when the names match."""
    called = Counter(call.name for call in verdict.calls)
    expected: Counter[str | None] = Counter(verdict.expected_names)
    missing, extra = expected - called, called - expected
    if any(not call.offered and call.name not in expected for call in verdict.calls):
        return "made_up_tool"
    if any(name in later for name in extra):
        return "premature_chain_call"
    if not extra:
        return "missing_parallel_call" if missing else None
    return "wrong_tool" if missing else "extra_call"


def _arguments(verdict: StepVerdict) -> FailureKind | None:
    """A call whose arguments are not a JSON object: not JSON at all, or JSON of another type."""
    unparsed = [
        int(match.group(1))
        for mismatch in verdict.mismatches
        if mismatch.check is None and (match := _ARGUMENTS.fullmatch(mismatch.path))
    ]
    if not unparsed:
        return None
    texts = [verdict.calls[i].arguments if i < len(verdict.calls) else None for i in unparsed]
    return "arguments_not_json" if any(not _parses(text) for text in texts) else "arguments_not_object"


def _reply(verdict: StepVerdict) -> FailureKind | None:
    """What the failed reply is, before its calls are looked at: withheld, a call where none was
    due, malformed calls, or no call at all."""
    if any(mismatch.path == "message" for mismatch in verdict.mismatches):
        return "reply_withheld"
    if verdict.expects == "no_call":
        return "call_not_needed" if verdict.calls else "other"
    malformed = any(mismatch.path == "tool_calls" for mismatch in verdict.mismatches)
    if malformed or any(call.name is None for call in verdict.calls):
        return "malformed_tool_calls"
    return None if verdict.calls else "no_call"


def _values(verdict: StepVerdict) -> StepFailure:
    """A failure among calls of the right tools with object arguments: a failed argument check
    (named), a call paired twice, or `other`."""
    for mismatch in verdict.mismatches:
        if mismatch.check is not None:
            return StepFailure(kind="argument_check", argument=mismatch.argument, check=mismatch.check)
        if (match := _CHECKED.fullmatch(mismatch.path)) is not None:  # a file from before `check`
            return StepFailure(kind="argument_check", argument=match.group(1))
    if any(_PAIRED.fullmatch(mismatch.path) for mismatch in verdict.mismatches):
        return StepFailure(kind="duplicate_call")
    return StepFailure(kind="other")


def classify_step(verdict: StepVerdict, later: Collection[str] = ()) -> StepFailure | None:
    """The failure kind of a step's verdict; None when it passed.

    `later` holds the tool names the case's later steps expect (empty outside chains). Never raises:
    a verdict no rule explains is `other`.
    """
    if verdict.passed:
        return None
    kind = _reply(verdict) or _names(verdict, later) or _arguments(verdict)
    return _values(verdict) if kind is None else StepFailure(kind=kind)


def _later_names(case: Case, index: int) -> set[str]:
    later = case.steps[index + 1 :]
    return {call.name for step in later if isinstance(step, CallStep) for call in step.calls}


def broke_at(case: Case, result: CaseResult) -> int | None:
    """The step where a failed scored chain broke: the first with no passing verdict."""
    if result.status != "scored" or len(case.steps) < 2 or result.passed:
        return None
    verdicts = {verdict.index: verdict for verdict in result.steps}
    return next(
        (i for i in range(len(case.steps)) if i not in verdicts or not verdicts[i].passed),
        None,
    )


def annotate_case(case: Case | None, result: CaseResult) -> CaseResult:
    """The case with a kind on each failed step and, for a chain, `broke_at`; errored, stale and
    unrecorded cases (and cases the suite does not know) come back unchanged."""
    if result.status != "scored" or case is None:
        return result
    steps = []
    for verdict in result.steps:
        failure = classify_step(verdict, _later_names(case, verdict.index))
        steps.append(
            verdict
            if failure is None
            else msgspec.structs.replace(
                verdict,
                failure_kind=failure.kind,
                failure_argument=failure.argument,
                failure_check=failure.check,
            )
        )
    return msgspec.structs.replace(result, steps=steps, broke_at=broke_at(case, result))


def count_failures(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    """Counts by kind summed (over runs), in precedence order, kinds with none left out."""
    total: Counter[str] = Counter()
    for count in counts:
        total.update(count)
    return {kind: total[kind] for kind in FAILURE_KINDS if total[kind]}


UNCLASSIFIED = "unclassified"
"""The kind `failed_step_kinds` gives a failed step that has none: read from a results file written
before failure kinds existed."""


KIND_LABELS: dict[str, str] = {
    "reply_withheld": "withheld",
    "call_not_needed": "needless call",
    "malformed_tool_calls": "malformed",
    "no_call": "no call",
    "made_up_tool": "made-up tool",
    "premature_chain_call": "chain early",
    "missing_parallel_call": "parallel short",
    "extra_call": "extra call",
    "wrong_tool": "wrong tool",
    "arguments_not_json": "args not JSON",
    "arguments_not_object": "args not object",
    "argument_check": "arg check",
    "duplicate_call": "duplicate",
    "other": "other",
    UNCLASSIFIED: "unclassified",
}
"""Each kind's one human label, for every format a person reads (terminal, Markdown, HTML, the CI
summary, `lobrec diff`, JUnit messages); the data formats (JSON, CSV, JSONL) keep the id, a
contract. The kinds themselves are in docs/metrics.md."""


def kind_label(kind: str) -> str:
    """A failure kind as a person reads it (an id no table knows, from a newer file, as it is)."""
    return KIND_LABELS.get(kind, kind)


def failed_step_kinds(cases: Iterable[CaseResult]) -> dict[str, int]:
    """Every failed step of the scored cases by kind, in precedence order, `unclassified` last.

    Unlike `failure_counts` it accounts for every failed step, so comparing an older results file
    with a newer one does not read as the older model failing less.
    """
    found = Counter(
        step.failure_kind or UNCLASSIFIED
        for case in cases
        if case.status == "scored"
        for step in case.steps
        if not step.passed
    )
    return {kind: found[kind] for kind in (*FAILURE_KINDS, UNCLASSIFIED) if found[kind]}


def failure_counts(cases: Iterable[CaseResult]) -> dict[str, int]:
    """A model's failed steps of scored cases, counted by kind (the classified ones)."""
    return {kind: n for kind, n in failed_step_kinds(cases).items() if kind != UNCLASSIFIED}


__all__ = [
    "FAILURE_KINDS",
    "KIND_LABELS",
    "UNCLASSIFIED",
    "StepFailure",
    "annotate_case",
    "broke_at",
    "classify_step",
    "count_failures",
    "failed_step_kinds",
    "failure_counts",
    "kind_label",
]

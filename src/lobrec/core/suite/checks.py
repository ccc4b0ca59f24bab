"""Argument checks: each kind tests what the request asked for, not the model's wording.

One function per kind, dispatched by the table `_FAILURES` (a test fails when a kind has none).
Every comparison is a JSON comparison (`json_equal`), and an argument whose value is null counts as
left out, for every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from lobrec.core.judge.jsonvalue import is_number, json_equal, json_type, preview
from lobrec.core.metrics.results import Mismatch
from lobrec.core.suite.ecma import EcmaPattern, PatternError, compile_ecma
from lobrec.core.suite.format import Absent, Check, Contains, Eq, OneOf, Present, Range, Regex, Subset

_MISSING = object()


def compile_pattern(pattern: str) -> EcmaPattern:
    """A check's regex: the schema's ECMA-262 dialect (`$` is the end of the string, never before a
    final newline), case-insensitive (Unicode simple case folding, as ECMA's `i` flag with `u`),
    searched anywhere in the string, in linear time. Raises PatternError."""
    return compile_ecma(pattern, ignore_case=True)


def describe(check: Check) -> str:
    """The check as a person would write it, for expected-vs-got messages."""
    match check:
        case Eq(value=value):
            return f"= {preview(value)}"
        case Subset(value=value):
            return f"includes {preview(value)}"
        case Regex(pattern=pattern):
            return f"matches /{pattern}/i"
        case OneOf(values=values):
            return "one of " + ", ".join(preview(v) for v in values)
        case Contains(value=value):
            return f"contains {preview(value)}"
        case Present():
            return "present"
        case Absent():
            return "absent"
        case Range():
            return _range_text(check)
        case _:
            assert_never(check)


def _range_text(check: Range) -> str:
    low = "-inf" if check.min is None else f"{check.min:g}"
    high = "+inf" if check.max is None else f"{check.max:g}"
    return f"a number in [{low}, {high}]" + (", or left out" if check.optional else "")


# --- one function per kind: why `got` fails the check, or None when it holds ----------------------
#
# `got` is _MISSING when the argument is left out (or null).


def _eq(check: Eq, got: Any) -> str | None:
    if check.value is None:
        return None if got is _MISSING else "should be left out"
    if got is _MISSING:
        return "missing"
    return None if json_equal(got, check.value) else "not equal"


def _object_includes(got: Any, wanted: dict[str, Any]) -> str | None:
    if not isinstance(got, dict):
        return f"expected an object, got {json_type(got)}"
    # A listed key must be there: `got.get` would let a missing key stand in for null.
    for key, value in wanted.items():
        if key not in got:
            return f"key {key!r} is missing, expected {preview(value)}"
        if not json_equal(got[key], value):
            return f"key {key!r} is {preview(got[key])}, expected {preview(value)}"
    return None


def _array_includes(got: list[Any], wanted: list[Any]) -> bool:
    """Every wanted item is matched by a distinct equal item (greedy is exact for an equivalence)."""
    unused = list(got)
    for item in wanted:
        for position, candidate in enumerate(unused):
            if json_equal(candidate, item):
                del unused[position]
                break
        else:
            return False
    return True


def _subset(check: Subset, got: Any) -> str | None:
    if got is _MISSING:
        return "missing"
    if isinstance(check.value, dict):
        return _object_includes(got, check.value)
    if not isinstance(got, list):
        return f"expected an array, got {json_type(got)}"
    return None if _array_includes(got, check.value) else "does not include every listed item"


def _regex(check: Regex, got: Any) -> str | None:
    if got is _MISSING:
        return "missing"
    if not isinstance(got, str):
        return f"expected a string, got {json_type(got)}"
    try:
        compiled = compile_pattern(check.pattern)
    # Only a hand-edited, unchecked suite gets here: `suite check` rejects the pattern.
    except PatternError as exc:
        return f"the check's pattern /{check.pattern}/ is invalid: {exc}"
    return None if compiled.search(got) else "does not match"


def _one_of(check: OneOf, got: Any) -> str | None:
    if got is _MISSING:
        return None if any(v is None for v in check.values) else "missing"
    return None if any(json_equal(got, v) for v in check.values) else "not one of the allowed values"


def _contains(check: Contains, got: Any) -> str | None:
    if got is _MISSING:
        return "missing"
    if not isinstance(got, str):
        return f"expected a string, got {json_type(got)}"
    return None if check.value.casefold() in got.casefold() else "does not contain it"


def _present(check: Present, got: Any) -> str | None:
    return "missing" if got is _MISSING else None


def _absent(check: Absent, got: Any) -> str | None:
    return None if got is _MISSING else "should be left out"


def _range(check: Range, got: Any) -> str | None:
    if got is _MISSING:
        return None if check.optional else "missing"
    if not is_number(got):
        return f"expected a number, got {json_type(got)}"
    low, high = check.min, check.max
    if (low is not None and got < low) or (high is not None and got > high) or got != got:
        return "out of range"
    return None


_FAILURES: dict[type[Check], Callable[[Any, Any], str | None]] = {
    Eq: _eq,
    Subset: _subset,
    Regex: _regex,
    OneOf: _one_of,
    Contains: _contains,
    Present: _present,
    Absent: _absent,
    Range: _range,
}
"""Each kind's rule: why `got` fails the check, or None when it holds (`got` is _MISSING when left
out). Every kind of `Check` has one: tests/suite/test_checks.py pins it."""


def check_kind(check: Check) -> str:
    """The check's tag in the suite file (`eq`, `regex`, `oneOf`...)."""
    tag = type(check).__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def run_check(check: Check, arguments: dict[str, Any]) -> Mismatch | None:
    """Apply one check to a call's parsed arguments; a Mismatch says why it failed."""
    value = arguments.get(check.arg)
    got = _MISSING if value is None else value
    reason = _FAILURES[type(check)](check, got)
    if reason is None:
        return None
    return Mismatch(
        path=f"arguments.{check.arg}",
        expected=describe(check),
        got=None if got is _MISSING else got,
        reason=f"{check.arg}: {reason}",
        check=check_kind(check),
        argument=check.arg,
    )


def failed_checks(checks: list[Check], arguments: dict[str, Any]) -> list[Mismatch]:
    return [m for m in (run_check(check, arguments) for check in checks) if m is not None]

"""One table per check kind: a check, the call's arguments, and the verdict (None = holds)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from lobrec.core.suite.checks import _FAILURES, describe, run_check
from lobrec.core.suite.format import Absent, Check, Contains, Eq, OneOf, Present, Range, Regex, Subset

# (check, arguments, expected failure reason or None)
TABLE: list[tuple[Check, dict[str, Any], str | None]] = [
    # eq: JSON equality
    (Eq(arg="n", value=1), {"n": 1}, None),
    (Eq(arg="n", value=1), {"n": 1.0}, None),
    (Eq(arg="n", value=1), {"n": True}, "n: not equal"),
    (Eq(arg="b", value=True), {"b": 1}, "b: not equal"),
    (Eq(arg="n", value=1), {}, "n: missing"),
    (Eq(arg="n", value=1), {"n": None}, "n: missing"),
    (Eq(arg="p", value="src/app.py"), {"p": "src/app.py"}, None),
    (Eq(arg="p", value="src/app.py"), {"p": "src/App.py"}, "p: not equal"),
    (Eq(arg="o", value={"a": [1, 2]}), {"o": {"a": [1.0, 2]}}, None),
    (Eq(arg="o", value={"a": [1, 2]}), {"o": {"a": [2, 1]}}, "o: not equal"),
    (Eq(arg="o", value=None), {}, None),
    (Eq(arg="o", value=None), {"o": None}, None),
    (Eq(arg="o", value=None), {"o": 0}, "o: should be left out"),
    # subset on objects and arrays
    (Subset(arg="o", value={"a": 1}), {"o": {"a": 1.0, "b": 2}}, None),
    (Subset(arg="o", value={"a": 1}), {"o": {"b": 2}}, "o: key 'a' is missing, expected 1"),
    # a listed null is a value the key must have, not leave to chance
    (Subset(arg="o", value={"a": None}), {"o": {"a": None, "b": 2}}, None),
    (Subset(arg="o", value={"a": None}), {"o": {"b": 2}}, "o: key 'a' is missing, expected null"),
    (
        Subset(arg="w", value={"name": "Acme Corp", "archived_at": None}),
        {"w": {"name": "Acme Corp"}},
        "w: key 'archived_at' is missing, expected null",
    ),
    (Subset(arg="o", value={"a": None}), {"o": {"a": 0}}, "o: key 'a' is 0, expected null"),
    (Subset(arg="o", value={"a": 1}), {"o": [1]}, "o: expected an object, got array"),
    (Subset(arg="l", value=["x", "y"]), {"l": ["y", "z", "x"]}, None),
    (Subset(arg="l", value=["x", "x"]), {"l": ["x", "y"]}, "l: does not include every listed item"),
    (Subset(arg="l", value=["x", "x"]), {"l": ["x", "x"]}, None),
    (Subset(arg="l", value=[1]), {"l": [True]}, "l: does not include every listed item"),
    (Subset(arg="l", value=[]), {"l": []}, None),
    (Subset(arg="l", value=["x"]), {"l": "x"}, "l: expected an array, got string"),
    (Subset(arg="l", value=["x"]), {}, "l: missing"),
    # regex: unanchored, case-insensitive, strings only
    (Regex(arg="s", pattern="resolv"), {"s": "Issue RESOLVED today"}, None),
    (Regex(arg="s", pattern="^#?42$"), {"s": "#42"}, None),
    (Regex(arg="s", pattern="^#?42$"), {"s": "#421"}, "s: does not match"),
    (Regex(arg="s", pattern="4"), {"s": 4}, "s: expected a string, got integer"),
    # regex: the schema's ECMA-262 dialect; `$` is the end, not the place before a final newline
    (Regex(arg="d", pattern="^2026-10-23T08:30(:00)?Z?$"), {"d": "2026-10-23T08:30"}, None),
    (Regex(arg="d", pattern="^2026-10-23T08:30(:00)?Z?$"), {"d": "2026-10-23T08:30\n"}, "d: does not match"),
    (
        Regex(arg="p", pattern="^src/webapp/migrations/?$"),
        {"p": "src/webapp/migrations\n"},
        "p: does not match",
    ),
    (Regex(arg="s", pattern="^a\\nb$"), {"s": "a\nb\n"}, "s: does not match"),
    (Regex(arg="s", pattern="^\\d+$"), {"s": "\u0663"}, "s: does not match"),
    (Regex(arg="s", pattern="^a.b$"), {"s": "a\rb"}, "s: does not match"),
    (Regex(arg="s", pattern="^\\s$"), {"s": "\x1c"}, "s: does not match"),
    (Regex(arg="s", pattern="^\\s$"), {"s": "\ufeff"}, None),
    (Regex(arg="s", pattern="(?<y>\\d{4})-(?<m>\\d{2})"), {"s": "2026-10"}, None),
    (Regex(arg="s", pattern="é"), {"s": "É"}, None),  # Unicode letters fold, as ECMA's `i` flag
    (Regex(arg="s", pattern="(?-i:MAX_RETRIES)"), {"s": "max_retries"}, "s: does not match"),
    (Regex(arg="s", pattern="x"), {}, "s: missing"),
    (
        Regex(arg="s", pattern="(x"),
        {"s": "x"},
        "s: the check's pattern /(x/ is invalid: missing ), unterminated group",
    ),
    # oneOf: null also accepts leaving it out
    (OneOf(arg="d", values=["2026-10-23", "2026-10-30"]), {"d": "2026-10-30"}, None),
    (
        OneOf(arg="d", values=["2026-10-23", "2026-10-30"]),
        {"d": "2026-10-24"},
        "d: not one of the allowed values",
    ),
    (OneOf(arg="d", values=["a", None]), {}, None),
    (OneOf(arg="d", values=["a", None]), {"d": None}, None),
    (OneOf(arg="d", values=["a"]), {}, "d: missing"),
    (OneOf(arg="n", values=[1, 2]), {"n": 2.0}, None),
    (OneOf(arg="n", values=[1, 2]), {"n": True}, "n: not one of the allowed values"),
    # contains: case-insensitive substring of a string
    (Contains(arg="t", value="resolved"), {"t": "The outage is Resolved."}, None),
    (Contains(arg="t", value="straße"), {"t": "STRASSE 5"}, None),
    (Contains(arg="t", value="resolved"), {"t": "fixed"}, "t: does not contain it"),
    (Contains(arg="t", value="1"), {"t": 1}, "t: expected a string, got integer"),
    # present / absent: null counts as left out
    (Present(arg="x"), {"x": False}, None),
    (Present(arg="x"), {"x": ""}, None),
    (Present(arg="x"), {"x": None}, "x: missing"),
    (Present(arg="x"), {}, "x: missing"),
    (Absent(arg="x"), {}, None),
    (Absent(arg="x"), {"x": None}, None),
    (Absent(arg="x"), {"x": 0}, "x: should be left out"),
    # range: inclusive bounds, numbers only, not booleans
    (Range(arg="n", min=1, max=10), {"n": 1}, None),
    (Range(arg="n", min=1, max=10), {"n": 10.0}, None),
    (Range(arg="n", min=1, max=10), {"n": 10.5}, "n: out of range"),
    (Range(arg="n", min=1, max=10), {"n": 0}, "n: out of range"),
    (Range(arg="n", min=1), {"n": 10**9}, None),
    (Range(arg="n", max=0), {"n": -3}, None),
    (Range(arg="n", min=0, max=1), {"n": True}, "n: expected a number, got boolean"),
    (Range(arg="n", min=0, max=1), {"n": "1"}, "n: expected a number, got string"),
    (Range(arg="n", min=0, max=1), {"n": float("nan")}, "n: out of range"),
    (Range(arg="n", min=0, max=1), {}, "n: missing"),
    # range with optional: left out or null also passes; a given value must still be in bounds
    (Range(arg="n", min=10, max=50, optional=True), {}, None),
    (Range(arg="n", min=10, max=50, optional=True), {"n": None}, None),
    (Range(arg="n", min=10, max=50, optional=True), {"n": 15}, None),
    (Range(arg="n", min=10, max=50, optional=True), {"n": 5}, "n: out of range"),
    (Range(arg="n", min=10, max=50, optional=True), {"n": "20"}, "n: expected a number, got string"),
]


@pytest.mark.parametrize(
    ("check", "arguments", "reason"),
    TABLE,
    ids=[f"{c.__class__.__name__}-{i}" for i, (c, _, _) in enumerate(TABLE)],
)
def test_check_table(check: Check, arguments: dict[str, Any], reason: str | None) -> None:
    mismatch = run_check(check, arguments)
    assert (None if mismatch is None else mismatch.reason) == reason


def test_mismatch_carries_path_expected_and_got() -> None:
    mismatch = run_check(Eq(arg="path", value="src/app.py"), {"path": "src/main.py"})
    assert mismatch is not None
    assert (mismatch.path, mismatch.expected, mismatch.got) == (
        "arguments.path",
        '= "src/app.py"',
        "src/main.py",
    )


@pytest.mark.parametrize(
    ("check", "text"),
    [
        (Eq(arg="a", value=[1, "x"]), '= [1, "x"]'),
        (Subset(arg="a", value={"k": 1}), 'includes {"k": 1}'),
        (Regex(arg="a", pattern="^a+$"), "matches /^a+$/i"),
        (OneOf(arg="a", values=["x", None]), 'one of "x", null'),
        (Contains(arg="a", value="ok"), 'contains "ok"'),
        (Present(arg="a"), "present"),
        (Absent(arg="a"), "absent"),
        (Range(arg="a", min=1, max=5), "a number in [1, 5]"),
        (Range(arg="a", min=0.5), "a number in [0.5, +inf]"),
    ],
)
def test_describe(check: Check, text: str) -> None:
    assert describe(check) == text


def test_every_kind_of_check_has_a_rule() -> None:
    """The rules are a table by kind (not a `match` mypy checks for exhaustiveness): a kind added to
    `Check` without its rule fails here, not at the first suite that uses it."""
    assert set(_FAILURES) == set(get_args(Check))

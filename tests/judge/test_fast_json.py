"""`jsonvalue.fast_loads` reads a text exactly as the careful reading does, or declines.

The careful reading is Python's parser refusing NaN, Infinity and a repeated key, integers past the
digit limit kept as Decimal, lone surrogates made U+FFFD (`wire._loads`' slow path). The fast one
is msgspec with a proof that no key was dropped; wherever it answers, the two must give the same
value, types, key order and signs of zero included; wherever the careful one raises, the fast one
must decline (the caller then raises the careful error).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from lobrec.core.judge import wire
from lobrec.core.judge.jsonvalue import UNPROVEN, fast_loads, parse_int, unique_object

KEYS = st.text(st.sampled_from('ab:"\\é\U0001f600\u2028 \ud800'), max_size=4)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**320)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec="utf-8") | st.sampled_from(':"\\\x00\x1f\u2028'), max_size=12)
    | st.text(st.sampled_from("\ud800\udc00a:"), max_size=4)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


def _reject(name: str) -> Any:
    raise ValueError(name)


def careful(text: str | bytes) -> Any:
    data = json.loads(text, parse_constant=_reject, parse_int=parse_int, object_pairs_hook=unique_object)
    return wire._without_surrogates(data)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values and as Python objects: types, key order, the sign of zero."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _written(value: Any, style: int) -> str:
    if style == 0:
        return json.dumps(value)
    if style == 1:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False, indent=1)


EDITS = st.sampled_from(
    [
        lambda t: t,
        lambda t: t.replace(":", "\\u003a"),
        lambda t: t.replace('{"', '{"a": 1, "', 1).replace('{"', '{"a": 2, "', 1),
        lambda t: t.replace('{"', '{"k": 0, "k": 0, "', 1),
        lambda t: "[" * 600 + t + "]" * 600,
        lambda t: "\ufeff" + t,
        lambda t: " \t\n" + t + "\r\n",
        lambda t: t + "\x0c",
        lambda t: t[:-1],
        lambda t: t.replace("1", "1e400", 1),
        lambda t: t.replace("0", "-0.0", 1),
        lambda t: t.replace("1", "1" * 4400, 1),
        lambda t: t.replace("e", "E", 1),
    ]
)


@given(value=VALUES, style=st.integers(0, 2), edit=EDITS, as_bytes=st.booleans())
@example(value={"a": [1, 2.5, "x:y"]}, style=1, edit=lambda t: t, as_bytes=True)
def test_the_fast_reading_is_the_careful_one_or_declines(
    value: Any, style: int, edit: Any, as_bytes: bool
) -> None:
    try:
        text: str | bytes = edit(_written(value, style))
    except ValueError:
        return
    if as_bytes:
        text = text.encode("utf-8", "surrogatepass")
    _assert_agrees(text)


@given(st.binary(max_size=40) | st.text(max_size=40))
def test_any_text_at_all(text: str | bytes) -> None:
    _assert_agrees(text)


def _assert_agrees(text: str | bytes) -> None:
    """The fast reading declines, or gives what the careful one gives; it declines where that raises."""
    fast = fast_loads(text)
    try:
        expected = careful(text)
    except (ValueError, RecursionError):
        assert fast is UNPROVEN
        return
    assert fast is UNPROVEN or same(fast, expected), (text, fast, expected)


def test_plain_replies_take_the_fast_reading() -> None:
    """What the fast reading is for: a completion without a repeated key is read by it (a reading
    that always declined would pass the properties above)."""
    body = json.dumps(
        {"choices": [{"message": {"tool_calls": [{"function": {"arguments": '{"a": "x:y"}'}}]}}]}
    )
    assert same(fast_loads(body), json.loads(body))
    assert same(
        fast_loads(b'{"n": 12345678901234567890, "f": -0.0, "e": 1E2}'),
        {"n": 12345678901234567890, "f": -0.0, "e": 100.0},
    )
    assert fast_loads('{"a": 1, "a": 2}') is UNPROVEN
    assert same(fast_loads('{"a:": 1, "a": 2}'), {"a:": 1, "a": 2})  # a colon in a key is no second key
    assert fast_loads('{"a:": 1, "a:": 1}') is UNPROVEN
    assert fast_loads('{"a\\u003a": 1}') is UNPROVEN
    assert isinstance(careful("1" * 4400), Decimal) and fast_loads("1" * 4400) is UNPROVEN


CONTENT = st.text(st.characters(codec="utf-8") | st.sampled_from('\ud800\udc00\ud83d\ude00:"\\'), max_size=12)


@given(content=CONTENT, name=CONTENT, arguments=VALUES)
def test_a_completion_reads_the_same_whether_or_not_the_fast_reading_answers(
    content: str, name: str, arguments: Any
) -> None:
    """`parse_completion` skips the lone-surrogate cleaning after a fast read (msgspec refuses a lone
    surrogate, so none can be in it): the reply must be what the careful reading, which cleans,
    gives."""
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": name, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        ],
    }
    body = json.dumps({"model": name, "choices": [{"message": message}]}).encode("utf-8")
    fast = wire.parse_completion(body)
    original = wire.fast_loads
    try:
        wire.fast_loads = lambda text: UNPROVEN  # type: ignore[assignment]
        slow = wire.parse_completion(body)
    finally:
        wire.fast_loads = original
    assert fast == slow

"""JSON's notion of values, which is not Python's.

In JSON Schema and in lobrec's checks, `1` equals `1.0`, `true` is not `1`, a boolean is not a
number, and `1.0` is an integer. Python's `==` gets two of those wrong (`True == 1`), so every
comparison of model output goes through `json_equal`.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import msgspec
import re2

MAX_INT_DIGITS = 4300
"""Python's limit on converting decimal text to an `int` (CVE-2020-10735: the conversion is
quadratic). A longer integer is still valid JSON: it is kept exactly as a `Decimal` instead."""


def parse_int(text: str) -> int | Decimal:
    """`json.loads`'s `parse_int`: an `int`, or past Python's digit limit an exact `Decimal` (linear
    to build, compared exactly with ints and floats), so no valid JSON number is refused."""
    digits = len(text) - text.startswith("-")
    return int(text) if digits <= MAX_INT_DIGITS else Decimal(text)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """JSON Schema's integer: any number with zero fractional part (`1.0` counts)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, Decimal):
        return value.is_finite() and value == value.to_integral_value()
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value, as a person would say it in an error."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float | Decimal):
        return "integer" if is_integer(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_null(value: Any) -> bool:
    return value is None


_SCALARS: tuple[Callable[[Any], bool], ...] = (_is_bool, is_number, _is_string, _is_null)
"""JSON's scalar types, booleans before numbers: Python counts `True` as the number 1, JSON does not."""


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two decoded JSON values under JSON semantics, recursively."""
    for is_kind in _SCALARS:
        if is_kind(a) or is_kind(b):
            return is_kind(a) and is_kind(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return _arrays_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return _objects_equal(a, b)
    return False


def _arrays_equal(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))


def _objects_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)


def preview(value: Any, limit: int = 80) -> str:
    """A short, single-line JSON rendering of a value for messages (a `Decimal` as its digits)."""
    numbers: list[str] = []

    def number(item: Any) -> str:
        if not isinstance(item, Decimal):
            raise TypeError(type(item).__name__)
        numbers.append(str(item))
        return f"\x00{len(numbers) - 1}\x00"

    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=number)
        if numbers:
            text = _NUMBER_MARK.sub(lambda match: numbers[int(match.group(1))], text)
    except (TypeError, ValueError):
        text = repr(value)
    # a lone surrogate (kept in what a chain echoes) cannot be written to the results: U+FFFD there
    text = LONE_SURROGATE.sub("\ufffd", text).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


_NUMBER_MARK = re.compile(r'"\\u0000(\d+)\\u0000"')
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: legal in JSON (`"\\ud800"`), in a Python str, never in UTF-8."""


class DuplicateKeyError(ValueError):
    """A JSON object spelled one key twice: parsers disagree on which value counts."""


def repeated_key(pairs: list[tuple[str, Any]]) -> str | None:
    """The first key an object's pairs spell twice, or None."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A `json.loads` object hook that refuses a repeated key (Python would keep the last)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKeyError(f"the key {repeated_key(pairs)!r} appears more than once")
    return result


def duplicate_key(data: bytes | str) -> str | None:
    """Why `data` is ambiguous JSON (an object with a repeated key), or None.

    A parser that keeps the first value and one that keeps the last (msgspec, Python) would read
    two different documents, so a file that must mean one thing is refused instead. Text that is
    not JSON at all is None here: the strict decoder reports that with its own message.
    """
    try:
        json.loads(data, object_pairs_hook=unique_object)
    except DuplicateKeyError as exc:
        return str(exc)
    except (ValueError, RecursionError):
        return None
    return None


UNPROVEN: Any = object()
"""`fast_loads`'s answer when it cannot show its reading is the careful one's."""

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode
_FAST_MAX_OPENINGS = 500
"""At most this many `[` and `{`: nested no deeper, so Python's own parser would not have run out
of stack (its RecursionError is the careful reading's answer past its limit)."""


def fast_loads(text: str | bytes) -> Any:
    """`text` as the careful reading (`json.loads` refusing NaN and a repeated key, with
    `parse_int`) would give it, read at C speed, or UNPROVEN when that cannot be shown, and the
    caller reads it the careful way (which raises what it raises).

    msgspec refuses what that reading refuses or changes (NaN, Infinity, a lone surrogate, a number
    past a float's range, an integer past Python's digit limit, bytes that are not UTF-8) and reads
    numbers to the same floats. A repeated key it keeps once, with the last value; so the decoded
    value written back must hold as many colons as the text: each key is one colon, and a colon
    inside a string stays one (unless the text spells one as an escape, `\\u003a`: not tried)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"\\u003" in raw or raw.count(b"[") + raw.count(b"{") > _FAST_MAX_OPENINGS:
        return UNPROVEN
    try:
        value = _decode(raw)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return UNPROVEN
    return value if _encode(value).count(b":") == raw.count(b":") else UNPROVEN


_SPECIAL = re.compile(rb'["\[\]{}]')
_STRING_OPTIONS = re2.Options()
_STRING_OPTIONS.dot_nl = True
_STRING_REST = re2.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"', _STRING_OPTIONS)
"""The rest of a JSON string after its opening quote, through its closing quote (RE2: linear, and
60 times faster than `re` on a string of 4 million escapes)."""


_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:(")|\\?\Z)', re.DOTALL)
"""A JSON string from its opening quote through its closing one (captured), or through the end of
the text when it never closes. It cannot fail where it starts, so a split by it is one linear pass
(a pattern that fails on a string that never closes is retried at every later quote: quadratic)."""
_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def too_deep(data: bytes | str, limit: int) -> int | None:
    """Where `data` first nests arrays and objects more than `limit` levels deep (a byte offset),
    or None. A scan of the text, without recursion: a parser (msgspec's, Python's) recurses once
    per level and a file nested 5,000 deep would end in a RecursionError, not a message.

    Linear in the text. Most texts are answered at once: strings cut out in one pass (`_STRINGS`),
    the deepest level counted in C. A text that is too deep, or holds a string that never closes,
    is scanned one special character at a time to find the offset (`_first_too_deep`)."""
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    pieces = _STRINGS.split(text)  # outside strings, closing quote, outside strings, ...
    if len(pieces) == 1 or pieces[-2] is not None:  # every string closed: count levels in C at once
        brackets = b"".join(pieces[::2]).translate(None, _BRACKETS)
        if not brackets or max(itertools.accumulate(map(_STEP.__getitem__, brackets))) <= limit:
            return None
    return _first_too_deep(text, limit)


def _first_too_deep(text: bytes, limit: int) -> int | None:
    """`too_deep`'s scan, for the rare text that is too deep or holds a string that never closes:
    it finds the offset, one special character at a time. Each string is skipped once from its
    opening quote, and a string that never closes ends the scan (the parser reports it); matching a
    string pattern at every quote instead took quadratic time on `"\\"\\"\\"...` (20,000 pairs: 35 s)."""
    depth, position = 0, 0
    while (found := _SPECIAL.search(text, position)) is not None:
        start = found.start()
        char = text[start]
        if char == 0x22:  # a string: skip it whole, brackets inside it do not count
            rest = _STRING_REST.match(text, start + 1)
            if rest is None:
                return None
            position = rest.end()
            continue
        if char in b"[{":
            depth += 1
            if depth > limit:
                return start
        else:
            depth -= 1
        position = start + 1
    return None

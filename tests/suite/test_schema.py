"""The JSON Schema subset, one table per rule: a schema, an instance, the exact errors expected."""

from __future__ import annotations

from typing import Any

import pytest

import lobrec.schema
from lobrec.core.suite import jsonschema as core
from lobrec.errors import LobrecError, SchemaError
from lobrec.schema import check_schema, validate

Row = tuple[Any, Any, list[str]]


def _run(schema: Any, instance: Any, expected: list[str]) -> None:
    assert validate(schema, instance) == expected


# --- type ----------------------------------------------------------------------------------------

TYPE: list[Row] = [
    ({"type": "integer"}, 1, []),
    ({"type": "integer"}, 1.0, []),
    ({"type": "integer"}, -0.0, []),
    ({"type": "integer"}, 10**30, []),
    ({"type": "integer"}, 1.5, ["$: expected integer, got number"]),
    ({"type": "integer"}, True, ["$: expected integer, got boolean"]),
    ({"type": "integer"}, "1", ["$: expected integer, got string"]),
    ({"type": "number"}, 1, []),
    ({"type": "number"}, 1.5, []),
    ({"type": "number"}, False, ["$: expected number, got boolean"]),
    ({"type": "number"}, None, ["$: expected number, got null"]),
    ({"type": "boolean"}, True, []),
    ({"type": "boolean"}, 0, ["$: expected boolean, got integer"]),
    ({"type": "boolean"}, 1.0, ["$: expected boolean, got integer"]),
    ({"type": "null"}, None, []),
    ({"type": "null"}, False, ["$: expected null, got boolean"]),
    ({"type": "string"}, "", []),
    ({"type": "string"}, ["a"], ["$: expected string, got array"]),
    ({"type": "array"}, [], []),
    ({"type": "array"}, {}, ["$: expected array, got object"]),
    ({"type": "array"}, (1, 2), ["$: expected array, got tuple"]),
    ({"type": "object"}, {}, []),
    ({"type": "object"}, [], ["$: expected object, got array"]),
    ({"type": ["string", "null"]}, None, []),
    ({"type": ["string", "null"]}, "x", []),
    ({"type": ["string", "null"]}, 0, ["$: expected string or null, got integer"]),
    ({"type": ["integer", "boolean", "null"]}, 0.5, ["$: expected integer or boolean or null, got number"]),
    ({"type": ["number"]}, True, ["$: expected number, got boolean"]),
    # A value of the wrong type gets one error, not one per keyword it also fails.
    ({"type": "string", "enum": ["a"], "minLength": 3}, 7, ["$: expected string, got integer"]),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), TYPE)
def test_type(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- enum and const: JSON equality ---------------------------------------------------------------

ENUM: list[Row] = [
    ({"enum": ["a", "b"]}, "a", []),
    ({"enum": ["a", "b"]}, "c", ['$: expected one of ["a", "b"], got "c"']),
    ({"enum": [1]}, 1.0, []),
    ({"enum": [1.0]}, 1, []),
    ({"enum": [1]}, True, ["$: expected one of [1], got true"]),
    ({"enum": [True]}, 1, ["$: expected one of [true], got 1"]),
    ({"enum": [0]}, False, ["$: expected one of [0], got false"]),
    ({"enum": [None]}, None, []),
    ({"enum": [None]}, 0, ["$: expected one of [null], got 0"]),
    ({"enum": [[1, 2]]}, [1.0, 2.0], []),
    ({"enum": [[1, 2]]}, [True, 2], ["$: expected one of [[1, 2]], got [true, 2]"]),
    ({"enum": [[1, 2]]}, [2, 1], ["$: expected one of [[1, 2]], got [2, 1]"]),
    ({"enum": [{"a": 1}]}, {"a": 1.0}, []),
    ({"enum": [{"a": 1}]}, {"a": True}, ['$: expected one of [{"a": 1}], got {"a": true}']),
    ({"enum": [{"a": 1}]}, {"a": 1, "b": 2}, ['$: expected one of [{"a": 1}], got {"a": 1, "b": 2}']),
    ({"enum": ["1"]}, 1, ['$: expected one of ["1"], got 1']),
    # an empty enum is a legal schema no value satisfies, whatever the value's type
    ({"enum": []}, None, ["$: not allowed (the enum is empty: no value can pass)"]),
    ({"enum": []}, "a", ["$: not allowed (the enum is empty: no value can pass)"]),
    ({"enum": []}, {}, ["$: not allowed (the enum is empty: no value can pass)"]),
    (
        {"type": "object", "properties": {"mode": {"enum": []}}},
        {"mode": "r"},
        ["$.mode: not allowed (the enum is empty: no value can pass)"],
    ),
    ({"type": "object", "properties": {"mode": {"enum": []}}}, {}, []),
    # enum applies to every type; it is not skipped for a type it does not mention.
    (
        {"enum": ["a"], "minLength": 2},
        "b",
        ['$: expected one of ["a"], got "b"', "$: expected at least 2 characters, got 1"],
    ),
]

CONST: list[Row] = [
    ({"const": "x"}, "x", []),
    ({"const": "x"}, "X", ['$: expected "x", got "X"']),
    ({"const": 1}, 1.0, []),
    ({"const": 1}, True, ["$: expected 1, got true"]),
    ({"const": False}, 0, ["$: expected false, got 0"]),
    ({"const": None}, None, []),
    ({"const": None}, "null", ['$: expected null, got "null"']),
    ({"const": [1, [True]]}, [1.0, [True]], []),
    ({"const": [1, [True]]}, [1, [1]], ["$: expected [1, [true]], got [1, [1]]"]),
    ({"const": {"a": [1]}}, {"a": [1.0]}, []),
    ({"const": {"a": [1]}}, {"a": [1], "b": None}, ['$: expected {"a": [1]}, got {"a": [1], "b": null}']),
    ({"const": {}}, [], ["$: expected {}, got []"]),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), ENUM)
def test_enum(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


@pytest.mark.parametrize(("schema", "instance", "expected"), CONST)
def test_const(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- minimum and maximum -------------------------------------------------------------------------

BOUNDS: list[Row] = [
    ({"minimum": 1}, 1, []),
    ({"minimum": 1}, 1.0, []),
    ({"minimum": 1}, 0.999, ["$: expected at least 1, got 0.999"]),
    ({"minimum": 1.5}, 1, ["$: expected at least 1.5, got 1"]),
    ({"maximum": 10}, 10, []),
    ({"maximum": 10}, 11, ["$: expected at most 10, got 11"]),
    ({"maximum": -1}, -1.0, []),
    ({"minimum": 0, "maximum": 0}, 0, []),
    ({"minimum": 3, "maximum": 1}, 2, ["$: expected at least 3, got 2", "$: expected at most 1, got 2"]),
    ({"maximum": 0}, 10**30, ["$: expected at most 0, got 1000000000000000000000000000000"]),
    # Booleans are not numbers, and bounds ignore every non-number.
    ({"minimum": 5}, True, []),
    ({"maximum": 0}, True, []),
    ({"minimum": 5}, "1", []),
    ({"minimum": 5}, [1], []),
    ({"minimum": 5}, None, []),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), BOUNDS)
def test_minimum_maximum(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- minLength and maxLength: Unicode code points ------------------------------------------------

LENGTHS: list[Row] = [
    ({"minLength": 1}, "a", []),
    ({"minLength": 1}, "", ["$: expected at least 1 character, got 0"]),
    ({"maxLength": 2}, "abc", ["$: expected at most 2 characters, got 3"]),
    ({"maxLength": 1}, "é", []),  # U+00E9, one code point
    ({"maxLength": 1}, "e\u0301", ["$: expected at most 1 character, got 2"]),  # e + combining acute
    ({"maxLength": 1}, "😀", []),  # one code point, two UTF-16 units
    ({"minLength": 2}, "😀", ["$: expected at least 2 characters, got 1"]),
    ({"maxLength": 1}, "👨‍👩‍👧", ["$: expected at most 1 character, got 5"]),  # three people, two ZWJs
    ({"minLength": 2.0}, "ab", []),
    ({"minLength": 0, "maxLength": 0}, "", []),
    ({"minLength": 5}, 12345, []),
    ({"maxLength": 0}, ["a"], []),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), LENGTHS)
def test_min_max_length(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- pattern: ECMA-262, unanchored ---------------------------------------------------------------

PATTERN: list[Row] = [
    ({"pattern": "b"}, "abc", []),  # a search, not a full match
    ({"pattern": "^b"}, "abc", ['$: expected a string matching /^b/, got "abc"']),
    ({"pattern": "^\\d{4}-\\d{2}$"}, "2026-10", []),
    ({"pattern": "^[a-z]+$"}, "ABC", ['$: expected a string matching /^[a-z]+$/, got "ABC"']),
    ({"pattern": "x"}, 5, []),
    ({"pattern": "x"}, None, []),
    # ECMA's \d, \w and \b are ASCII; Python's would accept Arabic-Indic digits and accented letters.
    ({"pattern": "^\\d+$"}, "٣", ['$: expected a string matching /^\\d+$/, got "٣"']),
    ({"pattern": "^\\w+$"}, "é", ['$: expected a string matching /^\\w+$/, got "é"']),
    ({"pattern": "^\\D$"}, "٣", []),
    ({"pattern": "\\bé"}, " é", ['$: expected a string matching /\\bé/, got " é"']),
    # ECMA's $ is the very end; Python's also matches before a final newline.
    ({"pattern": "^a$"}, "a\n", ['$: expected a string matching /^a$/, got "a\\n"']),
    ({"pattern": "[$]"}, "$", []),
    ({"pattern": "\\$"}, "$", []),
    # ECMA's . stops at every line terminator; Python's only at \n.
    ({"pattern": "^.$"}, "\r", ['$: expected a string matching /^.$/, got "\\r"']),
    ({"pattern": "^.$"}, "\u2028", ['$: expected a string matching /^.$/, got "\u2028"']),
    ({"pattern": "^.$"}, "😀", []),  # code points, as with ECMA's u flag
    ({"pattern": "[.]"}, ".", []),
    # ECMA's \s has Unicode spaces and U+FEFF but not U+001C..U+001F.
    ({"pattern": "^\\s$"}, "\u00a0", []),
    ({"pattern": "^\\s$"}, "\ufeff", []),
    ({"pattern": "^\\s$"}, "\u3000", []),
    ({"pattern": "^\\s$"}, "\x1c", ['$: expected a string matching /^\\s$/, got "\\u001c"']),
    ({"pattern": "^\\S$"}, "\ufeff", ['$: expected a string matching /^\\S$/, got "\ufeff"']),
    ({"pattern": "^\\S$"}, "\x1c", []),
    ({"pattern": "^[\\s,]+$"}, ", \u00a0", []),
    ({"pattern": "^[^\\s]+$"}, "a\u2003b", ['$: expected a string matching /^[^\\s]+$/, got "a\u2003b"']),
    ({"pattern": "^[\\S]+$"}, "😀é", []),
    ({"pattern": "^[^\\S]$"}, "\t", []),
    # ECMA spellings; [ & ~ | are literal inside a class; named groups match (no back-references).
    ({"pattern": "^(?<y>\\d{4})-(?<m>\\d{2})$"}, "2026-10", []),
    ({"pattern": "(?<=a)b"}, "ab", []),
    ({"pattern": "(?<!a)b"}, "ab", ['$: expected a string matching /(?<!a)b/, got "ab"']),
    ({"pattern": "(?<!a)b"}, "cb", []),
    ({"pattern": "(?<!a)b"}, "b", []),
    ({"pattern": "b(?!a)"}, "ba", ['$: expected a string matching /b(?!a)/, got "ba"']),
    ({"pattern": "b(?!a)"}, "bab", []),
    ({"pattern": "b(?=a)"}, "ba", []),
    ({"pattern": "\\b2\\.1(?!\\.?[0-9])"}, "v 2.1", []),
    (
        {"pattern": "\\b2\\.1(?!\\.?[0-9])"},
        "2.1.4",
        ['$: expected a string matching /\\b2\\.1(?!\\.?[0-9])/, got "2.1.4"'],
    ),
    ({"pattern": "\\b2\\.1(?!\\.?[0-9])"}, "2.1.", []),
    ({"pattern": "^(?![\\s\\S]*x)"}, "abc", []),
    ({"pattern": "^(?![\\s\\S]*x)"}, "abxc", ['$: expected a string matching /^(?![\\s\\S]*x)/, got "abxc"']),
    ({"pattern": "^(?=a)ab$"}, "ab", []),
    # Lookaround elsewhere has no linear-time translation: refused (MALFORMED below).
    ({"pattern": "^[[a]+$"}, "[a[", []),
    ({"pattern": "^[a&&b~~|]+$"}, "&~|", []),
    ({"pattern": "^[+--]$"}, ",", []),  # a range from + to -; Python would warn of set difference
    ({"pattern": "^[]a]+$"}, "]a", ['$: expected a string matching /^[]a]+$/, got "]a"']),  # [] is empty
    ({"pattern": "^[^]$"}, "\n", []),  # [^] is anything
    ({"pattern": "^[\\b]$"}, "\b", []),  # backspace in a class
    ({"pattern": "^\\u00e9\\x41\\cJ\\0$"}, "éA\n\x00", []),
    ({"pattern": "^\\ud83d\\ude00$"}, "😀", []),  # an escaped surrogate pair is one code point
    ({"pattern": "^a{,3}$"}, "a{,3}", []),  # not a quantifier: literal, as in ECMA
    ({"pattern": "^\\\\s$"}, "\\s", []),  # an escaped backslash, then a plain s
    ({"pattern": "^a{2}$"}, "aa", []),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), PATTERN)
def test_pattern(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- minItems, maxItems and items ----------------------------------------------------------------

ARRAYS: list[Row] = [
    ({"minItems": 1}, [0], []),
    ({"minItems": 1}, [], ["$: expected at least 1 item, got 0"]),
    ({"maxItems": 2}, [1, 2, 3], ["$: expected at most 2 items, got 3"]),
    ({"minItems": 2, "maxItems": 2}, [1, 2], []),
    ({"minItems": 3}, "abc", []),
    ({"minItems": 1}, {"a": 1}, []),
    ({"items": {"type": "string"}}, ["a", "b"], []),
    ({"items": {"type": "string"}}, [], []),
    (
        {"items": {"type": "string"}},
        ["a", 2, None],
        ["$[1]: expected string, got integer", "$[2]: expected string, got null"],
    ),
    ({"items": {"type": "integer"}}, [1.0, True], ["$[1]: expected integer, got boolean"]),
    ({"items": {"items": {"enum": [1]}}}, [[1], [1, 2]], ["$[1][1]: expected one of [1], got 2"]),
    ({"items": False}, [], []),
    ({"items": False}, [0], ["$[0]: not allowed (the schema is false)"]),
    ({"items": True}, [0, "a", None], []),
    ({"items": {"type": "string"}}, "not an array", []),
    (
        {"maxItems": 1, "items": {"minimum": 0}},
        [-1, -2],
        [
            "$: expected at most 1 item, got 2",
            "$[0]: expected at least 0, got -1",
            "$[1]: expected at least 0, got -2",
        ],
    ),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), ARRAYS)
def test_arrays(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- properties, required, additionalProperties --------------------------------------------------

OBJECTS: list[Row] = [
    ({"properties": {"a": {"type": "string"}}}, {"a": "x"}, []),
    ({"properties": {"a": {"type": "string"}}}, {}, []),
    ({"properties": {"a": {"type": "string"}}}, {"a": 1}, ["$.a: expected string, got integer"]),
    ({"properties": {"a": {"type": "string"}}}, {"b": 1}, []),
    ({"properties": {"a": {"type": "string"}}}, ["a"], []),
    ({"required": ["a", "b"]}, {"a": None, "b": None}, []),
    ({"required": ["a", "b"]}, {"b": 1}, ['$: missing required property "a"']),
    ({"required": ["b", "a"]}, {}, ['$: missing required property "b"', '$: missing required property "a"']),
    ({"required": ["a"]}, "not an object", []),
    ({"required": []}, {}, []),
    ({"additionalProperties": False}, {}, []),
    ({"additionalProperties": False}, {"x": 1}, ['$: unexpected property "x"']),
    (
        {"properties": {"a": {}}, "additionalProperties": False},
        {"a": 1, "b": 2},
        ['$: unexpected property "b"'],
    ),
    ({"properties": {"a": True}, "additionalProperties": False}, {"a": 1}, []),
    ({"additionalProperties": True}, {"x": 1}, []),
    (
        {"additionalProperties": {"type": "integer"}},
        {"x": 1, "y": "2"},
        ["$.y: expected integer, got string"],
    ),
    (
        {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
        {"a": "s", "b": 2},
        [],
    ),
    ({"properties": {"a": False}}, {}, []),
    ({"properties": {"a": False}}, {"a": None}, ["$.a: not allowed (the schema is false)"]),
    ({"additionalProperties": False}, [1], []),
    (
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"],
                    },
                }
            },
            "additionalProperties": False,
        },
        {"items": [{"name": "a"}, {}, {"name": 1}], "extra": True},
        [
            '$.items[1]: missing required property "name"',
            "$.items[2].name: expected string, got integer",
            '$: unexpected property "extra"',
        ],
    ),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), OBJECTS)
def test_objects(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- paths in messages ---------------------------------------------------------------------------

PATHS: list[Row] = [
    ({"properties": {"a_1": {"type": "null"}}}, {"a_1": 0}, ["$.a_1: expected null, got integer"]),
    ({"properties": {"café": {"type": "null"}}}, {"café": 0}, ["$.café: expected null, got integer"]),
    ({"properties": {"a b": {"type": "null"}}}, {"a b": 0}, ['$["a b"]: expected null, got integer']),
    ({"properties": {"": {"type": "null"}}}, {"": 0}, ['$[""]: expected null, got integer']),
    ({"properties": {"1": {"type": "null"}}}, {"1": 0}, ['$["1"]: expected null, got integer']),
    ({"properties": {'q"': {"type": "null"}}}, {'q"': 0}, ['$["q\\""]: expected null, got integer']),
    ({"additionalProperties": {"type": "null"}}, {"x.y": 0}, ['$["x.y"]: expected null, got integer']),
    ({"required": ["a b"]}, {}, ['$: missing required property "a b"']),
    ({"items": {"additionalProperties": False}}, [{}, {"k": 1}], ['$[1]: unexpected property "k"']),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), PATHS)
def test_paths(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- boolean schemas, empty schemas, annotations -------------------------------------------------

WHOLE: list[Row] = [
    (True, {"anything": [1]}, []),
    (False, None, ["$: not allowed (the schema is false)"]),
    ({}, [1, "a", None], []),
    (
        {
            "title": "T",
            "description": "D",
            "default": 5,
            "examples": ["not", "checked"],
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": "c",
        },
        "anything",
        [],
    ),
    # Annotation values are never validated: a default that breaks the schema is not an error.
    ({"type": "string", "default": 5, "title": 1}, "x", []),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), WHOLE)
def test_boolean_and_annotation_schemas(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


# --- unsupported keywords ------------------------------------------------------------------------

UNSUPPORTED: list[tuple[Any, str]] = [
    ({"oneOf": []}, "unsupported keyword 'oneOf' at $"),
    ({"properties": {"x": {"anyOf": [{"type": "string"}]}}}, "unsupported keyword 'anyOf' at $.properties.x"),
    ({"allOf": [{}]}, "unsupported keyword 'allOf' at $"),
    ({"not": {}}, "unsupported keyword 'not' at $"),
    ({"items": {"$ref": "#/$defs/a"}}, "unsupported keyword '$ref' at $.items"),
    ({"$defs": {}}, "unsupported keyword '$defs' at $"),
    ({"additionalProperties": {"format": "date"}}, "unsupported keyword 'format' at $.additionalProperties"),
    (
        {"properties": {"a b": {"exclusiveMinimum": 0}}},
        "unsupported keyword 'exclusiveMinimum' at $.properties[\"a b\"]",
    ),
    ({"multipleOf": 2}, "unsupported keyword 'multipleOf' at $"),
    ({"uniqueItems": True}, "unsupported keyword 'uniqueItems' at $"),
    ({"prefixItems": [{}]}, "unsupported keyword 'prefixItems' at $"),
    ({"patternProperties": {}}, "unsupported keyword 'patternProperties' at $"),
    ({"nullable": True}, "unsupported keyword 'nullable' at $"),
    ({"deprecated": True}, "unsupported keyword 'deprecated' at $"),
    ({"Type": "string"}, "unsupported keyword 'Type' at $"),
    # Several at one place: the first in sorted order is named.
    ({"oneOf": [], "anyOf": []}, "unsupported keyword 'anyOf' at $"),
    # Property *names* are data, not keywords.
    ({"properties": {"oneOf": {"type": "string"}}}, None),
]


@pytest.mark.parametrize(("schema", "message"), UNSUPPORTED)
def test_unsupported_keywords(schema: Any, message: str | None) -> None:
    if message is None:
        assert check_schema(schema) is None
        return
    with pytest.raises(SchemaError) as check_raised:
        check_schema(schema)
    with pytest.raises(SchemaError) as validate_raised:
        validate(schema, {})
    assert str(check_raised.value) == message
    assert str(validate_raised.value) == message


# --- malformed values of supported keywords ------------------------------------------------------

_LOOKAROUND = (
    "lookaround has no linear-time translation here: it is supported only as ^(?=...) or ^(?!...) at "
    "the start, (?<=...) or (?<!...) first, and (?=...) or (?!...) last in an alternative, never nested"
)

MALFORMED: list[tuple[Any, str]] = [
    ("string", 'invalid schema at $: expected an object or a boolean, got "string"'),
    ({"items": [{}]}, "invalid schema at $.items: expected an object or a boolean, got [{}]"),
    (
        {"properties": {"a": None}},
        "invalid schema at $.properties.a: expected an object or a boolean, got null",
    ),
    (
        {"additionalProperties": 0},
        "invalid schema at $.additionalProperties: expected an object or a boolean, got 0",
    ),
    ({"type": "int"}, "invalid 'type' at $: unknown type \"int\""),
    ({"type": ["string", "float"]}, "invalid 'type' at $: unknown type \"float\""),
    (
        {"type": []},
        "invalid 'type' at $: expected a type name or a non-empty array of distinct type names, got []",
    ),
    (
        {"type": ["null", "null"]},
        "invalid 'type' at $: expected a type name or a non-empty array of distinct type names,"
        ' got ["null", "null"]',
    ),
    (
        {"type": 1},
        "invalid 'type' at $: expected a type name or a non-empty array of distinct type names, got 1",
    ),
    ({"enum": "a"}, "invalid 'enum' at $: expected an array, got \"a\""),
    ({"required": "a"}, "invalid 'required' at $: expected an array of strings, got \"a\""),
    ({"required": ["a", 1]}, "invalid 'required' at $: expected an array of strings, got [\"a\", 1]"),
    (
        {"required": ["a", "a"]},
        'invalid \'required\' at $: expected an array of distinct strings, got ["a", "a"]',
    ),
    ({"properties": []}, "invalid 'properties' at $: expected an object whose values are schemas, got []"),
    ({"minimum": "1"}, "invalid 'minimum' at $: expected a finite number, got \"1\""),
    ({"maximum": True}, "invalid 'maximum' at $: expected a finite number, got true"),
    ({"maximum": float("nan")}, "invalid 'maximum' at $: expected a finite number, got NaN"),
    ({"minimum": float("-inf")}, "invalid 'minimum' at $: expected a finite number, got -Infinity"),
    ({"minLength": -1}, "invalid 'minLength' at $: expected a non-negative integer, got -1"),
    ({"maxLength": 1.5}, "invalid 'maxLength' at $: expected a non-negative integer, got 1.5"),
    ({"minItems": True}, "invalid 'minItems' at $: expected a non-negative integer, got true"),
    ({"maxItems": None}, "invalid 'maxItems' at $: expected a non-negative integer, got null"),
    ({"pattern": 5}, "invalid 'pattern' at $: expected a string, got 5"),
    ({"pattern": "("}, "invalid 'pattern' at $: missing ), unterminated group: /(/"),
    ({"pattern": "[a"}, "invalid 'pattern' at $: a character class is not closed: /[a/"),
    ({"pattern": "[z-a]"}, "invalid 'pattern' at $: the class range 'z'-'a' is out of order: /[z-a]/"),
    (
        {"items": {"properties": {"p": {"pattern": "\\q"}}}},
        "invalid 'pattern' at $.items.properties.p: the escape \\q has no meaning in ECMA-262 outside "
        "legacy mode: /\\q/",
    ),
    # What RE2 (linear time) cannot run as ECMA-262 would is refused, in one line (docs/schema.md).
    ({"pattern": "(a)\\1"}, "invalid 'pattern' at $: back-references (\\1) are not supported: /(a)\\1/"),
    (
        {"pattern": "(?<y>a)\\k<y>"},
        "invalid 'pattern' at $: back-references (\\k<name>) are not supported: /(?<y>a)\\k<y>/",
    ),
    (
        {"pattern": "a{1001}"},
        "invalid 'pattern' at $: repetition counts over 1000 are not supported: /a{1001}/",
    ),
    (
        {"pattern": "\\p{L}"},
        "invalid 'pattern' at $: \\p{...} Unicode properties are not supported: /\\p{L}/",
    ),
    (
        {"pattern": "\\u{41}"},
        "invalid 'pattern' at $: \\u must be followed by four hex digits (\\u{...} is not supported): "
        "/\\u{41}/",
    ),
    (
        {"pattern": "(?i)a"},
        "invalid 'pattern' at $: the group syntax '(?i)'... is not ECMA-262 (or not supported): /(?i)a/",
    ),
    (
        {"pattern": "\\ud800"},
        "invalid 'pattern' at $: a lone surrogate escape (\\ud800) matches no text lobrec judges: /\\ud800/",
    ),
    # Lookaround outside the linear forms: there is no backtracking engine to fall back on.
    ({"pattern": "a(?=b)c"}, f"invalid 'pattern' at $: {_LOOKAROUND}: /a(?=b)c/"),
    ({"pattern": "^\\d(?!0?2\\b)\\d$"}, f"invalid 'pattern' at $: {_LOOKAROUND}: /^\\d(?!0?2\\b)\\d$/"),
    (
        {"pattern": "x(?!a+)"},
        "invalid 'pattern' at $: a negative lookaround longer than one character may hold only plain "
        "characters, small sets, ? and |: /x(?!a+)/",
    ),
    ({"pattern": "^(?![\\s\\S]*1(?!2))"}, f"invalid 'pattern' at $: {_LOOKAROUND}: /^(?![\\s\\S]*1(?!2))/"),
    (
        {"properties": {1: {}, "a": {}}},
        "invalid schema at $: not a JSON document ('<' not supported between instances of 'str' and 'int')",
    ),
    (
        {"const": {1, 2}},
        "invalid schema at $: not a JSON document (Object of type set is not JSON serializable)",
    ),
]


@pytest.mark.parametrize(("schema", "message"), MALFORMED)
def test_malformed_schemas(schema: Any, message: str) -> None:
    with pytest.raises(SchemaError) as raised:
        check_schema(schema)
    assert str(raised.value) == message


def test_schema_nested_too_deeply() -> None:
    schema: dict[str, Any] = {"type": "null"}
    for _ in range(core.MAX_DEPTH - 1):
        schema = {"items": schema}
    assert validate(schema, _deep(core.MAX_DEPTH - 1)) == [
        "$" + "[0]" * (core.MAX_DEPTH - 1) + ": expected null, got array"
    ]
    with pytest.raises(SchemaError) as raised:
        check_schema({"items": schema})
    assert str(raised.value) == f"invalid schema at $: nested deeper than {core.MAX_DEPTH} levels"


def test_schema_that_contains_itself() -> None:
    schema: dict[str, Any] = {}
    schema["items"] = schema
    with pytest.raises(SchemaError) as raised:
        check_schema(schema)
    assert str(raised.value) == "invalid schema at $: not a JSON document (Circular reference detected)"


# --- the instance never makes validate raise ------------------------------------------------------


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


ODD_INSTANCES: list[Row] = [
    ({"const": 1}, _deep(5000), ["$: expected 1, got <deeply nested array>"]),
    ({"enum": [[[1]]]}, _deep(5000), ["$: expected one of [[[1]]], got <deeply nested array>"]),
    ({"type": "number", "minimum": 0}, float("nan"), []),
    ({"maximum": 0}, float("inf"), ["$: expected at most 0, got Infinity"]),
    ({"type": "integer"}, float("inf"), ["$: expected integer, got number"]),
    ({"type": "string"}, b"x", ["$: expected string, got bytes"]),
    ({"additionalProperties": False}, {1: "a"}, ['$: unexpected property "1"']),
    ({"additionalProperties": {"type": "string"}}, {2: 0}, ['$["2"]: expected string, got integer']),
    ({"const": [1]}, (1,), ["$: expected [1], got [1]"]),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), ODD_INSTANCES)
def test_odd_instances_give_errors_not_exceptions(schema: Any, instance: Any, expected: list[str]) -> None:
    _run(schema, instance, expected)


def test_a_cyclic_instance_gives_errors_not_exceptions() -> None:
    instance: list[Any] = []
    instance.append(instance)
    assert validate({"const": 1}, instance) == ["$: expected 1, got [[...]]"]


# --- the public surface --------------------------------------------------------------------------


def test_public_surface() -> None:
    assert lobrec.schema.__all__ == ["SchemaError", "check_schema", "validate"]
    assert lobrec.schema.validate is core.validate
    assert lobrec.schema.check_schema is core.check_schema
    assert issubclass(lobrec.schema.SchemaError, LobrecError)


def test_equal_schemas_give_equal_verdicts_whatever_their_key_order() -> None:
    first = {
        "type": "object",
        "required": ["b"],
        "properties": {"a": {"type": "string"}, "b": {"minimum": 1}},
    }
    second = {
        "properties": {"b": {"minimum": 1}, "a": {"type": "string"}},
        "required": ["b"],
        "type": "object",
    }
    instance = {"a": 1, "b": 0}
    assert (
        validate(first, instance)
        == validate(second, instance)
        == [
            "$.a: expected string, got integer",
            "$.b: expected at least 1, got 0",
        ]
    )


# --- enum: [] in a tool ---------------------------------------------------------------------------


def test_suite_check_still_refuses_an_empty_enum_in_a_tool() -> None:
    """The validator accepts `enum: []` (no value passes); `suite check` calls it a mistake."""
    from lobrec.core.suite.build_rules import _parameter_problems

    def tool(mode: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"mode": mode, "tags": {"type": "array", "items": {"enum": []}}},
            "additionalProperties": False,
        }

    assert core.validate(tool({"enum": []}), {"mode": "r"}) != []
    assert _parameter_problems(tool({"enum": []})) == [
        "$.properties.mode: enum is empty: no value can pass",
        "$.properties.tags.items: enum is empty: no value can pass",
    ]
    assert _parameter_problems(tool({"enum": ["r"]})) == [
        "$.properties.tags.items: enum is empty: no value can pass"
    ]

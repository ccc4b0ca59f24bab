"""The small JSON Schema subset lobrec validates tool arguments against.

The "valid arguments" metric needs a validator whose verdicts follow JSON, not Python: `true` is not
an integer, `1.0` is, and `enum: [1]` accepts `1.0` but not `true`. It also needs one that cannot be
misused: a general validator silently ignores keywords it does not know, so a tool schema using
`oneOf` or `$ref` would validate nothing and nobody would notice. This one supports exactly

    type, enum, const, properties, required, additionalProperties, items,
    minItems, maxItems, minimum, maximum, minLength, maxLength, pattern

ignores the annotations title, description, default, examples, $schema and $comment, and raises
`SchemaError` for anything else, naming the keyword and where it is. `docs/schema.md` describes the
semantics; `pattern` is an ECMA-262 regular expression run in linear time (`lobrec.core.suite.ecma`).

Schemas are compiled once into closures and cached by their canonical JSON text, so the same tool
schema validating thousands of calls is checked and compiled once. Everything here is pure.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from lobrec.core.judge.jsonvalue import is_integer, is_number, json_equal, json_type, preview
from lobrec.core.suite.ecma import EcmaPattern, PatternError, compile_ecma
from lobrec.errors import SchemaError

__all__ = ["MAX_DEPTH", "PatternError", "check_schema", "compile_ecma", "validate"]

MAX_DEPTH = 64
"""How deeply a schema document may nest; bounds recursion at compile and at validation time."""

_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
    }
)
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$schema", "$comment"})

_TYPES: dict[str, Callable[[Any], bool]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": is_integer,
    "number": is_number,
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}

# --- instance paths ------------------------------------------------------------------------------
#
# A path is built lazily as nested pairs `(parent, key)` (an int key is an array index) and only
# rendered when an error is reported, so valid values cost a tuple per level and no string work.

_Path = tuple[Any, str | int] | None
_Check = Callable[[Any, _Path, list[str]], None]


def _segment(key: str | int) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    if key.isidentifier():
        return f".{key}"
    return f"[{json.dumps(key, ensure_ascii=False)}]"


def _render(path: _Path) -> str:
    keys: list[str | int] = []
    while path is not None:
        path, key = path
        keys.append(key)
    return "$" + "".join(_segment(key) for key in reversed(keys))


def _show(value: Any, limit: int = 80) -> str:
    """`preview`, safe on any Python value (a deeply nested instance must not make validate raise)."""
    try:
        return preview(value, limit)
    except RecursionError:
        return f"<deeply nested {json_type(value)}>"


def _quote(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# --- pattern: ECMA-262, in linear time (lobrec.core.suite.ecma) ----------------------------------------


def _compile_pattern(pattern: str, where: str) -> EcmaPattern:
    try:
        return compile_ecma(pattern)
    except PatternError as exc:
        raise SchemaError(f"invalid 'pattern' at {where}: {exc}: /{pattern}/") from None


# --- compiling -----------------------------------------------------------------------------------


def _accept(value: Any, path: _Path, errors: list[str]) -> None:
    """The compiled form of `true` and `{}`: every value is valid."""


def _reject(value: Any, path: _Path, errors: list[str]) -> None:
    errors.append(f"{_render(path)}: not allowed (the schema is false)")


def _malformed(keyword: str, where: str, expected: str, got: Any) -> SchemaError:
    return SchemaError(f"invalid {keyword!r} at {where}: expected {expected}, got {_show(got)}")


def _length(schema: dict[str, Any], keyword: str, where: str) -> int | None:
    if keyword not in schema:
        return None
    value = schema[keyword]
    if not is_integer(value) or value < 0:
        raise _malformed(keyword, where, "a non-negative integer", value)
    return int(value)


def _bound(schema: dict[str, Any], keyword: str, where: str) -> int | float | None:
    if keyword not in schema:
        return None
    value: int | float = schema[keyword]
    if not is_number(value) or value != value or value in (float("inf"), float("-inf")):
        raise _malformed(keyword, where, "a finite number", value)
    return value


def _types(schema: dict[str, Any], where: str) -> list[str] | None:
    if "type" not in schema:
        return None
    value = schema["type"]
    names = [value] if isinstance(value, str) else value
    expected = "a type name or a non-empty array of distinct type names"
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        raise _malformed("type", where, expected, value)
    for name in names:
        if name not in _TYPES:
            raise SchemaError(f"invalid 'type' at {where}: unknown type {_quote(name)}")
    if len(set(names)) != len(names):
        raise _malformed("type", where, expected, value)
    return names


def _compile(schema: Any, where: str) -> _Check:
    """Check one schema node (raising SchemaError) and return the closure that validates against it."""
    if schema is True:
        return _accept
    if schema is False:
        return _reject
    if not isinstance(schema, dict):
        raise SchemaError(f"invalid schema at {where}: expected an object or a boolean, got {_show(schema)}")
    unknown = sorted(key for key in schema if key not in _KEYWORDS and key not in _ANNOTATIONS)
    if unknown:
        raise SchemaError(f"unsupported keyword {unknown[0]!r} at {where}")
    types = _types(schema, where)
    checks = [check for rule in _RULES if (check := rule(schema, where)) is not None]
    return _node_check(types, checks)


# --- one rule per group of keywords: the check they make together, or None when they make none ---


def _const_rule(schema: dict[str, Any], where: str) -> _Check | None:
    return _const_check(schema["const"]) if "const" in schema else None


def _enum_rule(schema: dict[str, Any], where: str) -> _Check | None:
    if "enum" not in schema:
        return None
    options = schema["enum"]
    if not isinstance(options, list):
        raise _malformed("enum", where, "an array", options)
    # `enum: []` is a legal schema that no value satisfies (JSON Schema's own test suite says so).
    return _enum_check(options) if options else _empty_enum


def _number_rule(schema: dict[str, Any], where: str) -> _Check | None:
    minimum, maximum = _bound(schema, "minimum", where), _bound(schema, "maximum", where)
    if minimum is None and maximum is None:
        return None
    return _number_check(minimum, maximum)


def _string_rule(schema: dict[str, Any], where: str) -> _Check | None:
    min_length, max_length = _length(schema, "minLength", where), _length(schema, "maxLength", where)
    regex = None
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            raise _malformed("pattern", where, "a string", schema["pattern"])
        regex = _compile_pattern(schema["pattern"], where)
    if min_length is None and max_length is None and regex is None:
        return None
    return _string_check(min_length, max_length, regex, schema.get("pattern", ""))


def _array_rule(schema: dict[str, Any], where: str) -> _Check | None:
    min_items, max_items = _length(schema, "minItems", where), _length(schema, "maxItems", where)
    items = _compile(schema["items"], f"{where}.items") if "items" in schema else _accept
    if min_items is None and max_items is None and items is _accept:
        return None
    return _array_check(min_items, max_items, items)


def _required(schema: dict[str, Any], where: str) -> list[str]:
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise _malformed("required", where, "an array of strings", required)
    if len(set(required)) != len(required):
        raise _malformed("required", where, "an array of distinct strings", required)
    return required


def _object_rule(schema: dict[str, Any], where: str) -> _Check | None:
    required = _required(schema, where)
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _malformed("properties", where, "an object whose values are schemas", properties)
    compiled = {
        name: _compile(sub, f"{where}.properties{_segment(name)}") for name, sub in properties.items()
    }
    additional: _Check | None = None
    if "additionalProperties" in schema:
        additional = _compile(schema["additionalProperties"], f"{where}.additionalProperties")
    if (
        required
        or any(check is not _accept for check in compiled.values())
        or additional not in (None, _accept)
    ):
        return _object_check(required, compiled, additional)
    return None


_RULES: tuple[Callable[[dict[str, Any], str], _Check | None], ...] = (
    _const_rule,
    _enum_rule,
    _number_rule,
    _string_rule,
    _array_rule,
    _object_rule,
)
"""In the order their checks run, which is the order of a value's errors (`validate`)."""


def _node_check(types: list[str] | None, checks: list[_Check]) -> _Check:
    if types is None:
        if not checks:
            return _accept
        if len(checks) == 1:
            return checks[0]
    predicates = tuple(_TYPES[name] for name in types or ())
    expected = " or ".join(types or ())

    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if predicates and not any(predicate(value) for predicate in predicates):
            # A value of the wrong type gets one error; the other keywords would only repeat it.
            errors.append(f"{_render(path)}: expected {expected}, got {json_type(value)}")
            return
        for each in checks:
            each(value, path, errors)

    return check


def _const_check(const: Any) -> _Check:
    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not json_equal(const, value):
            errors.append(f"{_render(path)}: expected {_show(const)}, got {_show(value)}")

    return check


def _empty_enum(value: Any, path: _Path, errors: list[str]) -> None:
    errors.append(f"{_render(path)}: not allowed (the enum is empty: no value can pass)")


def _enum_check(options: list[Any]) -> _Check:
    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not any(json_equal(option, value) for option in options):
            errors.append(f"{_render(path)}: expected one of {_show(options, 200)}, got {_show(value)}")

    return check


def _number_check(minimum: float | None, maximum: float | None) -> _Check:
    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not is_number(value):
            return
        if minimum is not None and value < minimum:
            errors.append(f"{_render(path)}: expected at least {_show(minimum)}, got {_show(value)}")
        if maximum is not None and value > maximum:
            errors.append(f"{_render(path)}: expected at most {_show(maximum)}, got {_show(value)}")

    return check


def _string_check(
    min_length: int | None, max_length: int | None, regex: EcmaPattern | None, source: str
) -> _Check:
    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not isinstance(value, str):
            return
        length = len(value)  # Python strings are sequences of code points, as JSON Schema counts
        if min_length is not None and length < min_length:
            errors.append(
                f"{_render(path)}: expected at least {_count(min_length, 'character')}, got {length}"
            )
        if max_length is not None and length > max_length:
            errors.append(
                f"{_render(path)}: expected at most {_count(max_length, 'character')}, got {length}"
            )
        if regex is not None and not regex.search(value):
            errors.append(f"{_render(path)}: expected a string matching /{source}/, got {_show(value)}")

    return check


def _array_check(min_items: int | None, max_items: int | None, items: _Check) -> _Check:
    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not isinstance(value, list):
            return
        length = len(value)
        if min_items is not None and length < min_items:
            errors.append(f"{_render(path)}: expected at least {_count(min_items, 'item')}, got {length}")
        if max_items is not None and length > max_items:
            errors.append(f"{_render(path)}: expected at most {_count(max_items, 'item')}, got {length}")
        if items is not _accept:
            for index, item in enumerate(value):
                items(item, (path, index), errors)

    return check


def _object_check(required: list[str], properties: dict[str, _Check], additional: _Check | None) -> _Check:
    checked = [(name, sub) for name, sub in properties.items() if sub is not _accept]
    extra = None if additional is _accept else additional

    def check(value: Any, path: _Path, errors: list[str]) -> None:
        if not isinstance(value, dict):
            return
        for name in required:
            if name not in value:
                errors.append(f"{_render(path)}: missing required property {_quote(name)}")
        for name, sub in checked:
            if name in value:
                sub(value[name], (path, name), errors)
        if extra is None:
            return
        for key, item in value.items():
            if key in properties:
                continue
            if extra is _reject:
                errors.append(f"{_render(path)}: unexpected property {_quote(str(key))}")
            else:
                extra(item, (path, key if isinstance(key, str) else str(key)), errors)

    return check


def _depth(document: Any) -> int:
    """How deeply a decoded JSON document nests (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(document, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        if isinstance(node, dict):
            stack.extend((child, level + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, level + 1) for child in node)
    return deepest


@functools.lru_cache(maxsize=1024)
def _compiled(canonical: str) -> _Check:
    # Compiling from the canonical text, not the caller's object, makes the cached result a function
    # of the key alone: two schemas with the same JSON text always get the same verdicts.
    schema = json.loads(canonical)
    if _depth(schema) > MAX_DEPTH:
        raise _too_deep()
    return _compile(schema, "$")


def forget_compiled() -> None:
    """Start afresh: every schema checked from here on is compiled again, and asks `compile_ecma`
    for its patterns again (a build that collects the patterns a suite uses)."""
    _compiled.cache_clear()


def _too_deep() -> SchemaError:
    return SchemaError(f"invalid schema at $: nested deeper than {MAX_DEPTH} levels")


def _canonical(schema: Any) -> str:
    try:
        return json.dumps(schema, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except RecursionError as exc:
        if _depth(schema) > MAX_DEPTH:  # a schema nested 5,000 deep: say so, not "not JSON"
            raise _too_deep() from None
        raise SchemaError(f"invalid schema at $: not a JSON document ({exc})") from None
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"invalid schema at $: not a JSON document ({exc})") from None


def check_schema(schema: dict[str, Any] | bool) -> None:
    """Raise SchemaError if `schema` uses a keyword outside the subset or a malformed value.

    The suite's build check calls this for every tool's parameters, so an unsupported keyword is
    caught when the suite is built, not when a model's call fails to be judged.
    """
    _compiled(_canonical(schema))


def validate(schema: dict[str, Any] | bool, instance: object) -> list[str]:
    """Validate `instance` against `schema`; return the errors, each prefixed with its JSON path.

    An empty list means valid. Never raises because of the instance, only SchemaError for a schema
    `check_schema` would reject. Errors come in a fixed order: the value's own keywords (const,
    enum, bounds, lengths, pattern), then its items or properties, depth first.
    """
    return validator(schema)(instance)


def validator(schema: dict[str, Any] | bool) -> Callable[[object], list[str]]:
    """`validate` against `schema`, compiled once: for a caller that validates many values against
    one schema it holds unchanged (the judge, for each tool of the suite)."""
    return functools.partial(_errors_of, _compiled(_canonical(schema)))


def _errors_of(check: _Check, instance: object) -> list[str]:
    errors = _Errors()
    try:
        check(instance, None, errors)
    except _Full:
        return [*errors, f"... and more: only the first {MAX_ERRORS} errors are kept"]
    return list(errors)


MAX_ERRORS = 20
"""Errors kept per validated value. Arguments with 800,000 unexpected keys fit in a cassette; one
message each cost 790 MiB and a 55 MB results file, so validation stops at the cap (the value is
invalid either way) and says so."""


class _Full(Exception):
    """The errors list reached `MAX_ERRORS`: the walk stops there."""


class _Errors(list[str]):
    def append(self, error: str) -> None:
        if len(self) >= MAX_ERRORS:
            raise _Full
        super().append(error)

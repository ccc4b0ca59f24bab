"""lobrec's validator against jsonschema's Draft 2020-12 validator as an oracle.

On schemas restricted to the supported subset, and patterns and strings on which ECMA-262 and
Python's `re` agree (see tests/support/strategies.py), the two must give the same verdict on every
instance. Where lobrec deliberately differs (regex dialect), the unit table pins the behaviour.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from lobrec.core.suite.jsonschema import check_schema, validate
from tests.support.strategies import json_values, odd_python_values, schemas, schemas_with_instances


@given(schemas_with_instances())
def test_verdict_equals_jsonschema(pair: tuple[dict[str, Any] | bool, Any]) -> None:
    schema, instance = pair
    assert (validate(schema, instance) == []) == Draft202012Validator(schema).is_valid(instance)


@given(st.just({"enum": []}) | schemas().map(lambda s: {"properties": {"a": {"enum": []}}, "items": s}))
def test_an_empty_enum_passes_no_instance_as_in_jsonschema(schema: dict[str, Any]) -> None:
    """`enum: []` is a legal schema no value satisfies (the official suite's "enum": [] cases)."""
    Draft202012Validator.check_schema(schema)
    for instance in (None, 0, "a", [], {}, {"a": 1}, [{"a": None}]):
        assert (validate(schema, instance) == []) == Draft202012Validator(schema).is_valid(instance)
    assert validate({"enum": []}, None) != []


@given(schemas())
def test_generated_schemas_are_accepted_by_both(schema: dict[str, Any] | bool) -> None:
    Draft202012Validator.check_schema(schema)
    assert check_schema(schema) is None


@given(schemas(), json_values(max_leaves=30) | odd_python_values)
def test_validate_never_raises_and_every_error_names_a_path(
    schema: dict[str, Any] | bool, instance: object
) -> None:
    errors = validate(schema, instance)
    assert all(isinstance(error, str) and error.startswith("$") and ": " in error for error in errors)


@given(schemas_with_instances(), st.randoms(use_true_random=False))
def test_schema_key_order_does_not_matter(pair: tuple[dict[str, Any] | bool, Any], random: Any) -> None:
    schema, instance = pair

    def shuffled(node: Any) -> Any:
        if isinstance(node, dict):
            keys = list(node)
            random.shuffle(keys)
            return {key: shuffled(node[key]) for key in keys}
        if isinstance(node, list):
            return [shuffled(item) for item in node]
        return node

    assert validate(shuffled(schema), instance) == validate(schema, instance)

"""`subset` on an object: every listed key is present in the argument and JSON-equal to its value,
a listed null included (a missing key is not null)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge.jsonvalue import json_equal
from lobrec.core.suite.checks import run_check
from lobrec.core.suite.format import Subset

_KEYS = st.sampled_from(("a", "b", "c", "archived_at"))
# null often, and JSON-equal spellings (1, 1.0) that must still count as equal
_VALUES = st.sampled_from((None, None, 0, 1, 1.0, True, False, "", "x", [], {}))
_objects = st.dictionaries(_KEYS, _VALUES, max_size=4)


def _oracle(wanted: dict[str, Any], got: dict[str, Any]) -> bool:
    return all(key in got and json_equal(got[key], value) for key, value in wanted.items())


@given(_objects, _objects)
def test_subset_holds_exactly_when_every_listed_key_is_present_and_equal(
    wanted: dict[str, Any], got: dict[str, Any]
) -> None:
    holds = run_check(Subset(arg="o", value=wanted), {"o": got}) is None
    assert holds == _oracle(wanted, got)


@given(_objects, _KEYS)
def test_dropping_a_listed_key_fails_even_when_its_value_is_null(wanted: dict[str, Any], key: str) -> None:
    listed = {**wanted, key: None}
    assert run_check(Subset(arg="o", value=listed), {"o": listed}) is None
    without = {k: v for k, v in listed.items() if k != key}
    mismatch = run_check(Subset(arg="o", value=listed), {"o": without})
    assert mismatch is not None and f"key {key!r} is missing" in mismatch.reason

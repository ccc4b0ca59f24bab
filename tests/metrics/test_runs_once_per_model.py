"""A model's runs view and a suite's case index are built once per object, and never reused for
another object (`lobrec.core.memo.per_object`)."""

from __future__ import annotations

import gc

import msgspec

from lobrec.core.memo import per_object
from lobrec.core.metrics.runs import runs_of
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(4)


def test_the_runs_view_is_built_once_per_model_and_follows_a_replaced_model() -> None:
    model = model_of(SUITE, "A", [0])
    assert runs_of(model) is runs_of(model)
    renamed = msgspec.structs.replace(model, model="B")
    assert runs_of(renamed).model == "B"
    assert runs_of(model).model == "A"


def test_a_memo_entry_goes_with_its_object() -> None:
    calls: list[str] = []

    class Box(msgspec.Struct, frozen=True, weakref=True):
        name: str

    @per_object
    def shout(box: Box) -> str:
        calls.append(box.name)
        return box.name.upper()

    first = Box("a")
    assert (shout(first), shout(first)) == ("A", "A")
    assert calls == ["a"]
    del first
    gc.collect()
    for name in ("b", "c", "d"):  # new objects may reuse the id: each is computed, never answered
        assert shout(Box(name)) == name.upper()
    assert calls == ["a", "b", "c", "d"]


def test_a_suite_finds_the_first_case_of_an_id() -> None:
    case = SUITE.cases[2]
    assert SUITE.case(case.id) is case
    assert SUITE.case("nope") is None

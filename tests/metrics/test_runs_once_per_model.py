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


def test_a_carried_answer_serves_the_copy_and_goes_with_it() -> None:
    calls: list[str] = []

    class Box(msgspec.Struct, frozen=True, weakref=True):
        name: str
        tag: int = 0

    @per_object
    def shout(box: Box) -> str:
        calls.append(box.name)
        return box.name.upper()

    first = Box("a")
    assert shout.carry(first, Box("a", 1)).tag == 1  # nothing computed yet: nothing to carry
    shout(first)
    copy = shout.carry(first, msgspec.structs.replace(first, tag=2))
    assert shout(copy) == "A"
    assert calls == ["a"]
    del copy
    gc.collect()
    assert shout(Box("z")) == "Z"  # the copy's entry went with it: an id reused is computed again
    assert calls == ["a", "z"]


def test_ranking_and_provenance_keep_each_models_runs_view() -> None:
    """The tiers and the provenance copy every model; the view built for the tiers serves the copies
    (it was built twice per model before, once for the tiers and once for the reports)."""
    from lobrec.core.metrics.results import RunResult, SuiteRef
    from lobrec.core.metrics.tiers import rank_run
    from lobrec.running.run_result import with_provenance

    models = [model_of(SUITE, name, passed) for name, passed in (("A", [0, 1]), ("B", [0]))]
    before = [runs_of(model) for model in models]
    run = with_provenance(
        rank_run(RunResult(suite=SuiteRef(name=SUITE.name, version=SUITE.version), models=models)), SUITE, []
    )
    assert [runs_of(model) for model in run.models] == before
    assert all(runs_of(model) is view for model, view in zip(run.models, before, strict=True))
    assert all(new is not old for new, old in zip(run.models, models, strict=True))

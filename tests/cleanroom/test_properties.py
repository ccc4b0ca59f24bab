"""The clean-room reference against lobrec's public functions on generated inputs: failed step
verdicts of every shape, and whole runs of several models (repeats, errored and stale cases, `auto`
answering as recorded, unrecorded or no models)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from lobrec.core import failures, tiers
from lobrec.core.compare import compare
from lobrec.core.results import RunResult
from lobrec.core.suite import Suite
from tests.cleanroom import compare as side
from tests.cleanroom import reference as ref
from tests.cleanroom.strategies import TOOLS, failed_verdicts, runs


@settings(max_examples=600)
@given(failed_verdicts(), st.sets(st.sampled_from(TOOLS)))
def test_classify_step(verdict, later) -> None:  # type: ignore[no-untyped-def]
    found = failures.classify_step(verdict, later)
    expected = ref.classify(verdict, later)
    assert found is not None and expected is not None
    assert (found.kind, found.argument, found.check) == (expected.kind, expected.argument, expected.check)


@settings(max_examples=60)
@given(runs())
def test_kinds_failures_and_broke_at(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    for model in run.models:
        assert side.kinds(suite, model)[0] == side.kinds(suite, model)[1]
        theirs, ours = side.failures(suite, model)
        assert theirs == ours


@settings(max_examples=60)
@given(runs())
def test_tiers(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    theirs, ours = side.tiers(suite, run)
    assert theirs == ours


@settings(max_examples=60)
@given(runs())
def test_resolution(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    theirs, ours = side.resolution(run.resolution, ref.run_resolution(suite, run.models))
    assert theirs == ours


@settings(max_examples=60)
@given(runs())
def test_routing(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    (auto,) = [m for m in run.models if m.model == ref.ROUTER] or [None]
    theirs, ours = side.routing(None if auto is None else auto.routing, ref.routing(suite, run.models))
    assert theirs == ours


@settings(max_examples=40)
@given(runs())
def test_diff_resolution(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    for a, b in combinations(run.models, 2):
        found = tiers.with_resolution(compare(a, b), a, b)
        expected = ref.pair_resolution(suite, a, b)
        theirs, ours = side.resolution(found.resolution, expected)
        assert theirs == ours
        assert found.resolved == ref.resolved(a, b, expected)


@settings(max_examples=80)
@given(st.integers(0, 120), st.sampled_from([0.0, 0.01, 1 / 12, 0.2, 0.5, 0.9, 0.99, 1.0]))
def test_min_difference(n: int, f: float) -> None:
    assert tiers.min_difference(n, f) == ref.min_difference(n, f)


@settings(max_examples=200)
@given(st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.025, 0.05, 0.3, 1.0]), max_size=8))
def test_holm(p_values: list[float]) -> None:
    assert tiers.holm(p_values) == ref.holm(p_values)

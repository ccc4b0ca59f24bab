"""The clean-room reference against lobrec on the committed fixtures' results (`make demo`'s
out/results.json, pinned byte for byte as fixtures/expected-results.json): every failed step's kind,
every case's `broke_at`, every model's `failures` and `tier`, the run's resolution, `auto`'s routing,
and the pair resolution `lobrec diff` gives every pair of the demo's models."""

from __future__ import annotations

from functools import cache
from itertools import combinations
from pathlib import Path

import pytest

from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.core.metrics.tiers import with_resolution
from lobrec.core.suite.format import Suite
from lobrec.suite_file import load_suite
from tests.metrics.cleanroom import compare as side
from tests.metrics.cleanroom import reference as ref

RESULTS = Path(__file__).parents[3] / "fixtures" / "expected-results.json"


@cache
def demo() -> tuple[Suite, RunResult]:
    return load_suite(), decode_results(RESULTS.read_bytes())


NAMES = [model.model for model in demo()[1].models]


def model(name: str):  # type: ignore[no-untyped-def]
    (found,) = [m for m in demo()[1].models if m.model == name]
    return found


def test_the_demo_holds_what_is_compared() -> None:
    """The fixture exercises every figure: kinds, repeats, several tiers, a routed model."""
    _, run = demo()
    assert run.resolution is not None and run.resolution.repeated
    assert len({m.tier for m in run.models}) >= 4
    assert model("auto").routing is not None
    assert sum(sum(m.failures.values()) for m in run.models) > 300


@pytest.mark.parametrize("name", NAMES)
def test_failure_kinds_and_broke_at(name: str) -> None:
    suite, _ = demo()
    theirs, ours = side.kinds(suite, model(name))
    assert theirs == ours


@pytest.mark.parametrize("name", NAMES)
def test_failures(name: str) -> None:
    suite, _ = demo()
    theirs, ours = side.failures(suite, model(name))
    assert theirs == ours


def test_tiers() -> None:
    suite, run = demo()
    theirs, ours = side.tiers(suite, run)
    assert theirs == ours


def test_resolution() -> None:
    suite, run = demo()
    theirs, ours = side.resolution(run.resolution, ref.run_resolution(suite, run.models))
    assert theirs == ours


def test_routing() -> None:
    suite, run = demo()
    theirs, ours = side.routing(model("auto").routing, ref.routing(suite, run.models))
    assert theirs == ours


@pytest.mark.parametrize("pair", list(combinations(NAMES, 2)), ids="-vs-".join)
def test_diff_resolution(pair: tuple[str, str]) -> None:
    """`lobrec diff A B`'s resolution and its `resolved` verdict, for every pair of demo models."""
    suite, _ = demo()
    a, b = model(pair[0]), model(pair[1])
    found = with_resolution(compare(a, b), a, b)
    expected = ref.pair_resolution(suite, a, b)
    theirs, ours = side.resolution(found.resolution, expected)
    assert theirs == ours
    assert found.resolved == ref.resolved(a, b, expected)

"""The clean-room reference against lobrec's public functions on generated inputs: failed step
verdicts of every shape, and whole runs of several models (repeats, errored and stale cases, `auto`
answering as recorded, unrecorded or no models)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge import failures
from lobrec.core.metrics import tiers
from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import RunResult
from lobrec.core.suite.format import Suite
from tests.metrics.cleanroom import compare as side
from tests.metrics.cleanroom import reference as ref
from tests.metrics.cleanroom.strategies import TOOLS, failed_verdicts, ranked_runs, runs
from tests.support.examples import costly


@given(failed_verdicts(), st.sets(st.sampled_from(TOOLS)))
def test_classify_step(verdict, later) -> None:  # type: ignore[no-untyped-def]
    found = failures.classify_step(verdict, later)
    expected = ref.classify(verdict, later)
    assert found is not None and expected is not None
    assert (found.kind, found.argument, found.check) == (expected.kind, expected.argument, expected.check)


@costly(3)
@given(runs())
def test_kinds_failures_and_broke_at(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    for model in run.models:
        assert side.kinds(suite, model)[0] == side.kinds(suite, model)[1]
        theirs, ours = side.failures(suite, model)
        assert theirs == ours


@costly(3)
@given(runs())
def test_tiers(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    theirs, ours = side.tiers(suite, run)
    assert theirs == ours


@costly(3)
@given(ranked_runs())
def test_tiers_and_resolution_of_a_leaderboard(generated: tuple[Suite, RunResult]) -> None:
    """Up to six models on up to 40 cases, with ties, gaps, repeats and errored cases: several
    tiers occur (one in three examples or so), so Holm and the leader rule are exercised."""
    suite, run = generated
    theirs, ours = side.tiers(suite, run)
    assert theirs == ours
    theirs_res, ours_res = side.resolution(run.resolution, ref.run_resolution(suite, run.models))
    assert theirs_res == ours_res
    a, b = run.models[:2]
    found = tiers.with_resolution(compare(a, b), a, b)
    expected = ref.pair_resolution(suite, a, b)
    assert side.resolution(found.resolution, expected)[0] == side.resolution(found.resolution, expected)[1]
    assert found.resolved == ref.resolved(a, b, expected)


@costly(3)
@given(runs())
def test_resolution(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    theirs, ours = side.resolution(run.resolution, ref.run_resolution(suite, run.models))
    assert theirs == ours


@costly(3)
@given(runs())
def test_routing(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    (auto,) = [m for m in run.models if m.model == ref.ROUTER] or [None]
    theirs, ours = side.routing(None if auto is None else auto.routing, ref.routing(suite, run.models))
    assert theirs == ours


@costly(3)
@given(runs())
def test_diff_resolution(generated: tuple[Suite, RunResult]) -> None:
    suite, run = generated
    for a, b in combinations(run.models, 2):
        found = tiers.with_resolution(compare(a, b), a, b)
        expected = ref.pair_resolution(suite, a, b)
        theirs, ours = side.resolution(found.resolution, expected)
        assert theirs == ours
        assert found.resolved == ref.resolved(a, b, expected)


FLIP_RATES = [0.0, 0.01, 1 / 12, 0.2, 0.5, 0.9, 0.99, 1.0]


@given(st.integers(0, 120), st.sampled_from(FLIP_RATES) | st.floats(0, 1))
def test_min_difference_exact(n: int, f: float) -> None:
    assert tiers.min_difference(n, f) == ref.min_difference(n, f)


@given(st.integers(301, 5000), st.sampled_from(FLIP_RATES) | st.floats(0, 1))
def test_min_difference_normal(n: int, f: float) -> None:
    """Above 300 cases, Connor's normal approximation."""
    assert tiers.min_difference(n, f) == ref.min_difference(n, f)


@pytest.mark.parametrize("f", [0.0, 0.05, 0.2, 0.45, 0.65, 0.8])
def test_the_approximation_is_close_at_300_cases(f: float) -> None:
    """docs/metrics.md: within 0.4 pp of the exact figure at 300 cases (the reference's own two)."""
    exact = ref.min_difference(300, f)
    approximate = ref.min_difference(301, f)  # 301: the normal approximation's first size
    assert exact is not None and approximate is not None
    assert abs(exact - approximate) <= 0.4 + 1e-9


@given(st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.025, 0.05, 0.3, 1.0]), max_size=8))
def test_holm(p_values: list[float]) -> None:
    assert tiers.holm(p_values) == ref.holm(p_values)

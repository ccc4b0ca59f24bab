"""Properties of the one-to-one matching and of call-step verdicts."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.judge.matching import maximum_matching, perfect_matching
from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion
from lobrec.core.suite.format import CallStep
from tests.support.strategies import call_steps, compatibility, completion_for


def brute_force_size(n: int, m: int, ok: set[tuple[int, int]]) -> int:
    best = 0
    for k in range(min(n, m), 0, -1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                if all((i, j) in ok for i, j in zip(rows, cols, strict=True)):
                    return k
    return best


@given(compatibility(max_side=6))
def test_matching_is_one_to_one_and_uses_only_compatible_pairs(
    data: tuple[int, int, set[tuple[int, int]]],
) -> None:
    n, m, ok = data
    pairing = maximum_matching(n, m, lambda i, j: (i, j) in ok)
    used = [j for j in pairing if j is not None]
    assert len(used) == len(set(used))
    assert all((i, j) in ok for i, j in enumerate(pairing) if j is not None)


@given(compatibility(max_side=6))
def test_matching_size_equals_brute_force(data: tuple[int, int, set[tuple[int, int]]]) -> None:
    n, m, ok = data
    pairing = maximum_matching(n, m, lambda i, j: (i, j) in ok)
    assert sum(j is not None for j in pairing) == brute_force_size(n, m, ok)


@given(compatibility(max_side=6), st.randoms(use_true_random=False))
def test_matching_size_ignores_order(data: tuple[int, int, set[tuple[int, int]]], rnd: object) -> None:
    n, m, ok = data
    perm = list(range(m))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    shuffled = {(i, perm[j]) for i, j in ok}
    size = sum(j is not None for j in maximum_matching(n, m, lambda i, j: (i, j) in ok))
    size_shuffled = sum(j is not None for j in maximum_matching(n, m, lambda i, j: (i, j) in shuffled))
    assert size == size_shuffled


@given(compatibility(max_side=6))
def test_perfect_matching_exists_iff_brute_force_finds_one(
    data: tuple[int, int, set[tuple[int, int]]],
) -> None:
    n, m, ok = data
    found = perfect_matching(n, m, lambda i, j: (i, j) in ok)
    assert (found is not None) == (n == m and brute_force_size(n, m, ok) == n)


def verdict(step: CallStep, calls: list[tuple[str, str]]) -> bool:
    return judge_step(step, parse_completion(completion_for(calls)), [], 0).passed


@given(call_steps(), st.randoms(use_true_random=False))
def test_reference_answers_pass_in_any_order(step: CallStep, rnd: object) -> None:
    calls = [(c.name, json.dumps(c.answer)) for c in step.calls]
    rnd.shuffle(calls)  # type: ignore[attr-defined]
    assert verdict(step, calls)


@given(call_steps(), st.data())
def test_verdict_is_invariant_under_permutation(step: CallStep, data: st.DataObject) -> None:
    calls = [(c.name, json.dumps(c.answer)) for c in step.calls]
    # perturb one answer so that both verdicts occur
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(calls) - 1))
        calls[i] = (calls[i][0], json.dumps({"value": data.draw(st.integers(-3, 3))}))
    order = data.draw(st.permutations(range(len(calls))))
    assert verdict(step, calls) == verdict(step, [calls[k] for k in order])


@given(call_steps(), st.data())
def test_an_extra_call_fails_a_passing_step(step: CallStep, data: st.DataObject) -> None:
    calls = [(c.name, json.dumps(c.answer)) for c in step.calls]
    extra = data.draw(st.sampled_from(calls))
    position = data.draw(st.integers(0, len(calls)))
    assert not verdict(step, [*calls[:position], extra, *calls[position:]])


@given(call_steps(), st.data())
def test_removing_a_call_fails_a_passing_step(step: CallStep, data: st.DataObject) -> None:
    calls = [(c.name, json.dumps(c.answer)) for c in step.calls]
    drop = data.draw(st.integers(0, len(calls) - 1))
    assert not verdict(step, calls[:drop] + calls[drop + 1 :])

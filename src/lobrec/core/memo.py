"""Per-object memos: a pure function of one immutable object, computed once per object.

A run's models are read by the tiers, the routing view and every report, and each asks for the same
derived view of a model (`lobrec.core.metrics.runs.runs_of`); judging asks the suite for cases by id tens of
thousands of times. Recomputing those per question made rescore grow faster than its input.

The memo keys on the object's identity and lives exactly as long as the object: a weak reference
drops the entry when the object goes, so it never answers for another object that reuses the id,
and never keeps one alive. The memoized function must be pure and its argument immutable (frozen
Structs, whose lists nobody mutates once built), so a cached answer is the answer.

A copy that changes only fields the function never reads (a model given its tier, or the manifests
it was read from) has the same answer: `carry` hands it over instead of computing it again.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class PerObject(Generic[T, R]):
    """`function`, computed once per argument object (which must support weak references)."""

    def __init__(self, function: Callable[[T], R]) -> None:
        self._function = function
        self._memo: dict[int, tuple[weakref.ref[T], R]] = {}
        functools.update_wrapper(self, function)

    def __call__(self, value: T) -> R:
        hit = self._memo.get(id(value))
        if hit is not None and hit[0]() is value:
            return hit[1]
        found = self._function(value)
        self._remember(value, found)
        return found

    def carry(self, old: T, new: T) -> T:
        """`new`, given the answer already computed for `old`, if any: for a copy of `old` that
        changed nothing the function reads (the caller's promise). Returns `new`."""
        hit = self._memo.get(id(old))
        if hit is not None and hit[0]() is old and new is not old:
            self._remember(new, hit[1])
        return new

    def _remember(self, value: T, found: R) -> None:
        key = id(value)
        memo = self._memo
        memo[key] = (weakref.ref(value, lambda _, key=key: memo.pop(key, None)), found)  # type: ignore[misc]


def per_object(function: Callable[[T], R]) -> PerObject[T, R]:
    """`function`, computed once per argument object (which must support weak references)."""
    return PerObject(function)


__all__ = ["PerObject", "per_object"]

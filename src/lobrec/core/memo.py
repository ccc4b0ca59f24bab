"""Per-object memos: a pure function of one immutable object, computed once per object.

A run's models are read by the tiers, the routing view and every report, and each asks for the same
derived view of a model (`lobrec.core.metrics.runs.runs_of`); judging asks the suite for cases by id tens of
thousands of times. Recomputing those per question made rescore grow faster than its input.

The memo keys on the object's identity and lives exactly as long as the object: a weak reference
drops the entry when the object goes, so it never answers for another object that reuses the id,
and never keeps one alive. The memoized function must be pure and its argument immutable (frozen
Structs, whose lists nobody mutates once built), so a cached answer is the answer.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def per_object(function: Callable[[T], R]) -> Callable[[T], R]:
    """`function`, computed once per argument object (which must support weak references)."""
    memo: dict[int, tuple[weakref.ref[T], R]] = {}

    @functools.wraps(function)
    def memoized(value: T) -> R:
        key = id(value)
        hit = memo.get(key)
        if hit is not None and hit[0]() is value:
            return hit[1]
        found = function(value)
        memo[key] = (weakref.ref(value, lambda _, key=key: memo.pop(key, None)), found)  # type: ignore[misc]
        return found

    return memoized


__all__ = ["per_object"]

"""One-to-one pairing of expected calls with the calls a model made.

A greedy first fit (take, for each expected call, the first unused call that passes) can miss a
full pairing that exists: if call 0 satisfies expected A and B but call 1 only A, greedy gives call 0
to A and fails B. This module finds a maximum bipartite matching with augmenting paths (Kuhn's
algorithm), which is exact; with at most a handful of calls per step its cost is negligible.
Ties are broken by index: expected calls are placed in order, each trying calls in order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence


def maximum_matching(
    n_expected: int, n_observed: int, compatible: Callable[[int, int], bool]
) -> list[int | None]:
    """For each expected index, the observed index paired with it (None if unpaired).

    The result pairs as many expected calls as any one-to-one assignment can.
    """
    edges: list[list[int]] = [[j for j in range(n_observed) if compatible(i, j)] for i in range(n_expected)]
    owner: list[int | None] = [None] * n_observed

    def augment(i: int, seen: list[bool]) -> bool:
        for j in edges[i]:
            if seen[j]:
                continue
            seen[j] = True
            current = owner[j]
            if current is None or augment(current, seen):
                owner[j] = i
                return True
        return False

    for i in range(n_expected):
        augment(i, [False] * n_observed)

    pairing: list[int | None] = [None] * n_expected
    for j, paired in enumerate(owner):
        if paired is not None:
            pairing[paired] = j
    return pairing


def perfect_matching(
    n_expected: int, n_observed: int, compatible: Callable[[int, int], bool]
) -> list[int] | None:
    """A pairing that uses every expected and every observed call, or None when none exists."""
    if n_expected != n_observed:
        return None
    pairing = maximum_matching(n_expected, n_observed, compatible)
    if any(j is None for j in pairing):
        return None
    return [j for j in pairing if j is not None]


def same_multiset(expected: Sequence[str | None], observed: Sequence[str | None]) -> bool:
    """The same names, the same number of times, nothing extra (in the same order: equal at once)."""
    return list(expected) == list(observed) or Counter(expected) == Counter(observed)

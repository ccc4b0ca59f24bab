"""How many examples a costly property draws: a share of the profile's count, never a number of its own.

The Hypothesis profile (tests/conftest.py) sets how many examples every property draws: fewer in
the inner loop, the same seed in CI, many more in a soak. A property whose every example runs a
whole command or a whole leaderboard declares how much costlier it is, and draws that share of the
profile's count, so a soak still multiplies it and nothing pins a count in a test.
"""

from __future__ import annotations

from hypothesis import settings


def costly(factor: int, **options: object) -> settings:
    """`@costly(10)`: a tenth of the profile's examples (at least 5), for a property 10x dearer to run."""
    return settings(max_examples=max(5, settings.default.max_examples // factor), **options)  # type: ignore[arg-type]

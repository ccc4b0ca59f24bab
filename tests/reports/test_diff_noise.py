"""`lobrec diff`'s resolution sentence names where its noise figure came from: the pair's own
disagreement both ways (2 * min(b, c) of the paired cases) or the run-to-run flips of repeated runs,
whichever is larger; "a best case" only when neither is there to measure."""

from __future__ import annotations

from collections.abc import Sequence

from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.tiers import with_resolution
from lobrec.reports.diffview import summary_lines
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(20)


def _sentence(a_runs: Sequence[Sequence[int]], b_runs: Sequence[Sequence[int]]) -> str:
    a, b = model_of(SUITE, "A", *a_runs), model_of(SUITE, "B", *b_runs)
    (line,) = [line for line in summary_lines(with_resolution(compare(a, b), a, b)) if line.startswith("On ")]
    return line


def test_the_pairs_own_disagreement_is_named_not_called_flips_between_runs() -> None:
    # A fails 0, 1, 4, 5 and B 0..3: b = 2 (cases 2, 3), c = 2 (4, 5): 2 x 2 of 20 = 20%.
    line = _sentence([[0, 1, 4, 5]], [range(4)])
    assert line.startswith(
        "On 20 cases, taking 20.0% of them as noise (the pair's disagreement both ways, "
        "2 × min(b, c) = 2 × 2 of 20; no repeats, so no run-to-run flips measured), "
    )
    assert "best case" not in line and "flipping" not in line


def test_no_disagreement_both_ways_and_no_repeats_is_a_best_case() -> None:
    line = _sentence([[]], [range(8)])
    expected = "taking 0.0% of them as noise (no repeats, and the pair disagrees one way only: a best case)"
    assert expected in line


def test_run_to_run_flips_are_named_when_they_are_the_larger() -> None:
    # B flips cases 0..6 between run 1 and runs 2, 3 (14 of 60); A flips none (0 of 60): 14/120.
    # Its pass rate is lower on 0..6 only (one way): no disagreement both ways.
    line = _sentence([[], [], []], [[], range(7), range(7)])
    assert "taking 11.7% of them as noise (the run-to-run flips of the repeated runs), " in line


def test_a_pair_disagreement_larger_than_the_measured_flips_is_named() -> None:
    # Two runs each, no flips; A fails 0..3 and B 4..7 in both: b = c = 4, 2 x 4 of 20 = 40%.
    line = _sentence([range(4), range(4)], [range(4, 8), range(4, 8)])
    assert (
        "taking 40.0% of them as noise (the pair's disagreement both ways, 2 × min(b, c) = 2 × 4 of 20, "
        "at least the run-to-run flips of the repeated runs)"
    ) in line

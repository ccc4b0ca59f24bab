"""A model's 'no scores' sentence is worded from its counts alone: it never says every case
errored when some were never started (a model that failed fast) or none errored (a Ctrl-C)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.results import Counts
from lobrec.reports.leaderboard import no_scores_note


def unscored(errored: int, stale: int, unrecorded: int) -> Counts:
    return Counts(
        cases=errored + stale + unrecorded, scored=0, errored=errored, stale=stale, unrecorded=unrecorded
    )


@pytest.mark.parametrize(
    ("counts", "sentence"),
    [
        (unscored(80, 0, 0), "no scores: every case errored"),
        (unscored(8, 0, 72), "no scores: 8 cases errored, 72 not recorded"),
        (unscored(0, 0, 80), "no scores: no case recorded"),
        (unscored(0, 80, 0), "no scores: every case stale"),
        (unscored(1, 2, 0), "no scores: 1 case errored, 2 stale"),
        (unscored(0, 0, 0), "no scores: no case to judge"),
    ],
)
def test_the_sentence_for_each_mix_of_counts(counts: Counts, sentence: str) -> None:
    assert no_scores_note(counts) == sentence


@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300))
def test_every_number_in_the_sentence_is_a_count_it_describes(
    errored: int, stale: int, unrecorded: int
) -> None:
    counts = unscored(errored, stale, unrecorded)
    sentence = no_scores_note(counts)
    assert ("every case errored" in sentence) == (errored > 0 and errored == counts.cases)
    numbers = [int(found) for found in re.findall(r"\d+", sentence)]
    shown = [count for count in (errored, stale, unrecorded) if count]
    assert numbers == ([] if len(shown) <= 1 else shown)

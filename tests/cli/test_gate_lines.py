"""A failed `--fail-under` line never prints a score as the threshold it is under."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cli._gates import score_against
from lobrec.core.metrics.gates import failed_gates
from tests.support.sample_results import sample_run


def _printed_number(text: str) -> float:
    return float(text.rstrip("%"))


@given(
    threshold=st.floats(min_value=0.1, max_value=100, allow_nan=False).map(lambda t: round(t, 1)),
    gap=st.floats(min_value=1e-4, max_value=0.2),
)
def test_a_score_under_the_threshold_prints_under_it(threshold: float, gap: float) -> None:
    rate = round(threshold - gap, 4)
    if rate >= threshold or rate < 0:
        return
    assert _printed_number(score_against(threshold)(rate)) < threshold


def test_the_hand_example_gains_one_decimal_and_a_plain_score_keeps_one() -> None:
    assert score_against(90)(89.96) == "89.96%"
    assert score_against(90)(50.0) == "50.0%"
    assert score_against(None)(89.96) == "90.0%"
    assert score_against(90)(None) == "—"


def test_the_fail_under_line_names_the_unrounded_enough_score() -> None:
    run = sample_run()
    model = run.models[0]
    overall = msgspec.structs.replace(model.metrics.overall, rate=89.96)
    metrics = msgspec.structs.replace(model.metrics, overall=overall)
    run = msgspec.structs.replace(
        run, models=[msgspec.structs.replace(model, metrics=metrics, has_scores=True)]
    )
    [failure] = [
        f for f in failed_gates(run, fail_under=90, shown=score_against(90)) if f.gate == "fail_under"
    ]
    assert "(89.96%)" in failure.line
    assert "90.0%" not in failure.line

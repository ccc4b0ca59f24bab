"""One precision rule for rates and differences: one decimal, rounded half up on the number as
written (as a spreadsheet rounds), the same in every sentence and table."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.results import Resolution
from lobrec.reports._format import fixed, percent, points
from lobrec.reports.insight import resolution_sentence


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (81.25, "81.3%"),  # 13/16: binary round-half-even would print 81.2%
        (0.05, "0.1%"),
        (2.675, "2.7%"),
        (99.95, "100.0%"),
        (-0.04, "0.0%"),  # never `-0.0`
        (10.0, "10.0%"),
        (None, "—"),
    ],
)
def test_a_rate_has_one_decimal_rounded_half_up(value: float | None, shown: str) -> None:
    assert percent(value) == shown


def test_a_difference_has_one_decimal_even_when_whole() -> None:
    assert points(10.0) == "10.0 pp"
    assert points(9.75) == "9.8 pp"
    assert points(2.5, signed=True) == "+2.5 pp"
    assert points(-0.25, signed=True) == "-0.3 pp"
    assert points(0.0, signed=True) == "0.0 pp"


def test_the_resolution_sentence_prints_a_whole_difference_with_its_decimal() -> None:
    resolution = Resolution(
        alpha=0.05, power=0.8, cases=80, flip_rate=0.0, repeated=False, min_difference=10.0
    )
    sentence = resolution_sentence(resolution, observed=9.75)
    assert "is 10.0 pp; the observed difference (+9.8 pp) is below it." in sentence


@given(st.floats(-1000, 1000, allow_nan=False))
def test_fixed_is_half_up_on_the_written_number(value: float) -> None:
    expected = Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    assert Decimal(fixed(value)) == expected
    assert fixed(value) != "-0.0"

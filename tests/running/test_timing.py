"""An attempt's timing is a type: measured (a number of ms, 0 included) or not timed, never 0 for both."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.errors import GatewayError, TransportFailure
from lobrec.running.exchange import NOT_TIMED, Answer, Measured, NotTimed, failure_timing, latency_ms


@given(st.floats(min_value=0, max_value=86_400_000, allow_nan=False))
def test_a_measured_time_is_written_as_it_was_measured(ms: float) -> None:
    assert latency_ms(Measured(ms)) == ms
    assert Answer(200, {}, b"", ms).timing == Measured(ms)


def test_not_timed_is_written_as_null_and_is_not_a_zero_measure() -> None:
    assert latency_ms(NOT_TIMED) is None
    assert latency_ms(Measured(0.0)) == 0.0
    assert Measured(0.0) != NOT_TIMED


@pytest.mark.parametrize(
    ("failure", "timing"),
    [
        (TransportFailure("ConnectError: refused", elapsed_ms=0.0), Measured(0.0)),
        (
            TransportFailure("Timeout: no complete answer within 1.0 seconds", elapsed_ms=1000.5),
            Measured(1000.5),
        ),
        (GatewayError("the reply is over the 4194304-byte cap"), NotTimed()),
    ],
)
def test_a_transport_failure_was_timed_and_a_refused_answer_was_not(
    failure: GatewayError, timing: object
) -> None:
    assert failure_timing(failure) == timing

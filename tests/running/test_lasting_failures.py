"""Which errored cases count toward failing fast (`runner.lasting_failure`): a table of attempts."""

from __future__ import annotations

import pytest

from lobrec.core.metrics.results import ApiCall, CaseResult
from lobrec.running.runner import lasting_failure


def _errored(*calls: ApiCall) -> CaseResult:
    return CaseResult(id="c", group="selection", status="errored", reason="r", api_calls=list(calls))


REFUSED = "ConnectError: [Errno 111] Connection refused"


@pytest.mark.parametrize(
    ("calls", "lasting"),
    [
        ([ApiCall(step=0, attempt=0, status=401, latency_ms=1)], True),
        ([ApiCall(step=0, attempt=0, status=403, latency_ms=1)], True),
        ([ApiCall(step=0, attempt=0, status=404, latency_ms=1)], True),
        ([ApiCall(step=0, attempt=0, status=400, latency_ms=1)], False),
        ([ApiCall(step=0, attempt=a, status=503, latency_ms=1) for a in range(4)], False),
        ([ApiCall(step=0, attempt=a, status=None, error=REFUSED, latency_ms=1) for a in range(4)], True),
        (
            [
                ApiCall(step=0, attempt=a, status=None, error="Timeout: no answer", latency_ms=1)
                for a in range(4)
            ],
            True,
        ),
        (
            [
                ApiCall(step=0, attempt=a, status=None, error="ReadError: reset", latency_ms=1)
                for a in range(4)
            ],
            False,
        ),
        # a refused connection after a 503: the gateway was there
        (
            [
                ApiCall(step=0, attempt=0, status=503, latency_ms=1),
                *(ApiCall(step=0, attempt=a, status=None, error=REFUSED, latency_ms=1) for a in (1, 2, 3)),
            ],
            False,
        ),
        # a 404 on a chain's second step: the model answered its first
        (
            [
                ApiCall(step=0, attempt=0, status=200, latency_ms=1, judged=True),
                ApiCall(step=1, attempt=0, status=404, latency_ms=1),
            ],
            False,
        ),
    ],
)
def test_which_failures_are_lasting(calls: list[ApiCall], lasting: bool) -> None:
    assert (lasting_failure(_errored(*calls)) is not None) is lasting

"""In a CI log the run's last progress line is printed once; the ETA waits until enough cases have
finished for the pace to mean something."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from lobrec.core.metrics.results import CaseResult
from lobrec.running.progress import ETA_AFTER, RunProgress, eta_seconds


def test_the_last_plain_line_is_not_printed_twice() -> None:
    now = [0.0]
    console = Console(file=io.StringIO(), force_terminal=False, width=200)
    with RunProgress(
        "rescoring", total=None, console=console, clock=lambda: now[0], spending=False
    ) as progress:
        progress.planned(2)
        progress.started("m", "a")
        progress.started("m", "b")
        progress.finished("m", CaseResult(id="a", group="selection", status="scored"))
        now[0] = 10.0  # a line is due with the last case
        progress.finished("m", CaseResult(id="b", group="selection", status="scored"))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines == ["rescoring: 2/2 done, 0 errored, 0 in flight"]


def test_no_eta_from_the_first_cases() -> None:
    assert eta_seconds(1, 80, 0.5) is None
    assert eta_seconds(ETA_AFTER - 1, 80, 5.0) is None
    assert eta_seconds(ETA_AFTER, 80, 10.0) == 70.0  # one second a case, 70 cases left
    assert eta_seconds(50, 1000, 10.0) is None  # a tenth of a larger run first
    assert eta_seconds(80, 80, 10.0) is None and eta_seconds(5, None, 1.0) is None


@given(st.integers(0, 5000), st.integers(1, 5000), st.floats(0, 1e5))
def test_an_eta_is_the_average_pace_times_what_is_left(done: int, total: int, elapsed: float) -> None:
    left = eta_seconds(done, total, elapsed)
    if left is not None:
        assert done >= ETA_AFTER and done * 10 >= total and done < total
        assert left >= 0

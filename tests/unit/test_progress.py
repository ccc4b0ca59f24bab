"""The run's progress bar counts cases done, errored and running (issue 4)."""

from __future__ import annotations

import io

from rich.console import Console

from lobrec.core.results import CaseResult
from lobrec.reports.progress import RunProgress


def test_progress_counts_done_errored_and_running() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    with RunProgress("recording", total=None, console=console) as progress:
        for case_id in ("a", "b", "c"):
            progress.started("m", case_id)
        progress.finished("m", CaseResult(id="a", group="selection", status="scored"))
        progress.finished("m", CaseResult(id="b", group="selection", status="errored", reason="x"))
        assert (progress.done, progress.errored, progress.started_count) == (2, 1, 3)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "recording" in output
    assert "errored 1  running 1" in output


def test_progress_is_silent_when_not_a_terminal() -> None:
    console = Console(file=io.StringIO(), force_terminal=False)
    with RunProgress("rescoring", total=None, console=console) as progress:
        progress.started("m", "a")
        progress.finished("m", CaseResult(id="a", group="selection", status="scored"))
    assert console.file.getvalue() == ""  # type: ignore[attr-defined]

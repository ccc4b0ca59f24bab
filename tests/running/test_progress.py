"""The run's progress bar counts cases done, errored and running (issue 4)."""

from __future__ import annotations

import io

from rich.console import Console

from lobrec.core.metrics.results import CaseResult
from lobrec.running.progress import RunProgress


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


def _paid(case_id: str, status: str = "scored", cost: float | None = 0.001) -> CaseResult:
    from lobrec.core.metrics.results import ApiCall

    call = ApiCall(step=0, attempt=0, status=200, latency_ms=1.0, cost_usd=cost)
    return CaseResult(id=case_id, group="selection", status=status, api_calls=[call])  # type: ignore[arg-type]


def test_not_a_terminal_prints_a_plain_line_every_few_seconds_and_at_the_end() -> None:
    now = [0.0]
    console = Console(file=io.StringIO(), force_terminal=False, width=200)
    with RunProgress("recording", total=None, console=console, clock=lambda: now[0]) as progress:
        progress.planned(4)
        for case_id in "abcd":
            progress.started("m", case_id)
        progress.finished("m", _paid("a"))
        now[0] = 4.9
        progress.finished("m", _paid("b", "errored"))
        now[0] = 5.0
        progress.finished("m", _paid("c"))
        now[0] = 6.0
        progress.finished("m", _paid("d", cost=None))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    why = "; last errored: m b: no reason recorded"
    assert lines == [
        "recording: 2/4 done, 1 errored, 2 in flight, $0.0020 spent" + why,  # at once: a new reason
        "recording: 4/4 done, 1 errored, 0 in flight, $0.0030 spent" + why,
    ]


def test_a_rescore_says_nothing_of_spending() -> None:
    progress = RunProgress("rescoring", total=None, console=Console(file=io.StringIO()), spending=False)
    progress.planned(1)
    progress.started("m", "a")
    progress.finished("m", _paid("a"))
    assert progress.status_line() == "rescoring: 1/1 done, 0 errored, 0 in flight"


def test_the_bar_has_the_planned_total_and_an_eta() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=140, color_system=None)
    with RunProgress("recording", total=None, console=console) as progress:
        progress.planned(80)
        progress.started("m", "a")
        progress.finished("m", _paid("a"))
        assert progress.bar.tasks[0].total == 80
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "1/80" in output and "ETA" in output


def test_several_models_get_a_bar_each_under_the_total() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)
    with RunProgress("recording", total=None, console=console) as progress:
        progress.planned(3)
        progress.planned_models({"a/one": 2, "[b]": 1})
        for model, case_id in (("a/one", "x"), ("a/one", "y"), ("[b]", "x")):
            progress.started(model, case_id)
        progress.finished("a/one", _paid("x", "errored"))
        progress.finished("[b]", _paid("x"))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    last = output.split("\r")[-1] if "\r" in output else output
    assert "a/one" in last and "1/2" in last and "[b]" in last and "1/1" in last
    assert progress.by_model() == "a/one 1/2 (1 errored), [b] 1/1"


def test_one_model_has_no_breakdown() -> None:
    console = Console(file=io.StringIO(), force_terminal=False, width=200)
    with RunProgress("recording", total=None, console=console, plain_every_s=0) as progress:
        progress.planned(1)
        progress.planned_models({"m": 1})
        progress.started("m", "a")
        progress.finished("m", _paid("a"))
    assert (
        console.file.getvalue().splitlines()[-1]
        == "recording: 1/1 done, 0 errored, 0 in flight, $0.0010 spent"
    )  # type: ignore[attr-defined]

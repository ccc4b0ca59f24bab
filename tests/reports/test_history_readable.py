"""The history reads as a person reads it: recording dates as dates, not ISO timestamps, and lines
that lie exactly on one another named together so none hides unnamed."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from lobrec.core.metrics.history import HistoryRun, build_history
from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.reports.historyview import chart, recorded_date
from lobrec.reports.html import render_history_html

ROOT = Path(__file__).resolve().parents[2]


def fixtures_run() -> RunResult:
    return decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())


@pytest.mark.parametrize(
    ("stamp", "shown"),
    [
        ("2026-12-03T16:30:59+00:00", "2026-12-03 16:30 UTC"),
        ("2026-12-03T18:30:59+02:00", "2026-12-03 16:30 UTC"),
        ("2026-12-03T16:30:59", "2026-12-03 16:30"),
        ("not a date", "not a date"),
        (None, "—"),
    ],
)
def test_a_recording_date_reads_as_a_date(stamp: str | None, shown: str) -> None:
    (run,) = build_history([("a.json", fixtures_run())]).runs
    assert recorded_date(msgspec.structs.replace(run, recorded_at=stamp)) == shown


def test_the_page_shows_dates_and_keeps_the_timestamp_machine_readable() -> None:
    history = build_history([("a.json", fixtures_run()), ("b.json", fixtures_run())])
    run: HistoryRun = history.runs[0]
    assert run.recorded_at is not None and "T" in run.recorded_at
    page = render_history_html(history)
    assert f'<time datetime="{run.recorded_at}">{recorded_date(run)}</time>' in page
    assert f">{run.recorded_at}<" not in page


def test_lines_on_top_of_each_other_are_named_together() -> None:
    history = build_history([("a.json", fixtures_run()), ("b.json", fixtures_run())])
    labels = {series.model: series.label for series in chart(history).series}
    # two pairs of fixture models score alike in both files: 100% and 17.5%
    together = [label for label in labels.values() if " = " in label]
    assert "fixture/no-temperature = fixture/oracle" in together
    assert "fixture/plausible = fixture/silent" in together
    assert labels["fixture/oracle"] == "" and labels["fixture/silent"] == ""
    assert labels["auto"] == "auto"
    page = render_history_html(history)
    assert ">fixture/no-temperature = fixture/oracle</text>" in page

"""The HTML report at leaderboard scale (issue 26, item 8): a hundred models recorded three times.

The run is built from the committed fixtures (`tests/support/scale_results.py`), not recorded. The page
stays one file under 10 MB; the matrix holds the top models' columns and the reader picks others
(the script builds them from the page's data); a cell's drill-down is not in the page until the
cell opens; the matrix's headings stay in view. Render time is for `make bench` (bench/html.py),
never asserted here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lobrec.core.metrics.results import RunResult
from lobrec.reports.html import render_html
from lobrec.reports.html_data import TOP_MODELS
from lobrec.reports.leaderboard import ranked
from tests.reports.html.test_html_chromium import chromium, dump_dom
from tests.reports.html.test_html_report import cells_data
from tests.support.scale_results import leaderboard_run

__all__ = ["chromium"]  # the fixture, imported to be used here

pytestmark = pytest.mark.process

MODELS = 100
SIZE_LIMIT = 10_000_000


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, str, Path]:
    run, suite = leaderboard_run(MODELS, 3)
    page = render_html(run, suite)
    path = tmp_path_factory.mktemp("scale") / "report.html"
    path.write_text(page, encoding="utf-8")
    return run, page, path


def test_a_hundred_models_three_runs_each_make_one_file_under_10_mb(
    scale: tuple[RunResult, str, Path],
) -> None:
    run, page, path = scale
    assert len(run.models) == MODELS and all(model.run_count == 3 for model in run.models)
    assert path.stat().st_size < SIZE_LIMIT
    # one self-contained file: nothing to load
    assert re.findall(r"\b(?:src|href|srcset|action)\s*=", page) == []


def test_drill_downs_are_data_until_a_cell_opens(scale: tuple[RunResult, str, Path]) -> None:
    _, page, _ = scale
    assert '<div class="panel"' not in page and '<section class="step' not in page
    data = cells_data(page)
    assert len(data["cells"]) == MODELS * 80  # every cell's drill-down, as data
    assert len(data["columns"]) == MODELS
    # copies answer alike: a verdict is stored once, however many cells share it
    assert len(data["verdicts"]) < len(data["cells"]) / 10


def test_the_matrix_holds_the_top_models_columns(scale: tuple[RunResult, str, Path]) -> None:
    run, page, _ = scale
    head = re.search(r'<table class="matrix"><thead><tr>(.*?)</tr></thead>', page, re.S)
    assert head is not None
    names = re.findall(r'<th scope="col">([^<]*)</th>', head.group(1))
    assert names == ["Case", *(model.model for model in ranked(run)[:TOP_MODELS])]
    rows = re.findall(r'<tr class="case" [^>]*>(.*?)</tr>', page, re.S)
    assert len(rows) == 80
    assert all(row.count('<td class="cell ') == TOP_MODELS for row in rows)
    assert f"The matrix shows the top {TOP_MODELS} of {MODELS} models" in page
    assert '<div class="columns" id="columns" role="group" aria-label="Models in the matrix" hidden>' in page


def _headings(dom: str) -> list[tuple[str, bool]]:
    head = re.search(r'<table class="matrix"><thead><tr>(.*?)</tr></thead>', dom, re.S)
    assert head is not None
    return [
        (name, "hidden" in attrs) for attrs, name in re.findall(r"<th([^>]*)>([^<]*)</th>", head.group(1))
    ]


def test_a_picked_model_gets_its_column_and_the_others_leave(
    chromium: str, scale: tuple[RunResult, str, Path], tmp_path: Path
) -> None:
    run, page, path = scale
    models = [model.model for model in ranked(run)]
    dom = dump_dom(chromium, tmp_path, path.as_uri() + "#cols=0,57")
    shown = [name for name, hidden in _headings(dom) if not hidden]
    assert shown == ["Case", models[0], models[57]]
    # the picked column is built from the data: a cell per case, with the data's ids and statuses
    data = cells_data(page)
    column = data["columns"][57]
    assert column[0] == models[57]
    for cell_id in column[1]:
        status = data["cells"][cell_id][2]
        assert f'<td class="cell {status}"><details class="cell" id="{cell_id}">' in dom
    assert '<output id="columns-count" aria-live="polite">2 of 100 models shown</output>' in dom
    # without a choice, the top ones
    dom = dump_dom(chromium, tmp_path, path.as_uri())
    assert [name for name, hidden in _headings(dom) if not hidden] == ["Case", *models[:TOP_MODELS]]
    assert f"{TOP_MODELS} of 100 models shown" in dom


def test_a_picked_models_cell_opens_its_drill_down(
    chromium: str, scale: tuple[RunResult, str, Path], tmp_path: Path
) -> None:
    run, page, path = scale
    models = [model.model for model in ranked(run)]
    cell_id = cells_data(page)["columns"][57][1][0]
    dom = dump_dom(chromium, tmp_path, path.as_uri() + f"#cols=57&open={cell_id}")
    opened = re.search(
        rf'<details class="cell" id="{re.escape(cell_id)}" open="">(.*?)</details></td>', dom, re.S
    )
    assert opened is not None
    assert f"<strong>sel-01</strong> · {models[57]} " in opened.group(1)
    assert '<section class="step' in opened.group(1)
    assert len(re.findall(r'<div class="panel" role="dialog">', dom)) == 1  # only the opened cell's


_STICKY = """<script>
window.addEventListener("load", function () {
  var head = document.querySelector("table.matrix thead th:nth-child(2)");
  var box = document.querySelector(".matrix-scroll");
  var style = getComputedStyle(head);
  document.title = [style.position, style.top, getComputedStyle(box).overflowY].join(" ");
});
</script>"""


def test_the_matrix_keeps_its_headings_in_view(
    chromium: str, scale: tuple[RunResult, str, Path], tmp_path: Path
) -> None:
    """Its headings stick to the top of its own scrolling box (a tall matrix scrolls inside it)."""
    _, page, _ = scale
    probe = tmp_path / "sticky.html"
    probe.write_text(page.replace("</body>", _STICKY + "</body>"), encoding="utf-8")
    dom = dump_dom(chromium, tmp_path, probe.as_uri())
    assert "<title>sticky 0px auto</title>" in dom

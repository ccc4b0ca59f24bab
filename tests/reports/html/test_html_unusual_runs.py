"""The HTML report on unusual runs (a red team's checks): no models, one model, a model with no
scores, a suite of one group each render a page whose data holds every cell, and hostile names
(`</script>`, `<!--`, U+2028, a bidi override) never end or comment out the page's data block.
Hostile case ids and names are in `tests/reports/html/test_html_hostile_names.py`, the browser's side in
`tests/reports/html/test_html_addresses_browser.py`.
"""

from __future__ import annotations

import re

import msgspec
import pytest

from lobrec.core.suite.format import Suite
from lobrec.reports.html import render_html
from tests.reports.html.test_html_report import cells_data
from tests.support.sample_results import sample_run, sample_suite

_CELL = re.compile(r'<details class="cell" id="([^"]+)">')


def _one_group(suite: Suite) -> Suite:
    group = suite.cases[0].group
    return msgspec.structs.replace(suite, cases=[case for case in suite.cases if case.group == group])


@pytest.mark.parametrize(
    "models, one_group",
    [([], False), ([0], False), ([2], False), ([0, 1, 2], True), ([], True)],
    ids=["no models", "one model", "a model with no scores", "one group", "no models, one group"],
)
def test_unusual_runs_render_a_page_with_its_data(models: list[int], one_group: bool) -> None:
    run, suite = sample_run(), sample_suite()
    run = msgspec.structs.replace(run, models=[run.models[index] for index in models])
    if one_group:
        suite = _one_group(suite)
    page = render_html(run, suite)
    data = cells_data(page)
    assert len(data["columns"]) == len(models)
    rows = {case.id for case in suite.cases} | {result.id for model in run.models for result in model.cases}
    assert len(_CELL.findall(page)) == len(data["cells"]) == len(models) * len(rows)
    assert page.count("<script") == 2


HOSTILE = "</script><!--<script>alert(1)</script>\u2028\u2029\u202e-->"


def test_hostile_names_stay_inside_the_data_block() -> None:
    run = sample_run()
    models = [
        msgspec.structs.replace(model, model=f"{HOSTILE}{index}") for index, model in enumerate(run.models)
    ]
    page = render_html(msgspec.structs.replace(run, models=models), sample_suite())
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<!--" not in page and "\u2028" not in page and "\u2029" not in page and "\u202e" not in page
    names = [column[0] for column in cells_data(page)["columns"]]
    shown = "</script><!--<script>alert(1)</script>\\u2028\\u2029\\u202e-->"
    assert sorted(names) == [f"{shown}{n}" for n in range(3)]

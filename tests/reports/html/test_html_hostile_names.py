"""The HTML report against hostile case ids and model names (a red team's findings; docs/reliability.md,
"The HTML report against a red team"). The page is rendered by `render_html`, as
`lobrec rescore --html` writes it.

- Case ids that are alike once made into element ids (cut at 60 characters, or differing only in
  characters an id cannot hold) must still give every cell its own id: the drill-downs' data is
  keyed by id, so two cells sharing one opened the same case's drill-down.
- A model name too long for the plot must still be drawn inside it, shortened, its whole name in
  the point's hover.
"""

from __future__ import annotations

import re

import msgspec
import pytest

from lobrec.core.metrics.results import RunResult
from lobrec.core.suite.format import Suite
from lobrec.reports._labels import text_width
from lobrec.reports.html import render_html
from lobrec.reports.html_plot import WIDTH, Plot, plot
from lobrec.reports.view import report_view
from tests.reports.html.test_html_report import cells_data
from tests.support.sample_results import sample_run, sample_suite

PREFIX = "x" * 60
"""Longer case ids are cut here in an element id."""


def renamed(run: RunResult, suite: Suite, names: dict[str, str]) -> tuple[RunResult, Suite]:
    """The run and suite with case ids renamed in both."""
    cases = [msgspec.structs.replace(case, id=names.get(case.id, case.id)) for case in suite.cases]
    models = [
        msgspec.structs.replace(
            model,
            cases=[
                msgspec.structs.replace(result, id=names.get(result.id, result.id)) for result in model.cases
            ],
        )
        for model in run.models
    ]
    return msgspec.structs.replace(run, models=models), msgspec.structs.replace(suite, cases=cases)


def first_of_each_group(suite: Suite) -> list[str]:
    found: dict[str, str] = {}
    for case in suite.cases:
        found.setdefault(case.group, case.id)
    return list(found.values())


_CELL = re.compile(r'<details class="cell" id="([^"]+)">\s*<summary title="([^"]*) · ')


@pytest.mark.parametrize(
    "alike",
    [
        [f"{PREFIX}{n}" for n in range(6)],  # cut at 60: one id for all six, each first in its group
        ["a b", "a:b", "a+b", "a_b", "a_b-0", "a b-0"],  # slugged alike, and like the suffixes made
    ],
    ids=["cut at 60 characters", "slugged alike"],
)
def test_case_ids_alike_as_element_ids_get_a_cell_each(alike: list[str]) -> None:
    run, suite = sample_run(), sample_suite()
    run, suite = renamed(run, suite, dict(zip(first_of_each_group(suite), alike, strict=True)))
    page = render_html(run, suite)
    cells = _CELL.findall(page)
    assert len(cells) == len(run.models) * len(suite.cases)
    ids = [cell_id for cell_id, _ in cells]
    assert len(set(ids)) == len(ids), "two cells share an id"
    data = cells_data(page)
    # each cell opens its own case's drill-down
    for cell_id, case_id in cells:
        assert data["cases"][data["cells"][cell_id][0]]["id"] == case_id.replace("&amp;", "&")


def test_a_cell_id_already_free_is_kept() -> None:
    """Links stay valid: a case whose id is free keeps `m<place>-<case id>`."""
    page = render_html(sample_run(), sample_suite())
    assert '<details class="cell" id="m0-arg-line-range">' in page


LONG = "acme/" + "very-long-model-name-" * 12 + "v1"


def _plot_of(names: list[str]) -> Plot:
    run = sample_run()
    models = [
        msgspec.structs.replace(model, model=name) for model, name in zip(run.models, names, strict=False)
    ]
    found = plot(report_view(msgspec.structs.replace(run, models=models)))
    assert isinstance(found, Plot)
    return found


@pytest.mark.parametrize("name", [LONG, "N" * 300, "模型" * 80], ids=["hyphenated", "one run", "wide"])
def test_a_long_model_name_is_labelled_inside_the_plot(name: str) -> None:
    found = _plot_of([name])
    (point,) = [point for point in found.points if point.title.startswith(name)]
    x = float(point.text_x)
    width = text_width(point.label)
    left, right = (x - width, x) if point.anchor_end else (x, x + width)
    assert left >= 0 and right <= WIDTH, (left, right)
    assert point.label.endswith("…") and name.startswith(point.label[:-1])
    assert point.title.startswith(f"{name}: ")  # the hover keeps the whole name


def test_a_name_that_fits_is_labelled_whole() -> None:
    found = _plot_of(["openai/o4-mini"])
    assert [point.label for point in found.points if point.model == "openai/o4-mini"] == ["openai/o4-mini"]

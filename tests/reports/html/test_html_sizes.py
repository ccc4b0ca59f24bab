"""The HTML report at common window sizes, measured in headless Chromium (issue 26, item 1).

The report of the committed cassettes (seven models, one recorded three times) is written by the
real `lobrec rescore --html`; a small script appended after the report's own measures element boxes
(`getBoundingClientRect`) and leaves them in the DOM, which Chromium dumps. At 1400 px the
leaderboard's warning columns (Errored, Stale) are in view without scrolling sideways; at 390 px
(a phone) an open cell's drill-down is one column, its check text is not clipped, and "Why it
failed" keeps Got and Reason; the plot's labels are drawn at a readable size; with the report's
script taken out, nothing offers sorting.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.reports.html.test_html_chromium import chromium, measure_in_frame
from tests.support.cli import run_lobrec

__all__ = ["chromium"]  # the fixture, imported to be used here

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[3]
FAILED_CELL = ("sel-01", "fixture/sloppy")
"""fixture/sloppy on sel-01: arguments that are not JSON, so "Why it failed" has a row."""


def cell_id(report: str, case: str, model: str) -> str:
    """The id of a matrix cell, found by its title (the ids number the models in report order)."""
    found = re.search(
        rf'id="(m\d+-{re.escape(case)})"><summary title="{re.escape(case)} · {re.escape(model)}"', report
    )
    assert found is not None, (case, model)
    return found.group(1)


READABLE_PX = 11.0
"""The smallest on-screen size of the plot's label text taken as readable (the page's text is 12-14 px)."""

_MEASURE = """<script>
(function () {
  if (OPEN) document.getElementById(OPEN).open = true;  /* as a click would */
  setTimeout(run, 50);
  function run() {
  function box(element) {
    if (!element) return null;
    var r = element.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, width: r.width, height: r.height};
  }
  var out = {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth};
  var wrap = document.querySelector("#leaderboard .scroll");
  out.board = {box: box(wrap), scroll: wrap.scrollWidth, client: wrap.clientWidth, heads: {}};
  document.querySelectorAll("table.leader thead th").forEach(function (head) {
    out.board.heads[head.textContent.replace(/[\\u25B2\\u25BC]/g, "").trim()] = box(head);
  });
  var panel = document.querySelector("details.cell[open] > .panel");
  if (panel) {
    out.panel = {box: box(panel), scroll: panel.scrollWidth, client: panel.clientWidth};
    out.cols = Array.prototype.map.call(panel.querySelectorAll(".cols"), function (cols) {
      return Array.prototype.map.call(cols.children, box);
    });
    out.checks = Array.prototype.map.call(panel.querySelectorAll("ul.checks li, ol.calls li"), function (li) {
      return {box: box(li), scroll: li.scrollWidth, client: li.clientWidth};
    });
    out.why = {};
    panel.querySelectorAll("table.mismatches td").forEach(function (cell) {
      var r = box(cell);
      out.why[cell.getAttribute("data-label")] = {box: r, label: getComputedStyle(cell, "::before").content};
    });
  }
  var svg = document.querySelector("svg.plot");
  var matrix = svg.getScreenCTM();
  var label = svg.querySelector("text.label");
  out.plot = {scale: matrix.a, font: parseFloat(getComputedStyle(label).fontSize), box: box(svg)};
  out.arrows = document.querySelectorAll("table.leader .arrow").length;
  out.text = document.body.innerText;
  parent.document.body.setAttribute("data-measure", JSON.stringify(out));
  }
})();
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("sizes") / "report.html"
    done = run_lobrec(["rescore", str(ROOT / "fixtures" / "cassettes"), "--html", str(out)])
    assert done.returncode == 0, done.stderr.decode()
    return out.read_text(encoding="utf-8")


def measure(chromium: str, tmp_path: Path, page: str, width: int, cell: str = "") -> dict[str, Any]:
    """The report shown in a frame `width` px wide (a window cannot be narrower than 500 px), with
    `cell` opened, measured by `_MEASURE` into the outer page's body."""
    script = _MEASURE.replace("if (OPEN)", f"var OPEN = {json.dumps(cell)};\n  if (OPEN)", 1)
    framed = page.replace("</body>", script + "\n</body>")
    return measure_in_frame(chromium, tmp_path, framed, width)


def test_at_1400_px_the_warning_columns_are_in_view(chromium: str, report: str, tmp_path: Path) -> None:
    found = measure(chromium, tmp_path, report, 1400)
    assert 1380 <= found["viewport"] <= 1400  # less a scroll bar
    board = found["board"]
    assert board["scroll"] <= board["client"], "the leaderboard needs no sideways scroll"
    right = board["box"]["right"]
    for heading in ("Errored", "Stale", "Runs", "pass^K"):
        head = board["heads"][heading]
        assert head["width"] > 0 and head["right"] <= right + 0.5, (heading, head, right)
    assert found["page"] <= found["viewport"]


def test_at_390_px_the_drill_down_is_one_readable_column(chromium: str, report: str, tmp_path: Path) -> None:
    found = measure(chromium, tmp_path, report, 390, cell_id(report, *FAILED_CELL))
    assert 375 <= found["viewport"] <= 390
    panel = found["panel"]
    assert panel["box"]["left"] >= 0 and panel["box"]["right"] <= found["viewport"]
    assert panel["scroll"] <= panel["client"], "nothing in the drill-down needs a sideways scroll"
    for cols in found["cols"]:  # expected beside observed: stacked, one above the other
        assert len({round(child["left"]) for child in cols}) == 1, cols
        assert all(child["right"] <= panel["box"]["right"] for child in cols)
    assert found["checks"], "the drill-down lists the expected and the observed calls"
    for item in found["checks"]:
        assert item["scroll"] <= item["client"] + 1, item
        assert item["box"]["right"] <= panel["box"]["right"], item
    why = found["why"]
    assert set(why) == {"Path", "Expected", "Got", "Reason"}
    for name in ("Got", "Reason"):
        cell = why[name]
        assert cell["box"]["width"] > 0 and cell["box"]["right"] <= panel["box"]["right"], (name, cell)
        assert cell["label"] == f'"{name}"', "a stacked cell says which column it is"


def test_at_390_px_the_plot_labels_are_readable(chromium: str, report: str, tmp_path: Path) -> None:
    found = measure(chromium, tmp_path, report, 390)
    plot = found["plot"]
    assert plot["font"] * plot["scale"] >= READABLE_PX, plot
    wide = measure(chromium, tmp_path, report, 1400)["plot"]
    assert wide["font"] * wide["scale"] >= 12


def test_without_javascript_nothing_offers_sorting(chromium: str, report: str, tmp_path: Path) -> None:
    script = re.search(r"<script>.*?</script>", report, re.S)
    assert script is not None
    static = report.replace(script.group(0), "")
    off = measure(chromium, tmp_path, static, 1400)
    assert off["arrows"] == 0
    assert "click a heading" not in off["text"]
    on = measure(chromium, tmp_path, report, 1400)
    assert on["arrows"] == len(on["board"]["heads"])
    assert "click a heading to sort by it, again to reverse" in on["text"]

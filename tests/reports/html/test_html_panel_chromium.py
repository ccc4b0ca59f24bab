"""The HTML report at 390 and 1400 px in Chromium: the drill-down's "Why it failed" heading stays one
line, a mismatch path breaks only before a `.`, a check's expectation is shown as written (not
JSON-quoted again), the tier sentence sits right under the leaderboard, and the cost axis is fitted
to the costs plotted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.reports.html.test_html_chromium import chromium, measure_in_frame
from tests.reports.html.test_html_sizes import cell_id, report

__all__ = ["chromium", "report"]  # the fixtures, imported to be used here

pytestmark = pytest.mark.process

CELL = ("arg-01", "fake/alpha")
"""fake/alpha on arg-01: `calls[0].arguments.path` failed `one of "README.md", "./README.md"`."""

_MEASURE = """<script>
(function () {
  document.getElementById(OPEN).open = true;  /* as a click would */
  setTimeout(function () {
    function box(element) {
      var r = element.getBoundingClientRect();
      return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height};
    }
    var panel = document.querySelector("details.cell[open] > .panel");
    var caption = panel.querySelector("table.mismatches caption");
    var path = panel.querySelector("table.mismatches code.path");
    var range = document.createRange();
    range.selectNodeContents(path);
    var lines = Array.prototype.map.call(range.getClientRects(), function (r) { return Math.round(r.top); });
    var cells = Array.prototype.map.call(panel.querySelectorAll("table.mismatches td"), function (td) {
      return td.textContent;
    });
    var line = parseFloat(getComputedStyle(caption).lineHeight) || 20;
    var table = document.querySelector("table.leader").getBoundingClientRect();
    var tier = document.querySelector("p.tier-key");
    var hint = document.querySelector("p.scroll-hint");
    var shown = document.querySelector("#plot .scroll").getBoundingClientRect();
    var seen = Array.prototype.filter.call(document.querySelectorAll("#plot g.point circle"), function (c) {
      var r = c.getBoundingClientRect();
      return r.left >= shown.left && r.right <= shown.right;
    }).length;
    var out = {hint: getComputedStyle(hint).display, pointsSeen: seen,
      points: document.querySelectorAll("#plot g.point circle").length,
      caption: box(caption), line: line, captionText: caption.textContent,
      pathText: path.textContent, pathTops: lines, cells: cells, tableBottom: table.bottom,
      tier: tier ? box(tier) : null, tierText: tier ? tier.textContent : null};
    parent.document.body.setAttribute("data-measure", JSON.stringify(out));
  }, 50);
})();
</script>"""


def measure(chromium: str, tmp_path: Path, report: str, width: int) -> dict[str, Any]:
    """The fixtures' report in a frame `width` px wide with `CELL` open, measured by `_MEASURE`."""
    script = _MEASURE.replace("OPEN", json.dumps(cell_id(report, *CELL)), 1)
    found: dict[str, Any] = measure_in_frame(
        chromium, tmp_path, report.replace("</body>", script + "\n</body>"), width
    )
    return found


@pytest.mark.parametrize("width", [390, 1400])
def test_the_panel_reads_whole_at_each_width(chromium: str, report: str, tmp_path: Path, width: int) -> None:
    found = measure(chromium, tmp_path, report, width)
    assert found["captionText"] == "✗ Why it failed"
    assert found["caption"]["height"] < 2 * found["line"], "the heading is one line, not a letter a line"
    assert found["caption"]["width"] > 80
    assert found["pathText"] == "calls[0].arguments.path"
    assert 'one of "README.md", "./README.md"' in found["cells"]
    assert not any('\\"' in cell for cell in found["cells"]), "no JSON quoted a second time"
    tier = found["tier"]
    assert tier is not None and found["tierText"].startswith("Tier: models sharing a tier")
    assert 0 <= tier["top"] - found["tableBottom"] <= 40, "the tier sentence is right under the table"


def test_the_path_breaks_only_between_its_parts(report: str) -> None:
    """The page marks where the path may break (`<wbr>` before each `.`, from cells.js) and its
    style lets it break nowhere else."""
    css = re.search(r"code\.path \{ overflow-wrap: break-word; \}", report)
    assert css is not None
    assert "path.split(/(?=\\.)/)" in report


def test_the_cost_axis_is_fitted_to_the_costs(report: str) -> None:
    ticks = re.findall(r">\$(0\.\d+)<", report.partition('<section id="plot"')[2].partition("</section>")[0])
    values = sorted({float(tick) for tick in ticks})
    assert values and values[0] >= 0.05 and values[-1] <= 0.09, values  # the costs run $0.057-$0.081


@pytest.mark.parametrize("width", [390, 1400])
def test_the_cost_plot_shows_points_on_first_view_and_says_when_to_scroll(
    chromium: str, report: str, tmp_path: Path, width: int
) -> None:
    """At 390 px the plot (never narrower than its labels can be read) scrolls sideways: points are
    in view before any scrolling, and a line says to scroll; at 1400 px every point is in view."""
    found = measure(chromium, tmp_path, report, width)
    assert found["points"] >= 5
    if width == 390:
        assert found["hint"] == "block"
        assert found["pointsSeen"] >= 1, "the first view of the plot is not empty"
    else:
        assert found["hint"] == "none"
        assert found["pointsSeen"] == found["points"]

"""A cell's drill-down as the browser builds it: the page carries each cell's data, and its script
lays the drill-down out when the cell opens (issue 26: at a hundred models, drill-downs built up
front made a 50 MB page). Headless Chromium renders the sample report with every cell's drill-down
built (as opening it would), and the tests read the markup it made.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lobrec.reports.html import render_html
from tests.reports.html.test_html_chromium import chromium, dump_dom
from tests.support.sample_results import sample_run, sample_suite
from tests.support.scale_results import leaderboard_run

__all__ = ["chromium"]  # the fixture, imported to be used here

pytestmark = pytest.mark.process

BUILD_EVERY_CELL = """<script>
document.querySelectorAll("details.cell").forEach(function (cell) { window.lobrecBuildCell(cell); });
</script>"""


@pytest.fixture(scope="module")
def dom(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("drilldown")
    page = render_html(sample_run(), sample_suite()).replace("</body>", BUILD_EVERY_CELL + "</body>")
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    return dump_dom(chromium, folder, path.as_uri())


def test_every_cell_gets_its_drill_down(dom: str) -> None:
    cells = re.findall(r'<details class="cell" id="([^"]+)">(.*?)</details></td>', dom, re.S)
    assert len(cells) == 36
    assert all('<div class="panel" role="dialog">' in body for _, body in cells)


def test_the_drill_down_is_not_in_the_page_until_built() -> None:
    page = render_html(sample_run(), sample_suite())
    assert '<div class="panel"' not in page and '<section class="step' not in page


def test_html_cell_shows_expected_beside_observed_with_the_failing_check(dom: str) -> None:
    cell = re.search(r'id="m0-arg-line-range">(.*?)</details></td>', dom, re.S)
    assert cell is not None
    body = cell.group(1)
    assert (
        '<ul class="checks"><li class="check"><code>path = "src/app.py"</code></li>'
        '<li class="check"><code>start_line = 10</code></li>'
        '<li class="failing"><span class="mark">✗</span> <code>end_line = 20</code></li></ul>'
    ) in body
    assert (
        '<li><code class="name">read_file</code> '
        '<span class="flag bad">arguments: do not fit the schema</span>'
        '<pre class="args">{\n  "path": "src/app.py",\n  "start_line": 10,\n'
        '  "end_line": "20"\n}</pre><ul class="schema-errors">'
        "<li>$.end_line: expected integer, got string</li></ul></li>"
    ) in body
    assert (
        '<table class="mismatches"><caption>✗ Why it failed</caption>'
        "<thead><tr><th>Path</th><th>Expected</th><th>Got</th><th>Reason</th></tr></thead>"
        '<tbody><tr><td data-label="Path">'
        '<code class="path">calls[0]<wbr>.arguments<wbr>.end_line</code></td>'
        '<td data-label="Expected"><code>20</code></td>'
        '<td data-label="Got"><code>"20"</code></td>'
        '<td data-label="Reason">end_line: expected 20, got "20" (a string is not a number)</td>'
        "</tr></tbody></table>"
    ) in body


def test_html_chain_cell_shows_the_passed_step_and_the_failed_one(dom: str) -> None:
    cell = re.search(r'id="m0-chain-status-diff">(.*?)</details></td>', dom, re.S)
    assert cell is not None
    steps = re.findall(r'<section class="step (\w+)"><h4>(.*?)</h4>', cell.group(1))
    assert steps == [
        ("pass", "Step 1 · expects a call · ✓ passed"),
        ("fail", "Step 2 · expects a call · ✗ failed"),
    ]
    assert (
        '<p class="sub">Result sent back for the next step</p><pre class="text">modified: src/app.py</pre>'
        in (cell.group(1))
    )


def test_html_errored_and_stale_cells_give_the_reason(dom: str) -> None:
    errored = re.search(r'id="m0-par-three-files">(.*?)</details></td>', dom, re.S)
    stale = re.search(r'id="m0-sel-weather">(.*?)</details></td>', dom, re.S)
    assert errored is not None and stale is not None
    assert (
        '<p class="reason errored"><strong>Errored:</strong> HTTP 503 Service Unavailable after 3 retries</p>'
        in errored.group(1)
    )
    assert "<td>4</td><td>503</td>" in errored.group(1)
    assert (
        '<p class="reason stale"><strong>Stale:</strong> '
        "the suite changed this case's request since it was recorded</p>"
    ) in stale.group(1)


def test_a_repeated_models_drill_down_has_each_runs_verdict_then_each_run(
    chromium: str, tmp_path: Path
) -> None:
    """fixture/flaky, recorded three times (a copy of the committed fixture's)."""
    run, suite = leaderboard_run(5, 3)
    flaky = run.models[4]
    assert flaky.repeats is not None and flaky.repeats.flaky
    case = flaky.repeats.flaky[0]
    outcomes = next(entry.outcomes for entry in flaky.repeats.cases if entry.id == case)
    page = render_html(run, suite).replace("</body>", BUILD_EVERY_CELL + "</body>")
    path = tmp_path / "repeated.html"
    path.write_text(page, encoding="utf-8")
    dom = dump_dom(chromium, tmp_path, path.as_uri())
    cell = re.search(rf'<details class="cell" id="m4-{case}">(.*?)</details></td>', dom, re.S)
    assert cell is not None
    badges = {
        "passed": '<span class="badge pass">✓ pass</span>',
        "failed": '<span class="badge fail">✗ fail</span>',
    }
    line = " · ".join(f"Run {number} {badges[outcome]}" for number, outcome in enumerate(outcomes, start=1))
    assert f'<p class="runs">{line}</p>' in cell.group(1)
    assert cell.group(1).count('<details class="run"') == 3
    assert cell.group(1).count('<details class="run" open="">') == 1  # run 1 open

"""The HTML report in a real browser: headless Chromium renders it, runs its script, opens a cell.

Chromium is the Debian package `chromium`. When it is missing the tests skip, except under CI
(the `CI` environment variable set), where they fail: CI installs it, so its absence is a broken
build, not a reason to pass.

Chromium runs with networking features off and a throwaway profile; the report's own
Content-Security-Policy forbids any load, so the page renders from the file alone.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lobrec.reports.html import render_html
from tests.support.sample_results import sample_run, sample_suite

pytestmark = pytest.mark.process

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# A page of white compresses to a few kilobytes; the rendered report is well over 100 KB.
NON_TRIVIAL_PNG_BYTES = 30_000


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    message = "chromium is not installed (Debian: apt-get install -y chromium); the HTML e2e tests need it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.html"
    path.write_text(render_html(sample_run(), sample_suite()), encoding="utf-8")
    return path


def run_chromium(chromium: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp_path / "profile"
    env = {**os.environ, "HOME": str(tmp_path)}
    # The timeout only stops a hung browser from hanging the suite; nothing is asserted about time.
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        timeout=180,
        check=False,
        env=env,
    )


def measure_in_frame(chromium: str, tmp_path: Path, framed: str, width: int) -> Any:
    """Load `framed` (a page whose script writes JSON into the outer body's `data-measure`) in a
    frame `width` px wide (a window cannot be narrower than 500 px) and return what it measured."""
    path = tmp_path / "measured.html"
    path.write_text(
        '<!doctype html><html><body style="margin:0">'
        f'<iframe style="width:{width}px;height:900px;border:0" srcdoc="{html.escape(framed)}"></iframe>'
        "</body></html>",
        encoding="utf-8",
    )
    done = run_chromium(
        chromium,
        tmp_path,
        "--window-size=1600,1000",
        "--virtual-time-budget=3000",
        "--dump-dom",
        path.as_uri(),
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    found = re.search(r'data-measure="([^"]*)"', done.stdout.decode("utf-8"))
    assert found is not None, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))


def test_screenshot_renders_the_report(chromium: str, report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    done = run_chromium(
        chromium, tmp_path, f"--screenshot={shot}", "--window-size=1400,1800", report.as_uri()
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 1800)
    assert len(data) > NON_TRIVIAL_PNG_BYTES


def dump_dom(chromium: str, tmp_path: Path, url: str) -> str:
    done = run_chromium(chromium, tmp_path, "--virtual-time-budget=2000", "--dump-dom", url)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode("utf-8")


def test_address_opens_a_cell_showing_its_verdict(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri() + "#open=m0-arg-line-range")
    assert '<details class="cell" id="m0-arg-line-range" open="">' in dom
    assert len(re.findall(r'<details class="cell" id="[^"]+" open="">', dom)) == 1
    assert 'end_line: expected 20, got "20" (a string is not a number)' in dom
    assert '<li class="failing"><span class="mark">✗</span> <code>end_line = 20</code></li>' in dom


def test_without_an_address_no_cell_is_open(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri())
    assert '<details class="cell" id="m0-arg-line-range">' in dom
    assert re.findall(r'<details class="cell" id="[^"]+" open="">', dom) == []


def test_model_reply_stays_text_in_the_browser(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri() + "#open=m0-nocall-greeting")
    assert '<details class="cell" id="m0-nocall-greeting" open="">' in dom
    assert "Hello! &lt;script&gt;alert(1)&lt;/script&gt; \\x1b[31mI am fine\\x1b[0m, thanks &amp; you?" in dom
    assert "<script>alert(1)" not in dom
    # the page's own two: the drill-downs' data (application/json, never run) and its script
    assert dom.count("<script") == 2
    assert dom.count('<script type="application/json" id="lobrec-data">') == 1


# --- issue 13: filters, sorting, folded groups, from the address ---------------------------------
#
# The matrix's filters, the leaderboard's order and the folded groups are all kept in the address
# (`#filter=failures,disagree&group=chains&q=text&fold=selection&sort=-cost&open=<cell>`), so each
# test loads an address and reads the DOM the report's script left.


class _Dom(HTMLParser):
    """The dumped DOM's case rows, group bodies, folds, leaderboard rows and headings."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, dict[str, str | None]] = {}
        self.bodies: dict[str, dict[str, str | None]] = {}
        self.folds: dict[str, dict[str, str | None]] = {}
        self.board: list[str] = []
        self.sorted_by: list[tuple[str | None, str | None]] = []
        self.count = ""
        self._row: dict[str, str | None] | None = None
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and found.get("class") == "case":
            self._row = found
        elif tag == "code" and self._row is not None:
            self._in = "case"
        elif tag == "tbody" and found.get("class", "").startswith("group"):
            self.bodies[found["data-group"] or ""] = found
        elif tag == "details" and found.get("class") == "fold":
            self.folds[found["data-group"] or ""] = found
        elif tag == "tr" and "data-rank" in found:
            self._in = "board"
        elif tag == "th" and "aria-sort" in found:
            self.sorted_by.append((found["aria-sort"], None))
        elif (
            tag == "button"
            and found.get("class") == "sort"
            and self.sorted_by
            and self.sorted_by[-1][1] is None
        ):
            self.sorted_by[-1] = (self.sorted_by[-1][0], found["data-key"])
        elif tag == "output" and found.get("id") == "filter-count":
            self._in = "count"

    def handle_data(self, data: str) -> None:
        if self._in == "case" and self._row is not None:
            self.rows[data] = self._row
            self._row = None
            self._in = None
        elif self._in == "board":
            self.board.append(data)
            self._in = None
        elif self._in == "count":
            self.count += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "output" and self._in == "count":
            self._in = None


def parsed(dom: str) -> _Dom:
    parser = _Dom()
    parser.feed(dom)
    parser.close()
    return parser


@pytest.fixture
def two_models(tmp_path: Path) -> Path:
    """openai/o4-mini and auto: three cases both pass, nine where one does not, none both fail."""
    run = sample_run()
    path = tmp_path / "two.html"
    page = render_html(msgspec.structs.replace(run, models=run.models[:2]), sample_suite())
    path.write_text(page, encoding="utf-8")
    return path


PASSED_BY_BOTH = {"near-diff", "nocall-greeting", "chain-search-read"}


def shown(dom: _Dom) -> set[str]:
    return {case for case, row in dom.rows.items() if "hidden" not in row}


def test_failures_filter_from_the_address_hides_rows_every_model_passed(
    chromium: str, two_models: Path, tmp_path: Path
) -> None:
    dom = parsed(dump_dom(chromium, tmp_path, two_models.as_uri() + "#filter=failures"))
    assert len(dom.rows) == 12
    assert shown(dom) == set(dom.rows) - PASSED_BY_BOTH
    assert all("hidden" in dom.rows[case] for case in PASSED_BY_BOTH)
    assert dom.count == "9 of 12 cases shown"


def test_filters_combine_group_and_search(chromium: str, two_models: Path, tmp_path: Path) -> None:
    url = two_models.as_uri() + "#filter=failures&group=chains"
    dom = parsed(dump_dom(chromium, tmp_path, url))
    assert shown(dom) == {"chain-status-diff"}
    assert dom.count == "1 of 12 cases shown"
    assert {name for name, body in dom.bodies.items() if "hidden" not in body} == {"chains"}
    # the search looks through the case id and the prompt, in any case: "SRC/APP.PY" is in a prompt
    dom = parsed(dump_dom(chromium, tmp_path, two_models.as_uri() + "#q=SRC%2FAPP.PY&filter=disagree"))
    assert shown(dom) == {"arg-line-range"}


def test_without_filters_every_row_shows_and_the_bar_appears(
    chromium: str, report: Path, tmp_path: Path
) -> None:
    raw = dump_dom(chromium, tmp_path, report.as_uri())
    dom = parsed(raw)
    assert shown(dom) == set(dom.rows) and len(dom.rows) == 12
    assert '<div class="filters" id="filters" role="search" aria-label="Filter the cases">' in raw
    assert dom.count == "12 of 12 cases shown"


def test_a_filter_and_an_open_cell_share_the_address(chromium: str, two_models: Path, tmp_path: Path) -> None:
    url = two_models.as_uri() + "#filter=failures&open=m0-arg-line-range"
    raw = dump_dom(chromium, tmp_path, url)
    assert '<details class="cell" id="m0-arg-line-range" open="">' in raw
    assert "hidden" in parsed(raw).rows["near-diff"]


def test_sort_from_the_address_orders_the_leaderboard(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri()))
    assert dom.board == ["auto", "openai/o4-mini", "acme/tool-llm-7b"]  # the ranking
    assert dom.sorted_by == [("descending", "overall")]
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#sort=model"))
    assert dom.board == ["acme/tool-llm-7b", "auto", "openai/o4-mini"]
    assert dom.sorted_by == [("ascending", "model")]
    # numbers, not text: 70.0 < 72.7; a model with nothing to sort by goes last either way
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#sort=overall"))
    assert dom.board == ["openai/o4-mini", "auto", "acme/tool-llm-7b"]
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#sort=-cost"))
    assert dom.board == ["openai/o4-mini", "auto", "acme/tool-llm-7b"]
    assert dom.sorted_by == [("descending", "cost")]


def test_the_arrow_shows_the_direction(chromium: str, report: Path, tmp_path: Path) -> None:
    raw = dump_dom(chromium, tmp_path, report.as_uri() + "#sort=-latency")
    assert 'p50 latency<span class="arrow" aria-hidden="true">▼</span>' in raw
    assert 'Overall<span class="arrow" aria-hidden="true"></span>' in raw
    assert parsed(raw).board == ["openai/o4-mini", "auto", "acme/tool-llm-7b"]  # acme has no latency
    raw = dump_dom(chromium, tmp_path, report.as_uri() + "#sort=stale")
    assert 'Stale<span class="arrow" aria-hidden="true">▲</span>' in raw
    # acme 0 before 1 and 1; the two ones keep the ranking's order
    assert parsed(raw).board == ["acme/tool-llm-7b", "auto", "openai/o4-mini"]


def test_a_folded_group_from_the_address_hides_its_rows(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#fold=selection,chains"))
    assert {name for name, fold in dom.folds.items() if "open" not in fold} == {"selection", "chains"}
    assert "folded" in (dom.bodies["selection"]["class"] or "")
    hidden = set(dom.rows) - shown(dom)
    assert hidden == {"sel-readme", "sel-weather", "chain-search-read", "chain-status-diff"}


def test_opening_a_cell_in_a_folded_group_unfolds_it(chromium: str, report: Path, tmp_path: Path) -> None:
    raw = dump_dom(chromium, tmp_path, report.as_uri() + "#fold=selection&open=m0-sel-readme")
    assert '<details class="cell" id="m0-sel-readme" open="">' in raw
    dom = parsed(raw)
    assert "open" in dom.folds["selection"] and "sel-readme" in shown(dom)


_READER = """<script>
(function () {
  var log = [];
  function note() { log.push(location.hash); }
  function press(key) { document.querySelector('button.sort[data-key="' + key + '"]').click(); note(); }
  press("cost");
  press("cost");
  document.getElementById("filter-failures").click();
  note();
  var search = document.getElementById("filter-q");
  search.value = "README";
  search.dispatchEvent(new Event("input", { bubbles: true }));
  note();
  document.querySelector('details.fold[data-group="selection"] > summary').click();
  setTimeout(function () {
    note();
    document.body.setAttribute("data-log", log.join(" "));
  }, 50);
})();
</script>"""


def test_clicks_sort_filter_and_fold_and_the_address_follows(
    chromium: str, two_models: Path, tmp_path: Path
) -> None:
    """A reader's clicks, scripted after the report's own script: each lands in the address."""
    page = two_models.read_text(encoding="utf-8").replace("</body>", _READER + "\n</body>")
    path = tmp_path / "clicked.html"
    path.write_text(page, encoding="utf-8")
    raw = dump_dom(chromium, tmp_path, path.as_uri())
    log = re.search(r'data-log="([^"]*)"', raw)
    assert log is not None
    assert html.unescape(log.group(1)).split(" ") == [
        "#sort=cost",
        "#sort=-cost",
        "#filter=failures&sort=-cost",
        "#filter=failures&q=README&sort=-cost",
        "#filter=failures&q=README&fold=selection&sort=-cost",
    ]
    dom = parsed(raw)
    assert dom.board == ["openai/o4-mini", "auto"]
    assert dom.sorted_by == [("descending", "cost")]
    # sel-readme and par-three-files match (an id, a prompt, in any case); sel-readme is folded away
    assert shown(dom) == {"par-three-files"}
    assert dom.count == "2 of 12 cases shown"


# --- with the report's script taken out: what a reader with JavaScript off gets -------------------

_MEASURE = """<script>
document.querySelectorAll("tr.case").forEach(function (row) {
  row.setAttribute("data-display", getComputedStyle(row).display);
});
document.body.setAttribute("data-filters", getComputedStyle(document.getElementById("filters")).display);
</script>"""


def test_without_the_script_every_row_shows_and_a_closed_group_folds_by_css(
    chromium: str, tmp_path: Path
) -> None:
    """The report's own script is replaced by one that only measures; the selection group is closed
    as a reader would close it with a click."""
    page = render_html(sample_run(), sample_suite())
    script = re.search(r"<script>.*?</script>", page, re.S)
    assert script is not None
    page = page.replace(script.group(0), _MEASURE)
    page = page.replace(
        '<details class="fold" data-group="selection" open>', '<details class="fold" data-group="selection">'
    )
    path = tmp_path / "static.html"
    path.write_text(page, encoding="utf-8")
    raw = dump_dom(chromium, tmp_path, path.as_uri() + "#filter=failures")
    displays = {case: row.get("data-display") for case, row in parsed(raw).rows.items()}
    assert len(displays) == 12
    assert {case for case, display in displays.items() if display == "none"} == {"sel-readme", "sel-weather"}
    assert 'data-filters="none"' in raw


# --- issue 24: the case filter by failure kind ------------------------------------------------------


def test_the_kind_filter_from_the_address_shows_only_cases_of_that_kind(
    chromium: str, report: Path, tmp_path: Path
) -> None:
    """sample_run: openai/o4-mini fails an argument check on arg-line-range and chain-status-diff."""
    run = sample_run()
    wanted = {
        result.id
        for model in run.models
        for result in model.cases
        if any(step.failure_kind == "argument_check" for step in result.steps)
    }
    assert wanted == {"arg-line-range", "chain-status-diff"}
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#kind=argument_check"))
    assert shown(dom) == wanted
    assert dom.count == "2 of 12 cases shown"
    # combined with a group, a row must match both
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#group=chains&kind=argument_check"))
    assert shown(dom) == {"chain-status-diff"}
    dom = parsed(dump_dom(chromium, tmp_path, report.as_uri() + "#kind=wrong_tool"))
    assert shown(dom) == {"near-slack"}

"""The HTML report in headless Chromium against a red team: addresses that hold what the page does
not offer, hostile outside text, and JavaScript turned off.

- The address is the page's state (`filter`, `group`, `kind`, `q`, `cols`, `fold`, `sort`, `open`);
  a value the page cannot honour (an unknown sort key, a failure kind the page offers no filter
  for, a model index twice) is ignored, never left to hide every row or miscount.
- `#open=<cell>` alone opens any cell, also of a model whose column the page does not build (a link
  stays valid when the ranking moves a model out of the top 12).
- Model names, case ids, reasons and arguments of hundreds of characters without a space wrap:
  the page, the leaderboard and an open cell's panel need no sideways scroll, and a case id stays
  in its own column.
- With the script taken out, nothing promises what only the script does.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lobrec.core.metrics.results import RunResult
from lobrec.core.suite.format import Suite
from lobrec.reports.html import render_html
from lobrec.reports.html_data import TOP_MODELS
from lobrec.reports.leaderboard import ranked
from tests.reports.html.test_html_chromium import chromium, dump_dom, measure_in_frame, parsed, shown
from tests.support.sample_results import sample_run, sample_suite
from tests.support.scale_results import leaderboard_run

__all__ = ["chromium"]  # the fixture, imported to be used here

pytestmark = pytest.mark.process


def write(tmp_path: Path, run: RunResult, suite: Suite, name: str = "report.html") -> Path:
    path = tmp_path / name
    path.write_text(render_html(run, suite), encoding="utf-8")
    return path


# --- the address: values the page cannot honour are ignored ---------------------------------------


def test_a_kind_in_the_address_on_a_page_with_no_kind_filter_is_ignored(
    chromium: str, tmp_path: Path
) -> None:
    """acme/tool-llm-7b errored on every case: no failed step, so no kind filter to match rows by."""
    run = sample_run()
    page = write(tmp_path, msgspec.structs.replace(run, models=[run.models[2]]), sample_suite())
    assert 'id="filter-kind"' not in page.read_text(encoding="utf-8").split("<script>")[0]
    dom = parsed(dump_dom(chromium, tmp_path, page.as_uri() + "#kind=wrong_tool"))
    assert len(dom.rows) == 12 and shown(dom) == set(dom.rows)
    assert dom.count == "12 of 12 cases shown"


_HASHES = """<script>
(function () {
  var log = [];
  var steps = HASHES;
  function next() {
    if (!steps.length) {
      document.body.setAttribute("data-log", JSON.stringify(log));
      return;
    }
    location.hash = steps.shift();
    setTimeout(function () {
      var map = Array.prototype.map;
      var names = map.call(document.querySelectorAll("table.leader tbody tr"), function (row) {
        return row.cells[0].textContent;
      });
      var arrows = map.call(document.querySelectorAll("table.leader .arrow"), function (arrow) {
        return arrow.textContent;
      }).join("");
      var head = document.querySelector("table.leader th[aria-sort]");
      var sorted = head
        ? head.querySelector("button").getAttribute("data-key") + " " + head.getAttribute("aria-sort")
        : null;
      log.push({board: names, arrows: arrows, sorted: sorted});
      next();
    }, 50);
  }
  setTimeout(next, 50);
})();
</script>"""


def hash_steps(chromium: str, tmp_path: Path, page: Path, hashes: list[str]) -> list[dict[str, Any]]:
    """The leaderboard after each address in turn (set as a reader would follow links)."""
    script = _HASHES.replace("HASHES", json.dumps(hashes))
    stepped = tmp_path / "stepped.html"
    text = page.read_text(encoding="utf-8").replace("</body>", script + "\n</body>")
    stepped.write_text(text, encoding="utf-8")
    raw = dump_dom(chromium, tmp_path, stepped.as_uri())
    found = re.search(r'data-log="([^"]*)"', raw)
    assert found is not None, "the stepping script did not finish"
    log: list[dict[str, Any]] = json.loads(html.unescape(found.group(1)))
    return log


RANKING = ["auto", "openai/o4-mini", "acme/tool-llm-7b"]


def test_an_unknown_sort_key_in_the_address_leaves_the_ranking(chromium: str, tmp_path: Path) -> None:
    page = write(tmp_path, sample_run(), sample_suite())
    addresses = ["#sort=bogus", "#sort=model", "#sort=-", "#sort=-__proto__"]
    steps = hash_steps(chromium, tmp_path, page, addresses)
    by_model = ["acme/tool-llm-7b", "auto", "openai/o4-mini"]
    assert [step["board"] for step in steps] == [RANKING, by_model, RANKING, RANKING]
    assert [step["sorted"] for step in steps] == [
        "overall descending",
        "model ascending",
        "overall descending",
        "overall descending",
    ]
    # the sorted column shows its arrow; the others none (the faint ↕ is CSS)
    assert [step["arrows"] for step in steps] == ["▼", "▲", "▼", "▼"]


@pytest.fixture(scope="module")
def twenty(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, Path]:
    run, suite = leaderboard_run(20, 1)
    return run, write(tmp_path_factory.mktemp("twenty"), run, suite)


_COUNT = re.compile(r'<output id="columns-count" aria-live="polite">([^<]*)</output>')
_HEADS = re.compile(r'<thead><tr><th scope="col">Case</th>(.*?)</tr></thead>', re.S)


def matrix_heads(raw: str) -> list[str]:
    """The matrix's model columns in view."""
    found = _HEADS.search(raw)
    assert found is not None
    return [html.unescape(name) for name in re.findall(r'<th scope="col">([^<]*)</th>', found.group(1))]


def test_a_model_twice_in_the_address_is_one_column_counted_once(
    chromium: str, twenty: tuple[RunResult, Path], tmp_path: Path
) -> None:
    run, page = twenty
    order = [model.model for model in ranked(run)]
    raw = dump_dom(chromium, tmp_path, page.as_uri() + "#cols=0,13,13,0,999,-1,x")
    assert _COUNT.findall(raw) == ["2 of 20 models shown"]
    assert matrix_heads(raw) == [order[0], order[13]]


def test_an_open_cell_of_a_model_beyond_the_top_shows_its_column(
    chromium: str, twenty: tuple[RunResult, Path], tmp_path: Path
) -> None:
    """`#open=m<place>-<case>` alone, for a model ranked 13th: its column is built and the cell opens."""
    run, page = twenty
    model = ranked(run)[TOP_MODELS]
    place = next(index for index, each in enumerate(run.models) if each is model)
    cell = f"m{place}-sel-01"
    raw = dump_dom(chromium, tmp_path, page.as_uri() + f"#open={cell}")
    assert f'<details class="cell" id="{cell}" open="">' in raw
    assert f"<strong>sel-01</strong> · {model.model} " in raw  # its drill-down, built
    assert matrix_heads(raw)[-1] == model.model
    assert len(re.findall(r'<details class="cell" id="[^"]+" open="">', raw)) == 1


# --- hostile outside text: markup everywhere, built into the page by the scripts ----------------

EVIL = '"><img src=x onerror=alert(1)><svg onload=alert(2)></script><!--\u2028'


def everywhere_evil() -> tuple[RunResult, Suite]:
    """The sample run and suite with markup in every outside string the page shows: the suite's name
    and version, case ids and notes, model names, tool names, arguments (keys and values), schema
    errors, replies, mismatches, reasons, the answering model and API errors."""
    run, suite = sample_run(), sample_suite()

    def step(verdict: Any) -> Any:
        calls = [
            msgspec.structs.replace(
                call, name=(call.name or "") + EVIL, arguments=json.dumps({EVIL: EVIL}), schema_errors=[EVIL]
            )
            for call in verdict.calls
        ]
        mismatches = [
            msgspec.structs.replace(m, path=EVIL, reason=EVIL, got=EVIL, expected=EVIL)
            for m in verdict.mismatches
        ]
        return msgspec.structs.replace(verdict, calls=calls, mismatches=mismatches, content=EVIL)

    def case(result: Any) -> Any:
        api = [msgspec.structs.replace(call, answered_by=EVIL, error=EVIL) for call in result.api_calls]
        return msgspec.structs.replace(
            result,
            id=result.id + EVIL,
            steps=[step(each) for each in result.steps],
            api_calls=api,
            reason=result.reason and EVIL,
        )

    ref = msgspec.structs.replace(run.suite, name=EVIL, version=EVIL)
    models = [
        msgspec.structs.replace(model, model=model.model + EVIL, cases=[case(each) for each in model.cases])
        for model in run.models
    ]
    cases = [msgspec.structs.replace(each, id=each.id + EVIL, note=EVIL) for each in suite.cases]
    return (
        msgspec.structs.replace(run, suite=ref, models=models),
        msgspec.structs.replace(suite, name=EVIL, version=EVIL, cases=cases),
    )


_OPEN_ALL = """<script>
document.querySelectorAll("details.cell").forEach(function (cell) { window.lobrecBuildCell(cell); });
document.querySelectorAll("details").forEach(function (part) { part.open = true; });
</script>"""


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.handlers: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.handlers += [(tag, name) for name, _ in attrs if name.startswith("on")]


def test_markup_in_every_outside_string_stays_text_in_every_built_panel(
    chromium: str, tmp_path: Path
) -> None:
    page = render_html(*everywhere_evil()).replace("</body>", _OPEN_ALL + "\n</body>")
    path = tmp_path / "evil.html"
    path.write_text(page, encoding="utf-8")
    dom = dump_dom(chromium, tmp_path, path.as_uri())
    assert dom.count('<div class="panel" role="dialog">') == 36  # every cell's drill-down, built
    tags = _Tags()
    tags.feed(dom)
    assert tags.handlers == []
    assert {"img", "iframe", "object", "embed", "a", "form", "base", "link"} & tags.tags == set()
    assert dom.count("<script") == 3  # the data, the report's script, and the one opening every panel
    assert dom.count("<svg") == 1  # the plot's
    shown = "&lt;img src=x onerror=alert(1)&gt;&lt;svg onload=alert(2)&gt;&lt;/script&gt;&lt;!--"
    assert dom.count(shown) > 100  # as text: in every table, heading and panel


# --- hostile outside text: very long runs without a space ---------------------------------------

LONG_CASE = "arg-" + "q" * 200
NAMES = ["</script><!--<script>alert(1)</script>\u2028\u202e" + "N" * 200, "auto", "acme/" + "z" * 150]


def hostile_run() -> tuple[RunResult, Suite]:
    """The sample run with long unbroken model names, a long case id, and long unbroken reasons,
    arguments, paths and replies."""
    run, suite = sample_run(), sample_suite()
    names = {"arg-line-range": LONG_CASE}

    def case(result: Any) -> Any:
        steps = [
            msgspec.structs.replace(
                step,
                calls=[
                    msgspec.structs.replace(call, arguments=json.dumps({"path": "P" * 400}))
                    for call in step.calls
                ],
                mismatches=[
                    msgspec.structs.replace(m, path=m.path + "X" * 200, reason=m.reason + "Y" * 300)
                    for m in step.mismatches
                ],
                content=(step.content or "") + "C" * 300,
            )
            for step in result.steps
        ]
        reason = None if result.reason is None else result.reason + " " + "R" * 400
        return msgspec.structs.replace(result, id=names.get(result.id, result.id), steps=steps, reason=reason)

    models = [
        msgspec.structs.replace(model, model=NAMES[index], cases=[case(result) for result in model.cases])
        for index, model in enumerate(run.models)
    ]
    cases = [msgspec.structs.replace(each, id=names.get(each.id, each.id)) for each in suite.cases]
    return msgspec.structs.replace(run, models=models), msgspec.structs.replace(suite, cases=cases)


_MEASURE = """<script>
setTimeout(function () {
  function fits(element) { return element.scrollWidth <= element.clientWidth; }
  var out = {
    page: fits(document.documentElement),
    board: fits(document.querySelector("#leaderboard .scroll")),
    cases: Array.prototype.every.call(document.querySelectorAll("th.case"), fits),
    heads: Array.prototype.every.call(
      document.querySelectorAll("table.matrix thead th + th, table.groups thead th + th"),
      function (head) { return head.getBoundingClientRect().width <= HEAD_PX; }
    )
  };
  var panel = document.querySelector("details.cell[open] > .panel");
  if (panel) {
    /* every run's API calls open, as a reader checking the attempts would have them */
    Array.prototype.forEach.call(panel.querySelectorAll("details"), function (part) { part.open = true; });
    out.panel = fits(panel);
  }
  parent.document.body.setAttribute("data-measure", JSON.stringify(out));
}, 100);
</script>"""


HEAD_PX = 400
"""The widest a model's column heading may be (its name wraps), in the matrix and the groups table."""


def measure(chromium: str, tmp_path: Path, page: str, width: int, address: str = "") -> dict[str, bool]:
    """The page in a frame `width` px wide, at `address`: which parts fit without sideways scrolling,
    and whether every model's column heading is at most `HEAD_PX` wide."""
    opened = f"<script>location.hash = {json.dumps(address)};</script>" if address else ""
    script = _MEASURE.replace("HEAD_PX", str(HEAD_PX))
    framed = page.replace("<body>", "<body>" + opened, 1).replace("</body>", script + "\n</body>")
    result: dict[str, bool] = measure_in_frame(chromium, tmp_path, framed, width)
    return result


@pytest.fixture(scope="module")
def hostile_page() -> str:
    return render_html(*hostile_run())


def test_long_names_wrap_at_1400_px(chromium: str, hostile_page: str, tmp_path: Path) -> None:
    assert measure(chromium, tmp_path, hostile_page, 1400) == {
        "page": True,
        "board": True,
        "cases": True,
        "heads": True,
    }


def test_an_open_cell_of_long_values_needs_no_sideways_scroll_at_390_px(
    chromium: str, hostile_page: str, tmp_path: Path
) -> None:
    cell = re.search(r'<details class="cell" id="(m0-arg-q+)">', hostile_page)
    assert cell is not None
    found = measure(chromium, tmp_path, hostile_page, 390, "#open=" + cell.group(1))
    assert found["page"] and found["panel"] and found["cases"], found


def test_an_open_cells_api_calls_need_no_sideways_scroll_at_390_px(chromium: str, tmp_path: Path) -> None:
    """The API calls' seven columns scroll in their own box; the panel around them fits the screen."""
    page = render_html(sample_run(), sample_suite())
    assert measure(chromium, tmp_path, page, 390, "#open=m0-chain-status-diff")["panel"]


# --- JavaScript off ----------------------------------------------------------------------------

PROMISES = ["Click a cell", "Escape closes", "The case filter below", "The filters count", "pick any other"]
"""Words offering what only the scripts do: a cell's drill-down (and its key), the filters, the
columns of models beyond the top ones."""

_TEXT = """<script>
setTimeout(function () { document.body.setAttribute("data-text", document.body.innerText); }, 50);
</script>"""


def visible_text(chromium: str, tmp_path: Path, page: str) -> str:
    path = tmp_path / "text.html"
    path.write_text(page.replace("</body>", _TEXT + "\n</body>"), encoding="utf-8")
    found = re.search(r'data-text="([^"]*)"', dump_dom(chromium, tmp_path, path.as_uri()))
    assert found is not None, "the reading script did not run"
    return html.unescape(found.group(1))


def test_without_the_script_nothing_promises_a_drill_down_or_a_filter(
    chromium: str, twenty: tuple[RunResult, Path], tmp_path: Path
) -> None:
    """Twenty models: the matrix shows the top 12, and says how the others are shown."""
    report = twenty[1].read_text(encoding="utf-8")
    script = re.search(r"<script>.*?</script>", report, re.S)
    assert script is not None
    off = visible_text(chromium, tmp_path, report.replace(script.group(0), ""))
    assert [words for words in PROMISES if words in off] == []
    assert "A cell's calls and reasons are shown with JavaScript on." in off
    assert "The other models' columns are shown with JavaScript on." in off
    on = visible_text(chromium, tmp_path, report)
    assert [words for words in PROMISES if words in on] == PROMISES
    assert "shown with JavaScript on" not in on

"""The HTML report's explorer (issue 13): label placement, intervals, sortable columns, filters, folds.

The label placement is pure geometry and is tested as such, with a property over random plots.
The rest is checked on the generated HTML, parsed: what the script works from (ids, `data-`
attributes, the controls) must be there and right before any browser runs it. The browser's
side is `tests/reports/html/test_html_chromium.py`.
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
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.compare import RATE_METRICS
from lobrec.core.metrics.results import CallRecord, RunResult, decode_results, encode_results
from lobrec.reports._labels import LABEL_HEIGHT, Box, Label, overlapping, place_labels, text_width
from lobrec.reports.html import DEFAULT_SORT, call_flag, render_html, sort_key
from lobrec.reports.view import report_view
from lobrec.suite_file import load_suite
from tests.support.sample_results import sample_run, sample_suite

ROOT = Path(__file__).resolve().parents[3]


# --- label placement -----------------------------------------------------------------------------


def test_a_label_with_room_stays_centred_on_its_point() -> None:
    (box,) = place_labels([Label(100, 180, 50)], top=0, bottom=300)
    assert box == Box(100, 50 - LABEL_HEIGHT / 2, 180, 50 + LABEL_HEIGHT / 2)


def test_labels_that_do_not_share_any_width_keep_their_places() -> None:
    boxes = place_labels([Label(0, 50, 100), Label(60, 120, 100)], top=0, bottom=300)
    assert [box.y0 for box in boxes] == [93, 93]


def test_two_labels_on_one_point_are_stacked_apart() -> None:
    """fixture/oracle and fixture/no-temperature: one score, one cost, one place on the plot."""
    labels = [Label(492, 492 + text_width("fixture/oracle"), 20), Label(492, 600, 20)]
    first, second = place_labels(labels, top=2, bottom=324, gap=2)
    assert first == Box(492, 13, 492 + text_width("fixture/oracle"), 27)
    assert second == Box(492, 29, 600, 43)  # the first one down, as close as the gap allows
    assert overlapping([first, second], gap=2) == []


def test_the_bottom_edge_sends_a_label_up_instead_of_down() -> None:
    boxes = place_labels([Label(0, 80, 293), Label(0, 80, 293)], top=0, bottom=300, gap=2)
    assert [(box.y0, box.y1) for box in boxes] == [(286, 300), (270, 284)]


def test_obstacles_are_avoided() -> None:
    (box,) = place_labels([Label(10, 90, 100)], top=0, bottom=300, obstacles=[Box(0, 95, 20, 105)])
    assert box == Box(10, 79, 90, 93)  # above and below are as near: the higher place wins


def test_with_no_room_left_labels_go_below_the_bottom_not_onto_each_other() -> None:
    boxes = place_labels([Label(0, 40, 10)] * 5, top=0, bottom=30, gap=2)
    assert overlapping(boxes, gap=2) == []
    assert min(box.y0 for box in boxes) >= 0
    assert max(box.y1 for box in boxes) > 30


def test_text_width_is_generous_and_grows_with_the_text() -> None:
    assert text_width("fixture/no-temperature") >= 22 * 6
    assert text_width("fixture/oracle") < text_width("fixture/no-temperature")
    assert text_width("模型") == 24
    assert text_width("") == 0


_labels = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=500),
        st.floats(min_value=1, max_value=200),
        st.floats(min_value=-50, max_value=450),
    ).map(lambda t: Label(t[0], t[0] + t[1], t[2])),
    max_size=25,
)
_obstacles = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=500),
        st.floats(min_value=0, max_value=400),
        st.floats(min_value=1, max_value=20),
    ).map(lambda t: Box(t[0], t[1], t[0] + t[2], t[1] + t[2])),
    max_size=6,
)


@given(labels=_labels, obstacles=_obstacles, gap=st.sampled_from([0.0, 2.0, 3.5]))
def test_placed_labels_never_overlap_each_other_or_an_obstacle(
    labels: list[Label], obstacles: list[Box], gap: float
) -> None:
    boxes = place_labels(labels, top=2, bottom=400, gap=gap, obstacles=obstacles)
    assert len(boxes) == len(labels)
    assert overlapping(boxes, gap=gap) == []
    assert all(overlapping([box, obstacle], gap=gap) == [] for box in boxes for obstacle in obstacles)
    for label, box in zip(labels, boxes, strict=True):
        assert (box.x0, box.x1) == (label.x0, label.x1)
        assert box.y0 >= 2 - 1e-9
        assert box.y1 - box.y0 == pytest.approx(LABEL_HEIGHT)
    assert place_labels(labels, top=2, bottom=400, gap=gap, obstacles=obstacles) == boxes


# --- the parsed page -------------------------------------------------------------------------------


class _Elements(HTMLParser):
    """Every element's tag, attributes and direct text, with the ids of its open ancestors."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict[str, object]] = []
        self.stack: list[dict[str, object]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element: dict[str, object] = {
            "tag": tag,
            "attrs": dict(attrs),
            "text": "",
            "parents": [e["attrs"] for e in self.stack],
        }
        self.elements.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1]["tag"] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        for element in self.stack:
            element["text"] = str(element["text"]) + data


def elements(page: str) -> list[dict[str, object]]:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser.elements


def attrs(element: dict[str, object]) -> dict[str, str | None]:
    found = element["attrs"]
    assert isinstance(found, dict)
    return found


def section(page: str, name: str) -> str:
    """A top-level section of the page (the cases' panels hold sections of their own)."""
    found = re.search(rf'<section id="{name}">.*?</section>\n', page, re.S)
    assert found is not None, name
    return found.group(0)


def cells_data(page: str) -> dict[str, Any]:
    """The drill-downs' data the page's script builds each opened cell from (`lobrec-data`)."""
    found = re.search(r'<script type="application/json" id="lobrec-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def drill_down_text(page: str) -> str:
    """Every text in the drill-downs' data, escaped as the page's text shows it (`&lt;`), one a line."""
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            texts.append(html.escape(value, quote=False))
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(cells_data(page))
    return "\n".join(texts)


_ROW = re.compile(r'<tr class="case" ([^>]*)><th scope="row" class="case"><code>([^<]*)</code>')


def case_rows(page: str) -> dict[str, str]:
    """Each case row's attributes, by case id."""
    return {case_id: row_attrs for row_attrs, case_id in _ROW.findall(page)}


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(sample_run(), sample_suite())


@pytest.fixture(scope="module")
def fixtures() -> tuple[RunResult, str]:
    """The committed fixture models' results, as `make demo` renders them."""
    run = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    return run, render_html(run, load_suite(ROOT / "suite" / "suite.json"))


def test_the_page_is_byte_identical_for_the_same_input(fixtures: tuple[RunResult, str]) -> None:
    run, page = fixtures
    again = render_html(decode_results(encode_results(run)), load_suite(ROOT / "suite" / "suite.json"))
    assert again.encode("utf-8") == page.encode("utf-8")
    assert render_html(sample_run(), sample_suite()) == render_html(sample_run(), sample_suite())


# --- the plot ------------------------------------------------------------------------------------


def _label_boxes(svg: str) -> list[tuple[str, Box]]:
    """Each label's box as the page draws it: the same size estimate, from its x, y and anchor."""
    out = []
    for match in re.finditer(
        r'<text x="([\d.]+)" y="([\d.]+)" class="label"( text-anchor="end")?>([^<]*)<', svg
    ):
        x, baseline, name = float(match.group(1)), float(match.group(2)), match.group(4)
        width = text_width(name)
        x0 = x - width if match.group(3) else x
        middle = baseline - 4
        out.append((name, Box(x0, middle - LABEL_HEIGHT / 2, x0 + width, middle + LABEL_HEIGHT / 2)))
    return out


def test_the_fixture_models_labels_do_not_overlap(fixtures: tuple[RunResult, str]) -> None:
    run, page = fixtures
    svg = section(page, "plot")
    boxes = _label_boxes(svg)
    assert sorted(name for name, _ in boxes) == sorted(model.model for model in run.models)
    assert overlapping([box for _, box in boxes]) == []
    # oracle and no-temperature share a point (100%, about $0.081): one label moved, with a leader line
    by_name = dict(boxes)
    assert abs(by_name["fixture/oracle"].y0 - by_name["fixture/no-temperature"].y0) >= LABEL_HEIGHT
    assert svg.count('<line class="leader"') >= 1


def test_the_plot_draws_each_points_95_percent_interval(fixtures: tuple[RunResult, str]) -> None:
    run, page = fixtures
    svg = section(page, "plot")
    titles = re.findall(r'<path class="ci" d="[^"]+"><title>([^<]*)</title></path>', svg)
    wanted = []
    for model in sorted(run.models, key=lambda m: -(m.metrics.overall.rate or 0)):
        interval = model.metrics.overall.ci95
        assert interval is not None
        wanted.append(f"{model.model}: 95% interval {interval[0]:.1f}–{interval[1]:.1f}%")
    assert titles == wanted


def test_a_crowded_plot_grows_taller_rather_than_overlap() -> None:
    run = sample_run()
    o4 = run.models[0]
    crowd = [msgspec.structs.replace(o4, model=f"openai/o4-mini-clone-{i:02d}") for i in range(40)]
    page = render_html(msgspec.structs.replace(run, models=crowd), sample_suite())
    svg = section(page, "plot")
    boxes = [box for _, box in _label_boxes(svg)]
    assert len(boxes) == 40
    assert overlapping(boxes) == []
    height = int(re.search(r'<svg class="plot" viewBox="0 0 720 (\d+)"', svg).group(1))  # type: ignore[union-attr]
    assert height > 380 and max(box.y1 for box in boxes) <= height


# --- the leaderboard -----------------------------------------------------------------------------


def test_every_rate_shows_its_interval_in_its_cell(page: str) -> None:
    board = section(page, "leaderboard")
    rows = re.findall(r"<tr[^>]*data-rank[^>]*>(.*?)</tr>", board, re.S)
    run = sample_run()
    names = [re.search(r"<th[^>]*>([^<]*)</th>", row).group(1) for row in rows]  # type: ignore[union-attr]
    assert names == ["auto", "openai/o4-mini", "acme/tool-llm-7b"]
    models = {model.model: model for model in run.models}
    shown = 0
    for name, row in zip(names, rows, strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        for (metric, _, _), cell in zip(RATE_METRICS, cells, strict=False):
            rate = getattr(models[name].metrics, metric)
            if rate.ci95 is None or not models[name].has_scores:
                assert 'class="ci"' not in cell
                continue
            low, high = rate.ci95
            assert cell == f'{rate.rate:.1f}%<span class="ci">{low:.1f}–{high:.1f}%</span>'
            shown += 1
    assert shown == 14  # two models with scores, seven rates each


def test_the_leaderboard_headings_are_sort_buttons(page: str) -> None:
    board = section(page, "leaderboard")
    found = elements(board)
    buttons = [attrs(e) for e in found if e["tag"] == "button"]
    keys = [button["data-key"] for button in buttons]
    assert keys == [
        "model",
        "overall",
        "right_tool",
        "valid_arguments",
        "made_up_tool",
        "chains",
        "parallel",
        "no_call_needed",
        "latency",
        "cost",
        "scored",
        "errored",
        "stale",
    ]
    assert all(button["type"] == "button" and button["class"] == "sort" for button in buttons)
    first = {button["data-key"]: button["data-first"] for button in buttons}
    assert first["overall"] == "desc" and first["made_up_tool"] == "asc" and first["cost"] == "asc"
    assert first["model"] == "asc" and first["scored"] == "desc" and first["errored"] == "asc"
    sorted_heads = [attrs(e) for e in found if e["tag"] == "th" and "aria-sort" in attrs(e)]
    assert sorted_heads == [{"class": "num", "scope": "col", "aria-sort": "descending"}]
    assert '<table class="board leader" data-default-sort="-overall">' in board
    assert DEFAULT_SORT == "-overall"
    # Arrows and the words offering sorting come with the script (JavaScript off: nothing sorts).
    assert '<button type="button" class="sort" data-key="overall" data-first="desc">Overall</button>' in board
    assert "arrow" not in board and "click a heading" not in board
    assert 'counts<span id="sort-hint"></span></p>' in board


def test_sort_values_are_the_numbers_not_the_text(page: str) -> None:
    board = section(page, "leaderboard")
    rows = re.findall(r"<tr[^>]*data-rank[^>]*>(.*?)</tr>", board, re.S)
    values = [re.findall(r'data-sort="([^"]*)"', row) for row in rows]
    auto, o4, acme = values
    assert auto[0] == "auto" and o4[0] == "openai/o4-mini"
    assert float(o4[1]) == 70.0 and float(auto[1]) == pytest.approx(800 / 11)
    assert float(o4[9]) == pytest.approx(sample_run().models[0].metrics.cost_per_100_cases_usd)
    assert auto[9] == ""  # no cost: unpriced calls; sorts last either way
    assert acme[1:8] == [""] * 7  # no scores
    assert float(o4[10]) == pytest.approx(10 / 12) and o4[11:] == ["1", "1"]


def test_every_column_has_its_own_sort_key() -> None:
    keys = [sort_key(heading).key for heading in report_view(sample_run()).headings]
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z_]+", key) for key in keys)


# --- the matrix ----------------------------------------------------------------------------------


def test_each_group_is_a_tbody_with_a_fold_open_by_default(page: str) -> None:
    found = elements(section(page, "cases"))
    bodies = [attrs(e) for e in found if e["tag"] == "tbody" and attrs(e).get("class") == "group"]
    assert bodies == [
        {"class": "group", "id": f"group-{group}", "data-group": group}
        for group in ["selection", "arguments", "near_misses", "no_call", "parallel", "chains"]
    ]
    folds = [e for e in found if e["tag"] == "details" and attrs(e).get("class") == "fold"]
    assert [attrs(e)["data-group"] for e in folds] == [body["data-group"] for body in bodies]
    assert all("open" in attrs(e) for e in folds)
    assert [str(e["text"]) for e in folds][:2] == ["Selection 2 cases", "Arguments 2 cases"]
    assert "tbody:has(> tr.group details.fold:not([open])) > tr.case { display: none; }" in page


def test_rows_carry_what_the_filters_need(page: str) -> None:
    rows = case_rows(page)
    assert len(rows) == 12
    # acme errored everything, so every row has a model that did not pass, and the models disagree
    assert all(row.startswith('data-fail="1" data-disagree="1" ') for row in rows.values())
    assert rows["arg-line-range"].endswith('data-text="arg-line-range Read lines 10 to 20 of src/app.py."')
    two = msgspec.structs.replace(sample_run(), models=sample_run().models[:2])
    rows = case_rows(render_html(two, sample_suite()))
    passing = {case_id for case_id, row in rows.items() if row.startswith('data-fail="0"')}
    assert passing == {"near-diff", "nocall-greeting", "chain-search-read"}
    agreeing = {case_id for case_id, row in rows.items() if 'data-disagree="0"' in row}
    assert agreeing == passing  # here the two models never fail the same case


def test_the_filter_bar_is_hidden_until_the_script_shows_it(page: str) -> None:
    cases = section(page, "cases")
    found = elements(cases)
    bar = next(e for e in found if attrs(e).get("id") == "filters")
    assert "hidden" in attrs(bar) and attrs(bar)["role"] == "search"
    ids = [attrs(e).get("id") for e in found if e["tag"] in ("input", "select", "button", "output")]
    assert ids[:7] == [
        "filter-failures",
        "filter-disagree",
        "filter-group",
        "filter-kind",
        "filter-q",
        "filter-clear",
        "filter-count",
    ]
    options = [attrs(e)["value"] for e in found if e["tag"] == "option"]
    groups = ["", "selection", "arguments", "near_misses", "no_call", "parallel", "chains"]
    # the kind filter offers the kinds some model has, in the kinds' precedence order
    kinds = ["", "call_not_needed", "made_up_tool", "missing_parallel_call", "wrong_tool", "argument_check"]
    assert options == groups + kinds
    assert '<output id="filter-count" aria-live="polite">12 of 12 cases shown</output>' in cases


def test_the_script_keeps_the_address_syntax() -> None:
    page = render_html(sample_run(), sample_suite())
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)  # type: ignore[union-attr]
    assert 'var ORDER = ["filter", "group", "kind", "q", "cols", "fold", "sort", "open"];' in script
    assert "var CELL = /^[A-Za-z0-9_.-]+$/;" in script


# --- wording and numbering -------------------------------------------------------------------------


def _record(errors: list[str], *, offered: bool = True, valid: bool | None = False) -> CallRecord:
    return CallRecord(
        name="read_file", arguments="{", offered=offered, schema_valid=valid, schema_errors=errors
    )


@pytest.mark.parametrize(
    ("record", "flag"),
    [
        (_record(["arguments of read_file are not valid JSON"]), "arguments: not valid JSON"),
        (_record(["arguments did not parse"]), "arguments: not valid JSON"),
        (_record(["arguments of read_file are JSON but not an object"]), "arguments: not a JSON object"),
        (
            _record(["arguments of read_file are not a JSON object: the key 'a' appears more than once"]),
            "arguments: not a JSON object",
        ),
        (_record(["$.end_line: expected integer, got string"]), "arguments: do not fit the schema"),
        (_record([], offered=False, valid=None), "made-up tool: not offered"),
        (_record([], valid=True), None),
    ],
)
def test_call_flags_share_one_phrasing(record: CallRecord, flag: str | None) -> None:
    assert call_flag(record) == flag


def test_the_sample_page_uses_the_new_flags(page: str) -> None:
    flags = {
        call["flag"]
        for verdict in cells_data(page)["verdicts"]
        for step in verdict.get("steps", [])
        if step["observed"] is not None
        for call in step["observed"]["calls"]
    }
    assert {"arguments: do not fit the schema", "made-up tool: not offered"} <= flags
    assert "arguments do not fit the schema" not in page


def test_the_drill_down_numbers_steps_and_attempts_from_1(fixtures: tuple[RunResult, str]) -> None:
    _, page = fixtures
    data = cells_data(page)
    headings = [step["heading"] for verdict in data["verdicts"] for step in verdict.get("steps", [])]
    steps = [int(re.match(r"Step (\d+) ", heading).group(1)) for heading in headings]  # type: ignore[union-attr]
    assert min(steps) == 1 and max(steps) >= 4
    stopped = [
        int(n) for heading in headings for n in re.findall(r"the chain stopped at step (\d+)$", heading)
    ]
    assert stopped and min(stopped) == 1
    attempts = [
        row for cell in data["cells"].values() for run in cell[4] for row in run[3] if row[2] == "200"
    ]
    assert min(int(step) for step, *_ in attempts) == 1
    assert min(int(attempt) for _, attempt, *_ in attempts) == 1


def test_a_reason_is_shown_as_the_results_file_says_it() -> None:
    """The runner numbers a reason's step from 1, as the panel does (`step 2` is the panel's Step 2)."""
    run = sample_run()
    o4 = run.models[0]
    cases = [
        msgspec.structs.replace(case, reason="step 2: no recorded answer for this request")
        if case.id == "sel-weather"
        else case
        for case in o4.cases
    ]
    run = msgspec.structs.replace(run, models=[msgspec.structs.replace(o4, cases=cases)])
    data = cells_data(render_html(run, sample_suite()))
    cell = data["cells"]["m0-sel-weather"]
    assert cell[2] == "stale"
    verdict = data["verdicts"][cell[4][0][2]]
    assert (verdict["status"], verdict["reason"]) == ("stale", "step 2: no recorded answer for this request")


def test_the_runs_to_record_again_are_escaped_case_ids_in_code() -> None:
    """The re-record lines come from the template (no markup built in Python): ids escaped."""
    data = msgspec.to_builtins(sample_run())
    stale = next(c for m in data["models"] for c in m["cases"] if c["status"] == "stale")
    stale["id"] = "<b>sel&weather"
    page = render_html(msgspec.convert(data, RunResult), sample_suite())

    found = re.search(r'<section id="rerecord">.*?</section>', page)

    assert found is not None and found.group(0) == (
        '<section id="rerecord"><h2>Needs re-recording</h2><ul>'
        "<li><strong>auto</strong>: unrecorded: <code>arg-issue-labels</code></li>"
        "<li><strong>openai/o4-mini</strong>: stale: <code>&lt;b&gt;sel&amp;weather</code></li>"
        "</ul></section>"
    )

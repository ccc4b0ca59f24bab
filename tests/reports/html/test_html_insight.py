"""What a score means, in the HTML report (issue 24): tiers, failure kinds, the resolution, the
routing of `auto`, and the case filter by failure kind. Each is read off the rendered page and held
against the results it was made from (the committed fixtures' `make demo` results)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import msgspec
import pytest

from lobrec.core.judge.failures import FAILURE_KINDS, KIND_LABELS
from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.core.metrics.runs import run_cases
from lobrec.reports.html import render_html
from lobrec.reports.insight import resolution_sentence
from lobrec.suite_file import load_suite
from tests.reports.html.test_html_report import case_rows, cells_data, section

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT / "suite" / "suite.json")


@pytest.fixture(scope="module")
def run() -> RunResult:
    return decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())


@pytest.fixture(scope="module")
def page(run: RunResult) -> str:
    return render_html(run, SUITE)


def _text(fragment: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", fragment))


def _table_rows(fragment: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", fragment, re.S)
    return [[_text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


def test_the_leaderboard_has_a_tier_column_that_sorts_by_number(run: RunResult, page: str) -> None:
    board = section(page, "leaderboard")
    rows = _table_rows(board)
    assert rows[0][:3] == ["Model", "Tier", "Overall"]
    tiers = {model.model: model.tier for model in run.models}
    assert {row[0]: int(row[1]) for row in rows[1:]} == tiers
    # sorted by the column's own key (insight.TIER), lowest tier first, as numbers (no data-text:
    # tier 10 after tier 9)
    tier_button = '<button type="button" class="sort" data-key="tier" data-first="asc">Tier</button>'
    assert tier_button in board
    sorts = re.findall(
        r'<th scope="row" class="text" data-sort="[^"]*">([^<]*)</th><td class="num" data-sort="(\d+)"', board
    )
    assert {name: int(value) for name, value in sorts} == tiers


def test_the_failure_kinds_table_counts_each_models_kinds(run: RunResult, page: str) -> None:
    table = re.search(r'<table class="board kinds">(.*?)</table>', page, re.S)
    assert table is not None
    header, *rows = _table_rows(table.group(1))
    kinds = [kind for kind in FAILURE_KINDS if any(kind in model.failures for model in run.models)]
    assert header == ["Model", *(KIND_LABELS[kind] for kind in kinds), "Failed steps"]
    failing = {model.model: model.failures for model in run.models if model.failures}
    assert {row[0] for row in rows} == set(failing)
    for row in rows:
        counts = failing[row[0]]
        assert row[1:] == [*(str(counts.get(kind, 0)) for kind in kinds), str(sum(counts.values()))]
    # fixture/silent never calls: its 66 failed steps are all "no call"
    silent = next(row for row in rows if row[0] == "fixture/silent")
    assert silent[1 + kinds.index("no_call")] == silent[-1] == "66"


def test_the_resolution_sentence_is_shown(run: RunResult, page: str) -> None:
    assert run.resolution is not None and run.resolution.min_difference == 14.3
    found = re.search(r'<p class="resolution">(.*?)</p>', page, re.S)
    assert found is not None
    assert _text(found.group(1)).endswith(resolution_sentence(run.resolution))
    assert "the smallest overall difference resolved at 5% with 80% power is 14.3 pp" in found.group(1)


def _routing_section(page: str) -> str:
    found = re.search(r'<h3 class="routing">Routing of auto</h3>(.*?)(?=<h3|</section>)', page, re.S)
    assert found is not None
    return found.group(1)


def test_the_routing_of_auto_compares_nex_with_candidates_direct_and_oracle(
    run: RunResult, page: str
) -> None:
    auto = next(model for model in run.models if model.model == "auto")
    assert auto.routing is not None
    routing = _routing_section(page)
    tables = re.findall(r'<table class="board routing">(.*?)</table>', routing, re.S)
    assert len(tables) == len(auto.routing.runs)
    for table, figures in zip(tables, auto.routing.runs, strict=True):
        header, *rows = _table_rows(table)
        assert header == ["Answered by", "Overall", "Passed", "Cost/100 cases", "p50 latency"]
        names = [row[0] for row in rows]
        assert names == [
            "auto (Nex)",
            *(figure.name for figure in figures.candidates),
            "Nex's choices, answered directly",
            "oracle router (a passing candidate)",
        ]
        nex, oracle = rows[0], rows[-1]
        assert nex[2] == f"{figures.nex.overall.passed}/{figures.nex.overall.total}"
        assert oracle[2] == f"{figures.oracle.overall.passed}/{figures.oracle.overall.total}"
        assert all(row[3] and row[4] for row in rows)  # cost and p50 beside each
        assert figures.regret is not None
        assert f"routing regret {figures.regret:.1f} pp" in routing


def test_each_routed_case_shows_the_choice_and_every_verdict(run: RunResult, page: str) -> None:
    auto = next(model for model in run.models if model.model == "auto")
    assert auto.routing is not None
    routing = _routing_section(page)
    rows = dict(re.findall(r'<tr data-case="([^"]+)">(.*?)</tr>', routing, re.S))
    assert list(rows) == [case.id for case in auto.routing.cases]
    status = {"passed": "pass", "failed": "fail", None: "unrecorded"}
    for case in auto.routing.cases:
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", rows[case.id], re.S)
        assert _text(cells[1]) == ", ".join(case.chosen)
        assert f'class="badge {status.get(case.outcome, case.outcome)}"' in cells[2]
        own = re.findall(r'class="badge (\w+)"', cells[3])
        assert own == [status.get(case.chosen_outcomes.get(name), "?") for name in case.chosen]
        assert _text(cells[4]).startswith(str(case.best))
        assert f'class="badge {status.get(case.best_outcome, case.best_outcome)}"' in cells[4]


def test_unrecorded_candidates_are_named_with_their_record_command(run: RunResult) -> None:
    models = [
        msgspec.structs.replace(
            model, routing=msgspec.structs.replace(model.routing, unrecorded=["fake/<gamma>"])
        )
        if model.routing is not None
        else model
        for model in run.models
    ]
    page = render_html(msgspec.structs.replace(run, models=models), SUITE)
    routing = _routing_section(page)
    assert "not recorded, so not compared: fake/&lt;gamma&gt;" in routing
    assert "(record them with `lobrec record --model NAME` into the same cassettes folder)" in routing


def test_each_case_row_carries_the_kinds_of_its_failed_steps(run: RunResult, page: str) -> None:
    wanted: dict[str, set[str]] = {}
    for model in run.models:
        for cases in run_cases(model):
            for result in cases:
                for step in result.steps:
                    if step.failure_kind is not None:
                        wanted.setdefault(result.id, set()).add(step.failure_kind)
    rows = case_rows(page)
    found = {}
    for case_id, row in rows.items():
        kinds = re.search(r'data-kinds="([^"]*)"', row)
        if kinds is not None:
            found[case_id] = set(kinds.group(1).split())
    assert found == wanted
    options = re.findall(r'<option value="(\w+)">', section(page, "cases").split('id="filter-kind"')[1])
    assert options == [kind for kind in FAILURE_KINDS if any(kind in m.failures for m in run.models)]


def test_a_failed_step_names_its_kind_in_the_drill_down(run: RunResult, page: str) -> None:
    silent = next(index for index, model in enumerate(run.models) if model.model == "fixture/silent")
    data = cells_data(page)
    verdict = data["verdicts"][data["cells"][f"m{silent}-sel-01"][4][0][2]]
    assert [step["observed"]["kind"] for step in verdict["steps"]] == ["no call"]
    assert "p.kind" in page  # styled: the script builds `<p class="kind">Failure kind: no call</p>`


def test_a_run_without_kinds_tiers_or_routing_shows_no_insight_section(run: RunResult) -> None:
    """Older results files have none of it: no empty headings, no kind filter."""
    bare = [msgspec.structs.replace(model, tier=None, failures={}, routing=None) for model in run.models]
    page = render_html(msgspec.structs.replace(run, models=bare, resolution=None), SUITE)
    assert '<section id="insight">' not in page
    assert 'id="filter-kind"' not in page
    assert ">Tier</button>" not in page

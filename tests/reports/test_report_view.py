"""The report view (issue 23): each fact the reports show is derived once, as plain data, and
every format renders it; columns are found by key, never by their label."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import msgspec
import pytest
from rich.console import Console

from lobrec.core.judge.failures import FAILURE_KINDS, KIND_LABELS
from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.core.metrics.runs import run_cases
from lobrec.reports import terminal
from lobrec.reports.markdown import render_markdown
from lobrec.reports.view import ReportView, report_view
from tests.support.sample_results import sample_run

ROOT = Path(__file__).resolve().parents[2]


def committed() -> RunResult:
    """The committed cassettes' results: repeats (fixture/flaky), tiers, routing (auto)."""
    return decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())


def test_the_columns_have_stable_keys_in_the_leaderboards_order() -> None:
    # The keys are what the HTML report's address sorts by (`#sort=-overall`): they never change.
    assert [heading.key for heading in report_view(sample_run()).headings] == [
        "model",
        "overall",
        "interval",
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
    view = report_view(committed())
    keys = [heading.key for heading in view.headings]
    assert keys[:6] == ["model", "tier", "overall", "interval", "runs", "pass_k"]
    assert len(set(keys)) == len(keys)


def test_the_terminals_two_line_headings_name_real_keys() -> None:
    keys = {heading.key for heading in report_view(committed()).headings}
    assert set(terminal._HEADINGS) <= keys


def test_a_renamed_label_keeps_its_column_found_by_key() -> None:
    view = report_view(sample_run())
    renamed = dataclasses.replace(
        view,
        headings=tuple(
            dataclasses.replace(heading, label=heading.label.upper()) for heading in view.headings
        ),
    )
    chosen = renamed.columns(without=("interval", "scored"))
    assert [heading.key for heading in chosen][:3] == ["model", "overall", "right_tool"]
    best = renamed.models[0]
    assert [cell.text for cell in renamed.row(best, chosen)][:2] == ["auto", "72.7%"]
    assert best.cell(renamed.headings, "stale").text == "1"


def test_a_cell_holds_its_text_its_sort_value_and_its_rate() -> None:
    view = report_view(sample_run())
    auto, _, errored = view.models
    overall = auto.cell(view.headings, "overall")
    assert (overall.text, overall.sort) == ("72.7%", pytest.approx(72.7, abs=0.05))
    assert overall.rate is not None and overall.rate.ci95 is not None
    assert auto.cell(view.headings, "cost").sort is None  # unpriced calls: nothing to sort by
    none = errored.cell(view.headings, "overall")
    assert (none.text, none.sort, none.rate) == ("—", None, None)
    assert [heading.first for heading in view.headings if heading.key in ("made_up_tool", "overall")] == [
        "desc",
        "asc",
    ]


def test_the_rerecord_list_is_built_once_for_every_run() -> None:
    view = report_view(sample_run())
    assert [(entry.model, entry.run, entry.stale, entry.unrecorded) for entry in view.rerecord] == [
        ("auto", 1, (), ("arg-issue-labels",)),
        ("openai/o4-mini", 1, ("sel-weather",), ()),
    ]
    console = Console(file=io.StringIO(), width=200, force_terminal=False)
    terminal.render_leaderboard(sample_run(), console)
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "  auto — unrecorded: arg-issue-labels\n  openai/o4-mini — stale: sel-weather\n" in printed
    assert (
        "- **auto**: unrecorded: arg-issue-labels\n- **openai/o4-mini**: stale: sel-weather\n"
        in render_markdown(sample_run())
    )


def test_later_runs_to_record_follow_run_one_and_a_missing_run_is_said_in_words() -> None:
    run = committed()
    flaky = next(index for index, model in enumerate(run.models) if model.repeats is not None)
    model = run.models[flaky]
    assert model.repeats is not None
    runs = list(model.repeats.per_run)
    unrecorded = [msgspec.structs.replace(case, status="unrecorded") for case in runs[2].cases]
    runs[2] = msgspec.structs.replace(runs[2], cases=unrecorded)
    stale = [msgspec.structs.replace(model.cases[0], status="stale"), *model.cases[1:]]
    models = list(run.models)
    models[flaky] = msgspec.structs.replace(
        model, cases=stale, repeats=msgspec.structs.replace(model.repeats, per_run=runs)
    )
    view = report_view(msgspec.structs.replace(run, models=models))
    assert [(entry.model, entry.run, entry.stale, entry.missing) for entry in view.rerecord] == [
        ("fixture/flaky", 1, (model.cases[0].id,), False),
        ("fixture/flaky", 3, (), True),
    ]


def test_the_view_holds_what_the_html_report_shows() -> None:
    view = report_view(sample_run())
    auto, mini, errored = view.models
    assert (mini.matrix["sel-weather"].status, mini.matrix["par-three-files"].status) == ("stale", "errored")
    assert auto.matrix["arg-issue-labels"].status == "unrecorded"
    assert {cell.status for cell in errored.matrix.values()} == {"errored"}
    assert [point.model for point in view.plot] == ["openai/o4-mini"]
    assert view.not_plotted == (
        ("auto", "no cost: a call was unpriced"),
        ("acme/tool-llm-7b", "no scores: every case errored"),
    )
    assert mini.errored == (("par-three-files", "HTTP 503 Service Unavailable after 3 retries"),)
    assert [model.place for model in view.models] == [1, 0, 2]
    assert view.groups[0].cells == ("50.0% (1/2)", "100.0% (1/1)", "—")
    assert view.groups[0].rates[2] is None
    assert (view.group_cell(1, "selection"), view.group_cell(1, "not a group")) == ("100.0% (1/1)", "—")
    stale = mini.matrix["sel-weather"].results[0]
    assert stale is not None and stale.status == "stale"
    assert view.results_format == sample_run().results_format


def test_a_repeated_models_cells_say_its_runs() -> None:
    view = report_view(committed())
    flaky = next(model for model in view.models if model.flaky is not None)
    assert flaky.runs == 3 and flaky.flaky
    case = flaky.matrix[flaky.flaky[0]]
    assert case.status == "flaky" and len(case.run_statuses) == 3
    assert case.tally == f"{case.passes}/3"
    assert flaky.spread[0].label == "Overall"
    routed = next(model for model in view.models if model.routing)
    assert routed.name == "auto" and routed.routing_notes
    assert view.resolution and view.tiers and view.failure_rows


def test_the_view_is_plain_frozen_data_built_the_same_each_time() -> None:
    view = report_view(sample_run())
    assert isinstance(view, ReportView)
    assert view == report_view(sample_run())
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.suite_name = "other"  # type: ignore[misc]


def test_the_view_holds_what_the_html_matrix_and_routing_need() -> None:
    # The HTML report's kind filter and routed-cases table read these instead of the results.
    run = committed()
    view = report_view(run)
    by_name = {model.model: model for model in run.models}
    for model in view.models:
        routing = by_name[model.name].routing
        assert model.routed_cases == (None if routing is None else tuple(routing.cases))
    assert any(model.routed_cases for model in view.models)
    present = {kind for model in run.models for kind in model.failures}
    assert [kind for kind, _ in view.kinds] == [kind for kind in FAILURE_KINDS if kind in present]
    assert all(label == KIND_LABELS[kind] for kind, label in view.kinds)
    steps = {
        (case.id, step.failure_kind)
        for model in run.models
        for cases in run_cases(model)
        for case in cases
        for step in case.steps
        if step.failure_kind is not None
    }
    assert view.case_kinds and {case for case, _ in steps} == set(view.case_kinds)
    for case, kinds in view.case_kinds.items():
        listed = kinds.split(" ")
        assert set(listed) == {kind for found, kind in steps if found == case}
        assert listed == sorted(listed, key=FAILURE_KINDS.index)

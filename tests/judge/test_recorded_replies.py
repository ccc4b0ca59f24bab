"""Provider answers that are the model's (Groq's 400 tool_use_failed, Azure's content filter, a call
without arguments), served verbatim by `lobrec fake-gateway --replies`, judged the same live and
replayed."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from rich.console import Console

from lobrec.core.judge import wire
from lobrec.core.metrics.results import CaseResult, RunResult, encode_results
from lobrec.core.suite.format import NoCallStep, Suite
from lobrec.errors import ConfigError
from lobrec.fakegateway import load_replies, start_fake_gateway_process, stop_fake_gateway_process
from lobrec.reports.html import render_html
from lobrec.reports.markdown import render_markdown
from lobrec.reports.terminal import render_leaderboard
from lobrec.running.gateway import resolve_gateway
from lobrec.running.recording import RecordOptions, record_waiting_with
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite

pytestmark = pytest.mark.process

GROQ_BODY = {
    "error": {
        "message": "Tool call validation failed: parameters did not match schema",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '{"name": "read_file", "arguments": {"file": "x"}}',
    }
}
FILTERED_TEXT = (
    '{"id":"chatcmpl-f","object":"chat.completion","model":"gpt-4o","choices":'
    '[{"index":0,"finish_reason":"content_filter","content_filter_results":{"hate":{"filtered":true}}}]}'
)
REPLIES: dict[str, dict[str, Any]] = {
    "groq-tool-use-failed": {"status": 400, "headers": {"x-lobstack-cost-usd": "0.0001"}, "body": GROQ_BODY},
    "azure-content-filter": {
        "status": 200,
        "headers": {"Content-Length": "999"},
        "body": None,
        "body_text": FILTERED_TEXT,
    },
    "openrouter-no-arguments": {
        "status": 200,
        "headers": {},
        "body": {
            "id": "gen-1",
            "model": "anthropic/claude-sonnet-4.5",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": "Looking.",
                        "tool_calls": [
                            {"id": "toolu_1", "type": "function", "function": {"name": "read_file"}}
                        ],
                    },
                }
            ],
        },
    },
}
MODELS = [f"recorded/{stem}" for stem in REPLIES]


@pytest.fixture(scope="module")
def replies_gateway(small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("replies")
    for stem, reply in REPLIES.items():
        (folder / f"{stem}.json").write_text(json.dumps(reply), encoding="utf-8")
    process, url = start_fake_gateway_process(small_suite_path, extra_args=["--replies", str(folder)])
    try:
        yield url
    finally:
        stop_fake_gateway_process(process)


def test_a_recorded_reply_is_served_verbatim(replies_gateway: str) -> None:
    response = httpx.post(
        f"{replies_gateway}/chat/completions",
        json={"model": "recorded/azure-content-filter", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert response.status_code == 200
    assert response.content == FILTERED_TEXT.encode()
    groq = httpx.post(
        f"{replies_gateway}/chat/completions",
        json={"model": "recorded/groq-tool-use-failed", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert groq.status_code == 400 and groq.json() == GROQ_BODY
    assert groq.headers["x-lobstack-cost-usd"] == "0.0001"
    listed = {entry["id"] for entry in httpx.get(f"{replies_gateway}/models").json()["data"]}
    assert set(MODELS) <= listed and "fixture/oracle" in listed


@pytest.fixture(scope="module")
def runs(
    replies_gateway: str, small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Suite, RunResult, RunResult]:
    suite = load_suite(small_suite_path)
    cassettes = tmp_path_factory.mktemp("cassettes")

    async def no_wait(seconds: float) -> None:
        return None

    options = RecordOptions(models=MODELS, cassettes=cassettes)
    live = asyncio.run(record_waiting_with(no_wait, suite, resolve_gateway(replies_gateway, {}), options)).run
    replayed = asyncio.run(rescore(suite, cassettes)).run
    return suite, live, replayed


def _cases(run: RunResult, model: str) -> dict[str, CaseResult]:
    return {case.id: case for case in next(m for m in run.models if m.model == model).cases}


def test_record_then_rescore_reach_the_same_verdicts(runs: tuple[Suite, RunResult, RunResult]) -> None:
    _, live, replayed = runs
    assert encode_results(replayed) == encode_results(live)


def test_groq_tool_use_failed_is_scored_by_our_checks_and_schema_not_the_providers(
    runs: tuple[Suite, RunResult, RunResult],
) -> None:
    suite, live, replayed = runs
    for run in (live, replayed):
        cases = _cases(run, "recorded/groq-tool-use-failed")
        assert all(case.status == "scored" for case in cases.values())
        for case in suite.cases:
            step = cases[case.id].steps[0]
            assert not step.passed  # `{"file": "x"}` is no case's right call
            record = step.calls[0]
            assert record.name == "read_file"
            assert record.arguments == '{"file": "x"}'
            if record.offered:  # judged by read_file's schema: `path` is required
                assert record.schema_valid is False
                assert any("path" in error for error in record.schema_errors)
            assert step.quirks == [wire.QUIRK_ARGUMENTS_OBJECT, wire.QUIRK_REJECTED_BY_PROVIDER]
            assert cases[case.id].api_calls[-1].status == 400 and cases[case.id].api_calls[-1].judged


def test_a_content_filter_is_a_reply_with_no_calls_and_a_visible_reason(
    runs: tuple[Suite, RunResult, RunResult],
) -> None:
    suite, live, replayed = runs
    for run in (live, replayed):
        cases = _cases(run, "recorded/azure-content-filter")
        for case in suite.cases:
            result = cases[case.id]
            assert result.status == "scored"
            step = result.steps[0]
            assert step.calls == [] and step.quirks == [wire.QUIRK_CONTENT_FILTER]
            if isinstance(case.steps[0], NoCallStep):
                assert step.passed
            else:
                assert not step.passed and "content filter" in step.mismatches[0].reason


def test_a_call_without_arguments_is_read_as_no_arguments_then_schema_validated(
    runs: tuple[Suite, RunResult, RunResult],
) -> None:
    suite, live, _ = runs
    cases = _cases(live, "recorded/openrouter-no-arguments")
    offering = [case for case in suite.cases if "read_file" in case.tools]
    assert offering
    for case in offering:
        step = cases[case.id].steps[0]
        record = step.calls[0]
        assert record.name == "read_file" and record.offered
        assert record.quirks == [wire.QUIRK_MISSING_ARGUMENTS] == step.quirks
        # `{}` lacks the required `path`: validated as usual, so not valid arguments.
        assert record.schema_valid is False and any("path" in error for error in record.schema_errors)


def test_every_report_has_a_provider_quirks_line_per_model_that_leaned_on_one(
    runs: tuple[Suite, RunResult, RunResult],
) -> None:
    suite, live, _ = runs
    cases = len(suite.cases)
    offering = sum("read_file" in case.tools for case in suite.cases)
    wanted = {
        "recorded/groq-tool-use-failed": "provider quirks: arguments as an object "
        f"({cases}), call rejected by the provider ({cases})",
        "recorded/azure-content-filter": f"provider quirks: content filter ({cases})",
        "recorded/openrouter-no-arguments": f"provider quirks: missing arguments ({cases})",
    }
    assert offering  # read_file is the only tool the recorded call names; every case gets the call
    console = Console(record=True, width=200)
    render_leaderboard(live, console)
    terminal = console.export_text()
    markdown = render_markdown(live)
    html = render_html(live, suite)
    for model, line in wanted.items():
        assert f"{model}: {line}" in terminal
        assert line in markdown and line in html
    assert "provider quirks" not in render_markdown(_without_quirks(live))


def _without_quirks(run: RunResult) -> RunResult:
    """The same run as if every reply were plain: no quirk line at all."""
    models = []
    for model in run.models:
        cases = []
        for case in model.cases:
            steps = [
                msgspec.structs.replace(
                    step, quirks=[], calls=[msgspec.structs.replace(call, quirks=[]) for call in step.calls]
                )
                for step in case.steps
            ]
            cases.append(msgspec.structs.replace(case, steps=steps))
        models.append(msgspec.structs.replace(model, cases=cases))
    return msgspec.structs.replace(run, models=models)


CORPUS = Path(__file__).parents[2] / "fixtures" / "wire-corpus"
CORPUS_FILES = ("21-groq.json", "13-azure-openai.json", "15-openrouter.json")


def test_the_corpus_groq_and_content_filter_replies_judge_the_same_live_and_replayed(
    small_suite_path: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "replies"  # a scratch copy for this run only; the corpus stays outside the project
    folder.mkdir()
    for name in CORPUS_FILES:
        shutil.copy(CORPUS / name, folder / name)
    models = [f"recorded/{Path(name).stem}" for name in CORPUS_FILES]
    suite = load_suite(small_suite_path)
    process, url = start_fake_gateway_process(small_suite_path, extra_args=["--replies", str(folder)])
    try:

        async def no_wait(seconds: float) -> None:
            return None

        options = RecordOptions(models=models, cassettes=tmp_path / "c")
        live = asyncio.run(record_waiting_with(no_wait, suite, resolve_gateway(url, {}), options)).run
    finally:
        stop_fake_gateway_process(process)
    replayed = asyncio.run(rescore(suite, tmp_path / "c")).run
    assert encode_results(replayed) == encode_results(live)
    groq = _cases(live, "recorded/21-groq")
    filtered = _cases(live, "recorded/13-azure-openai")
    relayed = _cases(live, "recorded/15-openrouter")
    for case in suite.cases:
        assert groq[case.id].status == filtered[case.id].status == relayed[case.id].status == "scored"
        call = groq[case.id].steps[0].calls[0]
        assert call.name == "get_something_by_name" and not call.offered  # a made-up tool, counted
        assert filtered[case.id].steps[0].quirks == [wire.QUIRK_CONTENT_FILTER]
        assert relayed[case.id].steps[0].calls[0].quirks == [wire.QUIRK_MISSING_ARGUMENTS]


def test_a_replies_folder_that_is_not_one_or_holds_a_bad_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        load_replies(tmp_path / "absent")
    (tmp_path / "bad.json").write_text('{"body": {}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a reply file"):
        load_replies(tmp_path)

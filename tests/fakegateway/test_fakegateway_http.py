"""The fake gateway as a real process on loopback: the official `openai` client, every fault kind
seen through httpx, the control API, and the refusals of the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import openai
import pytest

from lobrec.core.judge.wire import (
    NotACompletion,
    assistant_message,
    parse_completion,
    request_body,
    tool_message,
)
from lobrec.core.suite.format import CallStep, Case, Suite
from lobrec.errors import SuiteError
from lobrec.fakegateway import FakeGateway, answer, start_fake_gateway_process, stop_fake_gateway_process
from lobrec.fakegateway.faults import NOT_JSON_BODY
from lobrec.suite_file import load_suite

if TYPE_CHECKING:
    from conftest import FakeGatewayProcess

pytestmark = pytest.mark.process

TIMEOUT = httpx.Timeout(10.0)


def _case_body(suite: Suite, model: str, case_id: str) -> bytes:
    """The runner's first request for a case."""
    case = suite.case(case_id)
    assert case is not None
    return request_body(model, list(case.messages), suite.offered_tools(case))


def _post(gateway: FakeGatewayProcess, body: bytes, timeout: httpx.Timeout = TIMEOUT) -> httpx.Response:
    return httpx.post(f"{gateway.url}/chat/completions", content=body, timeout=timeout)


def _entry(
    case: str | None, fault: str | None, status: int | None, model: str = "fixture/oracle"
) -> dict[str, Any]:
    return {"model": model, "case": case, "step": 0 if case else None, "fault": fault, "status": status}


def _tools(suite: Suite, case_id: str) -> list[Any]:
    case = suite.case(case_id)
    assert case is not None
    return msgspec.to_builtins(suite.offered_tools(case))


def _messages(suite: Suite, case_id: str) -> list[Any]:
    case = suite.case(case_id)
    assert case is not None
    return msgspec.to_builtins(case.messages)


# --- the official openai client -------------------------------------------------------------------


def test_openai_client_reads_the_tool_call(fake_gateway: FakeGatewayProcess) -> None:
    with openai.OpenAI(base_url=fake_gateway.url, api_key="test", max_retries=0) as client:
        response = client.chat.completions.create(
            model="fixture/oracle",
            messages=_messages(fake_gateway.suite, "sel-01"),
            tools=_tools(fake_gateway.suite, "sel-01"),
            temperature=0,
        )
    call = response.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert (response.model, response.choices[0].finish_reason) == ("fixture/oracle", "tool_calls")
    assert (call.id, call.function.name, call.function.arguments) == (  # type: ignore[union-attr]
        "call_0_0",
        "read_file",
        '{"path": "README.md", "start_line": 1, "end_line": 20}',
    )


def test_openai_client_reads_parallel_calls_and_non_ascii(fake_gateway: FakeGatewayProcess) -> None:
    with openai.OpenAI(base_url=fake_gateway.url, api_key="test", max_retries=0) as client:
        pair = client.chat.completions.create(
            model="auto",
            messages=_messages(fake_gateway.suite, "par-01"),
            tools=_tools(fake_gateway.suite, "par-01"),
        )
        weather = client.chat.completions.create(
            model="fixture/oracle",
            messages=_messages(fake_gateway.suite, "arg-01"),
            tools=_tools(fake_gateway.suite, "arg-01"),
        )
    calls = pair.choices[0].message.tool_calls or []
    assert [(c.function.name, c.function.arguments) for c in calls] == [  # type: ignore[union-attr]
        ("read_file", '{"path": "a.txt"}'),
        ("read_file", '{"path": "b.txt"}'),
    ]
    assert pair.model in ("fake/alpha", "fake/beta")
    weather_call = (weather.choices[0].message.tool_calls or [])[0]
    assert weather_call.function.arguments == '{"city": "Zürich", "unit": "celsius"}'  # type: ignore[union-attr]


def test_openai_client_sees_the_gateway_headers(fake_gateway: FakeGatewayProcess) -> None:
    with openai.OpenAI(base_url=fake_gateway.url, api_key="test", max_retries=0) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="fixture/no-temperature",
            messages=_messages(fake_gateway.suite, "none-01"),
            tools=_tools(fake_gateway.suite, "none-01"),
            temperature=0,
        )
    completion = raw.parse()
    assert raw.headers["x-lobstack-dropped-params"] == "temperature"
    assert (
        raw.headers["x-lobstack-cost-usd"]
        == answer(fake_gateway.suite, raw.http_request.content).headers["x-lobstack-cost-usd"]
    )
    assert (completion.choices[0].message.content, completion.choices[0].message.tool_calls) == (
        "You're welcome!",
        None,
    )


def test_openai_client_gets_model_not_found(fake_gateway: FakeGatewayProcess) -> None:
    with (
        openai.OpenAI(base_url=fake_gateway.url, api_key="test", max_retries=0) as client,
        pytest.raises(openai.NotFoundError) as caught,
    ):
        client.chat.completions.create(model="gpt-nothing", messages=_messages(fake_gateway.suite, "sel-01"))
    assert (caught.value.status_code, caught.value.code, caught.value.type) == (
        404,
        "model_not_found",
        "invalid_request_error",
    )


# --- the wire itself ------------------------------------------------------------------------------


def test_the_same_request_gets_the_same_response_bytes_on_both_routes(
    fake_gateway: FakeGatewayProcess,
) -> None:
    body = _case_body(fake_gateway.suite, "fixture/sloppy", "chain-01")
    first = _post(fake_gateway, body)
    second = httpx.post(f"{fake_gateway.root}/api/gateway/v1/chat/completions", content=body, timeout=TIMEOUT)
    assert first.status_code == second.status_code == 200
    assert (first.content, first.headers.multi_items()) == (second.content, second.headers.multi_items())
    assert first.content == answer(fake_gateway.suite, body).body


def test_unpriced_omits_the_cost_header(fake_gateway: FakeGatewayProcess) -> None:
    response = _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/unpriced", "sel-01"))
    assert response.status_code == 200
    assert "x-lobstack-cost-usd" not in response.headers
    assert parse_completion(response.content).calls[0].name == "read_file"


def test_routes_and_methods(fake_gateway: FakeGatewayProcess) -> None:
    missing = httpx.post(f"{fake_gateway.root}/v2/chat/completions", content=b"{}", timeout=TIMEOUT)
    get_chat = httpx.get(f"{fake_gateway.url}/chat/completions", timeout=TIMEOUT)
    models = httpx.get(f"{fake_gateway.url}/models", timeout=TIMEOUT)
    assert (missing.status_code, missing.json()) == (
        404,
        {
            "error": {
                "message": "No route for POST /v2/chat/completions.",
                "type": "invalid_request_error",
                "code": "not_found",
            }
        },
    )
    assert (get_chat.status_code, get_chat.json()["error"]["code"]) == (405, "method_not_allowed")
    assert [model["id"] for model in models.json()["data"]] == [
        "fixture/oracle",
        "fixture/silent",
        "fixture/eager",
        "fixture/sloppy",
        "fixture/no-temperature",
        "fixture/unpriced",
        "fixture/plausible",
        "fixture/flaky",
        "auto",
        "fake/alpha",
        "fake/beta",
    ]


def test_an_invalid_body_is_400_and_logged(fake_gateway: FakeGatewayProcess) -> None:
    response = _post(fake_gateway, b'{"model": "auto"}')
    assert (response.status_code, response.json()) == (
        400,
        {
            "error": {
                "message": "`messages` is required and must be a non-empty array.",
                "type": "invalid_request_error",
                "code": "invalid_request",
            }
        },
    )
    assert fake_gateway.log() == [{"model": None, "case": None, "step": None, "fault": None, "status": 400}]


# --- faults ---------------------------------------------------------------------------------------


def test_a_429_burst_then_success_and_the_log_counts_attempts(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"case": "sel-01", "faults": ["429", "429"]}])
    body = _case_body(fake_gateway.suite, "fixture/oracle", "sel-01")
    responses = [_post(fake_gateway, body) for _ in range(3)]
    other = _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", "par-01"))
    assert [r.status_code for r in responses] == [429, 429, 200]
    assert [r.headers.get("retry-after") for r in responses] == ["1", "1", None]
    assert responses[0].json()["error"]["type"] == "rate_limit_error"
    assert other.status_code == 200
    assert fake_gateway.log() == [
        _entry("sel-01", "429", 429),
        _entry("sel-01", "429", 429),
        _entry("sel-01", None, 200),
        _entry("par-01", None, 200),
    ]


@pytest.mark.parametrize(
    ("fault", "status", "error_type", "code"),
    [
        ("400", 400, "invalid_request_error", "bad_request"),
        ("500", 500, "server_error", "internal_error"),
        ("502", 502, "upstream_error", "bad_gateway"),
        ("503", 503, "server_error", "service_unavailable"),
        ("504", 504, "upstream_error", "upstream_timeout"),
    ],
)
def test_status_faults(
    fake_gateway: FakeGatewayProcess, fault: str, status: int, error_type: str, code: str
) -> None:
    fake_gateway.faults([{"model": "auto", "faults": [fault]}])
    response = _post(fake_gateway, _case_body(fake_gateway.suite, "auto", "none-01"))
    assert (response.status_code, response.json()["error"]["type"], response.json()["error"]["code"]) == (
        status,
        error_type,
        code,
    )
    assert _post(fake_gateway, _case_body(fake_gateway.suite, "auto", "none-01")).status_code == 200


def test_then_repeats_a_fault_forever(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": [], "then": "503"}])
    statuses = [
        _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", case)).status_code
        for case in ("sel-01", "sel-01", "par-01")
    ]
    assert statuses == [503, 503, 503]


def test_reset_drops_the_connection(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": ["reset"]}])
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", "sel-01"))
    assert _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", "sel-01")).status_code == 200
    assert fake_gateway.log() == [_entry("sel-01", "reset", None), _entry("sel-01", None, 200)]


def test_truncate_sends_half_the_body(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": ["truncate"]}])
    body = _case_body(fake_gateway.suite, "fixture/oracle", "sel-01")
    full = len(answer(fake_gateway.suite, body).body)
    with pytest.raises(httpx.RemoteProtocolError) as caught:
        _post(fake_gateway, body)
    assert str(caught.value) == (
        "peer closed connection without sending complete message body "
        f"(received {full // 2} bytes, expected {full})"
    )


def test_hang_outlasts_the_client_timeout(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": ["hang"], "hang_seconds": 2}])
    with pytest.raises(httpx.ReadTimeout):
        _post(
            fake_gateway,
            _case_body(fake_gateway.suite, "fixture/oracle", "sel-01"),
            timeout=httpx.Timeout(5.0, read=0.2),
        )
    assert _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", "sel-01")).status_code == 200
    assert fake_gateway.log() == [_entry("sel-01", "hang", 200), _entry("sel-01", None, 200)]


def test_not_json_and_not_completion_are_gateway_errors(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": ["not_json", "not_completion"]}])
    body = _case_body(fake_gateway.suite, "fixture/oracle", "sel-01")
    not_json, not_completion = _post(fake_gateway, body), _post(fake_gateway, body)
    assert (not_json.status_code, not_json.content) == (200, NOT_JSON_BODY)
    assert (not_completion.status_code, not_completion.json()) == (200, {"ok": True})
    with pytest.raises(NotACompletion) as first:
        parse_completion(not_json.content)
    with pytest.raises(NotACompletion) as second:
        parse_completion(not_completion.content)
    assert str(first.value) == f"the gateway's 200 body is not JSON ({len(NOT_JSON_BODY)} bytes)"
    assert str(second.value) == "the gateway's 200 body is not a chat completion (no choices)"


def test_huge_is_a_valid_completion_with_a_huge_content(fake_gateway: FakeGatewayProcess) -> None:
    fake_gateway.faults([{"faults": ["huge"], "huge_bytes": 2_000_000}])
    response = _post(fake_gateway, _case_body(fake_gateway.suite, "fixture/oracle", "par-01"))
    reply = parse_completion(response.content)
    assert (response.status_code, reply.content, [call.name for call in reply.calls]) == (
        200,
        "a" * 2_000_000,
        ["read_file", "read_file"],
    )


def test_bad_fault_rules_are_400(fake_gateway: FakeGatewayProcess) -> None:
    response = httpx.post(f"{fake_gateway.root}/__fake__/faults", json={"rules": [{"faults": ["418"]}]})
    assert (response.status_code, response.json()) == (
        400,
        {
            "error": {
                "message": "fault rules: Invalid enum value '418' - at `$.rules[0].faults[0]`",
                "type": "invalid_request_error",
                "code": "invalid_fault_rules",
            }
        },
    )


# --- walking a whole suite, as the runner does ----------------------------------------------------


@pytest.fixture
def walk_suite_path(small_suite_path: Path) -> Path:
    """The real suite when it exists and decodes, else the session's small one."""
    real = Path("suite/suite.json")
    try:
        load_suite(real)
    except SuiteError:
        return small_suite_path
    return real


def _walk(client: httpx.Client, url: str, suite: Suite, case: Case) -> None:
    """Send every step of a case as the runner does, checking the oracle's answer to each."""
    offered = suite.offered_tools(case)
    messages: list[Any] = list(case.messages)
    for step in case.steps:
        body = request_body("fixture/oracle", messages, offered)
        reply = parse_completion(client.post(f"{url}/chat/completions", content=body).content)
        if not isinstance(step, CallStep):
            assert (case.id, reply.content, reply.calls) == (case.id, step.answer or "Done.", [])
            return
        got = Counter((call.name, call.arguments_text) for call in reply.calls)
        want = Counter((call.name, json.dumps(call.answer, ensure_ascii=False)) for call in step.calls)
        assert (case.id, got) == (case.id, want)
        results = [
            tool_message(call, expected.result or "")
            for call, expected in zip(reply.calls, step.calls, strict=True)
        ]
        messages = [*messages, assistant_message(reply), *results]


def test_the_oracle_walks_every_case_of_a_suite(walk_suite_path: Path) -> None:
    suite = load_suite(walk_suite_path)
    process, url = start_fake_gateway_process(walk_suite_path)
    try:
        with httpx.Client(timeout=TIMEOUT) as client:
            for case in suite.cases:
                _walk(client, url, suite, case)
    finally:
        stop_fake_gateway_process(process)
    assert process.returncode == 0


# --- the process and the in-process server --------------------------------------------------------


def test_the_process_refuses_a_remote_host(small_suite_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "lobrec.fakegateway",
        "--host",
        "0.0.0.0",
        "--suite",
        str(small_suite_path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "lobrec: refusing to listen on 0.0.0.0, which is not a loopback address; "
        "pass --allow-remote to serve other machines\n",
    )


def test_a_process_with_latency_answers_and_stops_cleanly(small_suite_path: Path) -> None:
    body = _case_body(load_suite(small_suite_path), "fixture/silent", "sel-01")
    process, url = start_fake_gateway_process(small_suite_path, latency_ms=20)
    try:
        response = httpx.post(f"{url}/chat/completions", content=body, timeout=TIMEOUT)
    finally:
        stop_fake_gateway_process(process)
    assert parse_completion(response.content).content == "I can't help with tools right now."
    assert process.returncode == 0


def test_the_in_process_gateway_serves_until_stopped(small_suite_path: Path) -> None:
    suite = load_suite(small_suite_path)
    with FakeGateway(suite) as gateway:
        url = gateway.url
        body = _case_body(suite, "fixture/eager", "sel-01")
        response = httpx.post(f"{url}/chat/completions", content=body, timeout=TIMEOUT)
        log = gateway.log()
    assert [call.name for call in parse_completion(response.content).calls] == ["search_code"]
    assert [msgspec.to_builtins(entry) for entry in log] == [
        _entry("sel-01", None, 200, model="fixture/eager")
    ]
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{url}/chat/completions", content=b"{}", timeout=TIMEOUT)

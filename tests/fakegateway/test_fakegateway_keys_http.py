"""The fake gateway's `--require-key` and its 401 and 403 faults, through real sockets on loopback.

A process started with `--require-key KEY` answers 401 to a chat or model-list request without
`Authorization: Bearer KEY` (the official `openai` client sees `AuthenticationError`), logs it as
`require_key`, and never echoes what was sent; the control API needs no key. A refused request is
refused first, so it uses up no rate-limit token and no fault rule's count.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from lobrec.core.judge.wire import request_body
from lobrec.core.suite.format import Suite
from lobrec.fakegateway import FakeGateway, FaultRule, start_fake_gateway_process, stop_fake_gateway_process
from lobrec.suite_file import load_suite
from tests.support.gateway import FakeGatewayProcess

pytestmark = pytest.mark.process

KEY = "lsk-fake-key-0123456789abcdef"
WRONG = "lsk-not-the-key-9876543210fedc"
TIMEOUT = httpx.Timeout(10.0)


@pytest.fixture(scope="module")
def keyed(small_suite_path: Path, _clean_proxy_environment: None) -> Iterator[FakeGatewayProcess]:
    process, url = start_fake_gateway_process(small_suite_path, extra_args=["--require-key", KEY])
    try:
        yield FakeGatewayProcess(
            url=url, suite_path=small_suite_path, suite=load_suite(small_suite_path), process=process
        )
    finally:
        stop_fake_gateway_process(process)


@pytest.fixture
def gateway(keyed: FakeGatewayProcess) -> FakeGatewayProcess:
    keyed.reset()  # the control API answers without a key
    return keyed


def _body(suite: Suite, model: str = "fixture/oracle", case_id: str = "sel-01") -> bytes:
    case = suite.case(case_id)
    assert case is not None
    return request_body(model, list(case.messages), suite.offered_tools(case))


def _post(url: str, body: bytes, key: str | None) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key is not None else {}
    return httpx.post(f"{url}/chat/completions", content=body, headers=headers, timeout=TIMEOUT)


def _error(response: httpx.Response) -> tuple[int, str, str]:
    error = response.json()["error"]
    return response.status_code, error["type"], error["code"]


def test_a_chat_request_without_the_key_is_a_logged_401(gateway: FakeGatewayProcess) -> None:
    missing = _post(gateway.url, _body(gateway.suite), None)
    wrong = _post(gateway.url, _body(gateway.suite), WRONG)
    right = _post(gateway.url, _body(gateway.suite), KEY)

    assert _error(missing) == (401, "invalid_request_error", "missing_api_key")
    assert _error(wrong) == (401, "invalid_request_error", "invalid_api_key")
    assert WRONG not in wrong.text and WRONG not in str(wrong.headers)
    assert right.status_code == 200
    refused: dict[str, Any] = {"model": "fixture/oracle", "case": "sel-01", "step": 0}
    assert gateway.log() == [
        {**refused, "fault": "require_key", "status": 401},
        {**refused, "fault": "require_key", "status": 401},
        {**refused, "fault": None, "status": 200},
    ]


def test_an_invalid_body_without_the_key_is_a_401_first(gateway: FakeGatewayProcess) -> None:
    response = _post(gateway.url, b"not json", None)
    assert _error(response) == (401, "invalid_request_error", "missing_api_key")
    assert _post(gateway.url, b"not json", KEY).status_code == 400
    assert [entry["status"] for entry in gateway.log()] == [401, 400]


def test_the_model_list_needs_the_key(gateway: FakeGatewayProcess) -> None:
    refused = httpx.get(f"{gateway.url}/models", timeout=TIMEOUT)
    listed = httpx.get(f"{gateway.url}/models", headers={"authorization": f"Bearer {KEY}"}, timeout=TIMEOUT)
    assert _error(refused) == (401, "invalid_request_error", "missing_api_key")
    assert listed.status_code == 200
    assert "fixture/oracle" in [model["id"] for model in listed.json()["data"]]


def test_the_openai_client_sees_authentication_and_permission_errors(gateway: FakeGatewayProcess) -> None:
    gateway.faults([{"model": "fixture/silent", "then": "403"}])
    case = gateway.suite.case("sel-01")
    assert case is not None
    messages: Any = [{"role": m.role, "content": m.content} for m in case.messages]
    with (
        openai.OpenAI(base_url=gateway.url, api_key=WRONG, max_retries=0) as client,
        pytest.raises(openai.AuthenticationError) as refused,
    ):
        client.chat.completions.create(model="fixture/oracle", messages=messages)
    with openai.OpenAI(base_url=gateway.url, api_key=KEY, max_retries=0) as client:
        answered = client.chat.completions.create(model="fixture/oracle", messages=messages)
        with pytest.raises(openai.PermissionDeniedError) as forbidden:
            client.chat.completions.create(model="fixture/silent", messages=messages)
    assert (refused.value.status_code, refused.value.code) == (401, "invalid_api_key")
    assert answered.choices[0].message.tool_calls is not None
    assert (forbidden.value.status_code, forbidden.value.code, forbidden.value.type) == (
        403,
        "model_not_allowed",
        "permission_error",
    )


def test_a_refused_request_takes_no_token_and_no_fault_count(small_suite_path: Path) -> None:
    """One request a second, with the clock stopped: only the bucket's one token is there."""
    suite = load_suite(small_suite_path)
    body = _body(suite)
    with FakeGateway(suite, require_key=KEY, rate_limit=1, clock=lambda: 0.0) as gateway:
        gateway.add_faults([FaultRule(case="sel-01", faults=["500"])])
        statuses = [_post(gateway.url, body, key).status_code for key in (WRONG, None, KEY, KEY)]
        faults = [entry.fault for entry in gateway.log()]
    assert statuses == [401, 401, 500, 429]
    assert faults == ["require_key", "require_key", "500", "rate_limit"]


@pytest.mark.parametrize("key", ["", "two words", "caf\u00e9-key"], ids=["empty", "a space", "non-ASCII"])
def test_the_process_refuses_a_key_no_header_can_carry(small_suite_path: Path, key: str) -> None:
    command = [
        sys.executable,
        "-m",
        "lobrec.fakegateway",
        "--suite",
        str(small_suite_path),
        "--require-key",
        key,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "lobrec: --require-key must be a non-empty key of visible ASCII characters (! to ~)\n",
    )

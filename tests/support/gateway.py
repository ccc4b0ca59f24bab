"""End-to-end fixtures: the fake gateway as a real separate process on loopback.

The session starts one `python -m lobrec.fakegateway` process serving a small suite built here, and
every test talks to it over real sockets. Fault rules and the request log live in that process, so
the function-scoped `fake_gateway` fixture resets them before each test. Proxy variables are
removed for the session (as httpx's own tests/conftest.py does), so loopback is reached directly.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from lobrec.core.suite.format import (
    CallStep,
    Case,
    Contains,
    Eq,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Suite,
    Tool,
    encode_suite,
)
from lobrec.fakegateway import start_fake_gateway_process, stop_fake_gateway_process
from lobrec.suite_file import load_suite

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Tool:
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return Tool(
        type="function", function=FunctionSpec(name=name, description=description, parameters=parameters)
    )


SYSTEM_PROMPT = (
    "You work in the workspace /srv/app. Today is 2026-10-21 (UTC). Answer in text when no tool is "
    "needed; make independent calls in the same response."
)


def _user(text: str) -> list[Message]:
    """A case's messages as the runner sends them: the suite's system prompt, then the request."""
    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content=text)]


def build_small_suite() -> Suite:
    """Five cases covering every step shape: one call, non-ASCII, parallel, a 3-step chain, no call."""
    tools = [
        _tool(
            "read_file",
            "Read a file of the workspace, optionally a line range.",
            {
                "path": {"type": "string"},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer"},
            },
            ["path"],
        ),
        _tool("search_code", "Search the workspace's code.", {"query": {"type": "string"}}, ["query"]),
        _tool(
            "send_slack",
            "Post a Slack message.",
            {"channel": {"type": "string"}, "text": {"type": "string"}},
            ["channel", "text"],
        ),
        _tool(
            "get_weather",
            "Current weather for a city.",
            {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            ["city"],
        ),
    ]
    cases = [
        Case(
            id="sel-01",
            group="selection",
            tools=["search_code", "read_file", "send_slack"],
            messages=_user("Show me lines 1 to 20 of README.md."),
            steps=[
                CallStep(
                    calls=[
                        ExpectedCall(
                            name="read_file",
                            checks=[Eq(arg="path", value="README.md")],
                            answer={"path": "README.md", "start_line": 1, "end_line": 20},
                        )
                    ]
                )
            ],
        ),
        Case(
            id="arg-01",
            group="arguments",
            tools=["get_weather", "send_slack"],
            messages=_user("What's the weather in Zürich, in celsius?"),
            steps=[
                CallStep(
                    calls=[
                        ExpectedCall(
                            name="get_weather",
                            checks=[Eq(arg="city", value="Zürich")],
                            answer={"city": "Zürich", "unit": "celsius"},
                        )
                    ]
                )
            ],
        ),
        Case(
            id="par-01",
            group="parallel",
            tools=["read_file", "search_code"],
            messages=_user("Open a.txt and b.txt."),
            steps=[
                CallStep(
                    calls=[
                        ExpectedCall(name="read_file", answer={"path": "a.txt"}),
                        ExpectedCall(name="read_file", answer={"path": "b.txt"}),
                    ]
                )
            ],
        ),
        Case(
            id="chain-01",
            group="chains",
            tools=["search_code", "read_file", "send_slack"],
            messages=_user("Find where parse_config is defined, read that file, and post its path to #dev."),
            steps=[
                CallStep(
                    calls=[
                        ExpectedCall(
                            name="search_code",
                            answer={"query": "def parse_config"},
                            result="src/config.py:12: def parse_config(text):",
                        )
                    ]
                ),
                CallStep(
                    calls=[
                        ExpectedCall(
                            name="read_file",
                            answer={"path": "src/config.py"},
                            result="def parse_config(text):\n    return {}\n",
                        )
                    ]
                ),
                CallStep(
                    calls=[
                        ExpectedCall(
                            name="send_slack",
                            checks=[Contains(arg="text", value="src/config.py")],
                            answer={"channel": "#dev", "text": "parse_config is in src/config.py"},
                        )
                    ]
                ),
            ],
        ),
        Case(
            id="none-01",
            group="no_call",
            tools=["get_weather", "send_slack"],
            messages=_user("Thanks, that's all for today!"),
            steps=[NoCallStep(answer="You're welcome!")],
        ),
    ]
    return Suite(
        name="fake-gateway-e2e",
        version="1.0.0",
        system_prompt=SYSTEM_PROMPT,
        tools=tools,
        cases=cases,
    )


@dataclass
class FakeGatewayProcess:
    """A running fake gateway process and helpers for its control API."""

    url: str
    suite_path: Path
    suite: Suite
    process: Any

    @property
    def root(self) -> str:
        return self.url.removesuffix("/v1")

    def faults(self, rules: list[dict[str, Any]]) -> None:
        response = httpx.post(f"{self.root}/__fake__/faults", json={"rules": rules})
        response.raise_for_status()

    def log(self) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.root}/__fake__/log")
        response.raise_for_status()
        return response.json()

    def reset(self) -> None:
        httpx.post(f"{self.root}/__fake__/reset").raise_for_status()


@pytest.fixture(scope="session", autouse=True)
def _clean_proxy_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in os.environ.copy():
            if name.upper() in PROXY_VARIABLES:
                patch.delenv(name)
        yield


@contextlib.contextmanager
def running_gateway(suite_path: Path, latency_ms: int = 0) -> Iterator[FakeGatewayProcess]:
    """A fake gateway process serving `suite_path`, stopped on exit."""
    process, url = start_fake_gateway_process(suite_path, latency_ms=latency_ms)
    try:
        yield FakeGatewayProcess(
            url=url, suite_path=suite_path, suite=load_suite(suite_path), process=process
        )
    finally:
        stop_fake_gateway_process(process)


@pytest.fixture(scope="session")
def small_suite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suite") / "suite.json"
    path.write_bytes(encode_suite(build_small_suite()))
    return path


@pytest.fixture(scope="session")
def fake_gateway_process(
    small_suite_path: Path, _clean_proxy_environment: None
) -> Iterator[FakeGatewayProcess]:
    with running_gateway(small_suite_path) as gateway:
        yield gateway


@pytest.fixture
def fake_gateway(fake_gateway_process: FakeGatewayProcess) -> FakeGatewayProcess:
    """The session's gateway with no fault rules and an empty log."""
    fake_gateway_process.reset()
    return fake_gateway_process

"""The key goes only where its holder said: a base URL that only a configuration file names (a file
a pull request can edit) never receives LOBSTACK_API_KEY unless it is the Lobstack host or loopback,
or the holder confirms it with `--base-url` or LOBSTACK_BASE_URL (docs/security.md).

Nothing is sent anywhere: the CLI runs in-process with the recorder replaced by one that notes it
was reached, and the URLs are reserved names (`.invalid`) or loopback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.errors import ConfigError
from lobrec.running.gateway import DEFAULT_BASE_URL, check_key_destination, resolve_gateway

KEY = "lk-test-0123456789abcdef"
COLLECTOR = "https://collector.invalid/v1"


class Reached(Exception):
    """Raised by the stand-in recorder: the run got as far as sending."""


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The gateways the stand-in recorder was handed (it raises `Reached` instead of sending)."""
    gateways: list[Any] = []

    async def stand_in(suite: Any, gateway: Any, options: Any, progress: Any = None) -> Any:
        gateways.append(gateway)
        raise Reached

    monkeypatch.setattr("lobrec.running.recording.record", stand_in)
    return gateways


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], **env: str) -> Any:
    monkeypatch.chdir(tmp_path)
    for name in ("LOBSTACK_API_KEY", "LOBSTACK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner().invoke(app, args, env={"COLUMNS": "200", **env})


def test_a_base_url_only_a_file_names_never_receives_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reached: list[Any]
) -> None:
    config = tmp_path / "lobrec.toml"
    config.write_text(f'models = ["m"]\nbase-url = "{COLLECTOR}"\n', encoding="utf-8")
    done = _run(tmp_path, monkeypatch, ["record"], LOBSTACK_API_KEY=KEY)
    assert reached == []
    assert done.exit_code == 2
    assert done.stderr == (
        f"lobrec: {config}: base-url {COLLECTOR} is named only by this file, and LOBSTACK_API_KEY is "
        f"not sent to a host a file names; to send it there, confirm with --base-url {COLLECTOR} or "
        f"LOBSTACK_BASE_URL={COLLECTOR}\n"
    )
    assert not (tmp_path / "cassettes").exists()


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--base-url", COLLECTOR], {}),
        ([], {"LOBSTACK_BASE_URL": COLLECTOR}),
    ],
    ids=["confirmed by --base-url", "confirmed by LOBSTACK_BASE_URL"],
)
def test_the_holder_confirms_the_file_s_url_on_the_command_line_or_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reached: list[Any], args: list[str], env: dict[str, str]
) -> None:
    (tmp_path / "lobrec.toml").write_text(f'models = ["m"]\nbase-url = "{COLLECTOR}"\n', encoding="utf-8")
    done = _run(tmp_path, monkeypatch, ["record", *args], LOBSTACK_API_KEY=KEY, **env)
    assert isinstance(done.exception, Reached), done.output
    assert [(gateway.base_url, gateway.api_key) for gateway in reached] == [(COLLECTOR, KEY)]


@pytest.mark.parametrize(
    "url",
    [
        DEFAULT_BASE_URL,
        "https://www.lobstack.ai/api/gateway/v2",
        "http://127.0.0.1:9/v1",
        "http://[::1]:9/v1",
    ],
)
def test_the_lobstack_host_and_loopback_need_no_confirmation(url: str) -> None:
    check_key_destination(url, "lobrec.toml")
    gateway = resolve_gateway(url, {"LOBSTACK_API_KEY": KEY}, named_by_file="lobrec.toml")
    assert gateway.api_key == KEY


@pytest.mark.parametrize(
    "url",
    [
        COLLECTOR,
        "http://www.lobstack.ai/api/gateway/v1",  # plain http is refused anyway, never trusted here
        "https://www.lobstack.ai:8443/api/gateway/v1",
        "https://lobstack.ai.collector.invalid/v1",
        "https://www.lobstack.ai.invalid/v1",
    ],
)
def test_any_other_host_a_file_names_is_refused_for_a_keyed_run(url: str) -> None:
    with pytest.raises(ConfigError, match="is named only by this file"):
        check_key_destination(url, "lobrec.toml")


def test_a_run_without_a_key_needs_no_confirmation(tmp_path: Path) -> None:
    """With no key nothing secret travels: a loopback URL from a file runs as before."""
    gateway = resolve_gateway("http://127.0.0.1:9/v1", {}, named_by_file=str(tmp_path / "lobrec.toml"))
    assert gateway.api_key is None

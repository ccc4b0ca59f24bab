"""Recording again into a folder of fresh cassettes is a choice: `record` says how many cases it
replaces and the command that records only the gaps (`--missing`); a selective run says nothing."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.core.suite.format import encode_suite
from lobrec.fakegateway.process import start_fake_gateway_process, stop_fake_gateway_process
from tests.support.gateway import build_small_suite

pytestmark = pytest.mark.process  # a fake gateway process serves the module


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    suite = tmp_path_factory.mktemp("suite") / "suite.json"
    suite.write_bytes(encode_suite(build_small_suite()))
    process, url = start_fake_gateway_process(suite)
    try:
        yield url, suite
    finally:
        stop_fake_gateway_process(process)


def record(gateway: tuple[str, Path], cassettes: Path, *extra: str) -> str:
    url, suite = gateway
    args = ["record", "-m", "fixture/oracle", "--base-url", url, "--suite", str(suite)]
    result = CliRunner().invoke(app, [*args, "--cassettes", str(cassettes), *extra])
    assert result.exit_code == 0, result.stderr
    return result.stderr


def test_a_second_full_record_names_what_it_replaces_and_missing(
    gateway: tuple[str, Path], tmp_path: Path
) -> None:
    cassettes = tmp_path / "cassettes"
    assert "recording again" not in record(gateway, cassettes)
    again = [line for line in record(gateway, cassettes).splitlines() if "recording again" in line]
    (line,) = again
    assert line.startswith(
        f"lobrec: fixture/oracle: recording again 5 cases that already have a fresh cassette in "
        f"{cassettes / 'fixture%2Foracle'}, replacing them; "
    )
    command = shlex.split(line.partition("stop (Ctrl-C) and run: ")[2])
    assert command[:4] == ["lobrec", "record", "--model", "fixture/oracle"] and command[-1] == "--missing"


@pytest.mark.parametrize("extra", [["--missing"], ["--retry-errored"], ["--case", "sel-01"]])
def test_a_run_that_chose_its_cases_says_nothing_of_replacing(
    gateway: tuple[str, Path], tmp_path: Path, extra: list[str]
) -> None:
    cassettes = tmp_path / "cassettes"
    record(gateway, cassettes)
    assert "recording again" not in record(gateway, cassettes, *extra)

"""A case errored after the attempts of `--retry-delays 0.1,0.1` (3, each reset by the gateway):
`record` says errored (exit 5), `rescore` of the same cassettes says the same (not stale, exit 4),
and the fix printed (`--retry-errored`) records that case again."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from tests.support.gateway import FakeGatewayProcess

MODEL = "fixture/oracle"


def test_record_and_rescore_agree_on_a_case_errored_with_short_retries(
    fake_gateway: FakeGatewayProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no configuration file of this repository applies
    fake_gateway.faults([{"model": MODEL, "case": "sel-01", "then": "reset"}])
    suite = ["--suite", str(fake_gateway.suite_path)]
    where = ["--cassettes", "cassettes", "--base-url", fake_gateway.url]
    shape = ["--retry-delays", "0.1,0.1", "--timeout", "5"]
    recorded = CliRunner().invoke(app, ["record", "--model", MODEL, *where, *suite, *shape])
    assert recorded.exit_code == 5, recorded.stderr
    assert "sel-01" in recorded.stderr and "the request failed 3 times" in recorded.stderr

    rescored = CliRunner().invoke(app, ["rescore", "cassettes", *suite])
    assert rescored.exit_code == 5, rescored.stderr
    assert "stale" not in rescored.stderr
    assert "the request failed 3 times" in rescored.stderr

    fake_gateway.reset()  # the gateway is fixed; the printed fix records the errored case again
    again = CliRunner().invoke(app, ["record", "--model", MODEL, *where, *suite, "--retry-errored"])
    assert again.exit_code == 0, again.stderr
    assert CliRunner().invoke(app, ["rescore", "cassettes", *suite]).exit_code == 0

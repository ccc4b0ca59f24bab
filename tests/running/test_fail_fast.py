"""Failing fast: a model whose first cases all fail for a reason retrying cannot fix stops there.

The real `lobrec record` runs against a closed port on 127.0.0.1 and the fake gateway process
(an unknown model answers 404; a hanging reply times out). The retry rule per request is unchanged
(each errored cassette holds its four attempts); the cases not started are unrecorded, not scored,
and `--missing --retry-errored` records them once the cause is fixed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lobrec.cli import Exit
from lobrec.running.recording import FAIL_FAST_CASES
from tests.support.cli import run_lobrec
from tests.support.gateway import FakeGatewayProcess

FAST = ["--retry-delays", "0.01,0.02,0.04"]
STOPPED = "no more of its cases are started"


def lobrec(*args: str) -> subprocess.CompletedProcess[str]:
    return run_lobrec(args, env=dict(os.environ), text=True)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def results(path: Path) -> dict[str, Any]:
    (model,) = json.loads(path.read_bytes())["models"]
    return model


def test_a_closed_port_stops_the_model_after_its_first_cases(
    fake_gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    cassettes, out = tmp_path / "cassettes", tmp_path / "results.json"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    suite = ["--suite", str(fake_gateway.suite_path)]
    done = lobrec(
        "record", "-m", "fixture/oracle", "--base-url", url, "--cassettes", str(cassettes), *suite,
        *FAST, "--concurrency", "2", "--json", str(out),
    )  # fmt: skip
    assert done.returncode == Exit.GATEWAY, done.stderr
    note = next(line for line in done.stderr.splitlines() if STOPPED in line)
    assert note.startswith(
        f"lobrec: fixture/oracle: its first {FAIL_FAST_CASES} cases all errored: ConnectError"
    )
    model = results(out)
    statuses = [case["status"] for case in model["cases"]]
    # two in flight, then a case waits while the model is on probation: exactly three ran
    assert statuses.count("errored") == FAIL_FAST_CASES
    assert statuses.count("scored") == 0
    assert statuses.count("unrecorded") == 5 - statuses.count("errored")
    for case in model["cases"]:
        if case["status"] == "errored":  # the retry rule per request is unchanged: four attempts
            assert [call["attempt"] for call in case["api_calls"]] == [0, 1, 2, 3]
    # One line says why, names the folder it leaves, and the command that records every case of it.
    (line,) = [line for line in done.stderr.splitlines() if "never answered" in line]
    assert "cannot be reached" in line and f"kept in {cassettes / 'fixture%2Foracle'}" in line
    assert line.endswith("--missing --retry-errored") and "cases not started" not in done.stderr

    resumed = lobrec(
        "record", "-m", "fixture/oracle", "--base-url", fake_gateway.url, "--cassettes", str(cassettes),
        *suite, *FAST, "--missing", "--retry-errored", "--json", str(out),
    )  # fmt: skip
    assert resumed.returncode == Exit.OK, resumed.stderr
    assert [case["status"] for case in results(out)["cases"]] == ["scored"] * 5


def test_an_unknown_model_stops_after_its_first_404s(
    fake_gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    done = lobrec(
        "record", "-m", "no/such-model", "--base-url", fake_gateway.url,
        "--cassettes", str(tmp_path / "c"), "--suite", str(fake_gateway.suite_path), "--concurrency", "1",
    )  # fmt: skip
    assert done.returncode == Exit.GATEWAY
    assert f"its first {FAIL_FAST_CASES} cases all errored: the gateway answered 404" in done.stderr
    assert len(fake_gateway.log()) == FAIL_FAST_CASES  # one request each: a 404 is never retried


@pytest.mark.parametrize(("hanging", "stops"), [(2, False), (3, True)])
def test_only_the_first_cases_all_failing_alike_stop_a_model(
    fake_gateway: FakeGatewayProcess, tmp_path: Path, hanging: int, stops: bool
) -> None:
    """One at a time, the queue runs chain-01 first, then sel-01, arg-01, par-01, none-01. Replies
    that hang past --timeout on the first two cases, then answers: the model goes on; on the first
    three: it stops."""
    first = ["chain-01", "sel-01", "arg-01"][:hanging]
    fake_gateway.faults([{"case": case, "then": "hang", "hang_seconds": 5} for case in first])
    out = tmp_path / "results.json"
    done = lobrec(
        "record", "-m", "fixture/oracle", "--base-url", fake_gateway.url, "--cassettes", str(tmp_path / "c"),
        "--suite", str(fake_gateway.suite_path), "--concurrency", "1", "--timeout", "0.2",
        "--retry-delays", "0,0,0", "--json", str(out),
    )  # fmt: skip
    statuses = {case["id"]: case["status"] for case in results(out)["cases"]}
    assert (STOPPED in done.stderr) is stops
    assert [case for case, status in statuses.items() if status == "errored"] == sorted(
        first, key=list(statuses).index
    )
    if stops:
        assert done.returncode == Exit.GATEWAY
        assert (statuses["par-01"], statuses["none-01"]) == ("unrecorded", "unrecorded")
        assert "Timeout: the gateway does not answer in time" in done.stderr
    else:
        assert done.returncode == Exit.ERRORED
        assert list(statuses.values()).count("scored") == 3

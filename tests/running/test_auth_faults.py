"""Failing fast on a refused key or a forbidden model, end to end.

The real `lobrec record` runs as a subprocess against a fake gateway process on 127.0.0.1 started
with `--require-key`, so a wrong or missing key gets the 401 a real gateway sends, and a `"403"`
fault rule forbids one model. A model whose first 3 cases all get the 401 (or the 403) is stopped
with one line naming the reason, its other cases are not started, and another model of the same
run records fully. Neither the key lobrec sends nor the one the gateway expects is written to any
file or printed, in any spelling (`lobrec.cassette.spellings.holds`, `lobrec audit`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lobrec.cassette.audit import audit
from lobrec.cassette.spellings import holds
from lobrec.cli import Exit
from lobrec.fakegateway import start_fake_gateway_process, stop_fake_gateway_process
from lobrec.running.recording import FAIL_FAST_CASES
from lobrec.suite_file import load_suite
from tests.support.cli import cli_env, run_lobrec
from tests.support.faults import FAST_RETRIES, GatewayProcess

pytestmark = pytest.mark.process  # a fake gateway process serves the module

RIGHT_KEY = "lsk-right-Hk42-9c0e1d7a5b3f2e6c"
WRONG_KEY = "lsk-wrong-Pw17-4a8b2c6d0e9f1a3b"
CASES = 5  # the small e2e suite's
STOPPED = "no more of its cases are started"


@pytest.fixture(scope="module")
def keyed_gateway(small_suite_path: Path, _clean_proxy_environment: None) -> Iterator[GatewayProcess]:
    """A fake gateway process that answers 401 unless it gets `Authorization: Bearer RIGHT_KEY`."""
    process, url = start_fake_gateway_process(small_suite_path, extra_args=["--require-key", RIGHT_KEY])
    try:
        gateway = GatewayProcess(
            url=url, suite_path=small_suite_path, suite=load_suite(small_suite_path), process=process
        )
        yield gateway
    finally:
        stop_fake_gateway_process(process)


@pytest.fixture
def gateway(keyed_gateway: GatewayProcess) -> GatewayProcess:
    keyed_gateway.reset()
    return keyed_gateway


def record(
    gateway: GatewayProcess, work: Path, key: str | None, *models: str, extra: tuple[str, ...] = ()
) -> Any:
    """`lobrec record` of `models` into `work`, with LOBSTACK_API_KEY set to `key` (unset: None)."""
    args = ["record", "--base-url", gateway.url, "--suite", str(gateway.suite_path)]
    args += [part for model in models for part in ("--model", model)]
    args += ["--cassettes", str(work / "cassettes"), "--json", str(work / "results.json")]
    args += ["--markdown", str(work / "report.md"), *FAST_RETRIES, *extra]
    return run_lobrec(args, env=cli_env(**({"LOBSTACK_API_KEY": key} if key else {})), cwd=work)


def statuses(work: Path) -> dict[str, list[tuple[str, str | None]]]:
    """Per model, each case's status and reason in the results file, in suite order."""
    results = json.loads((work / "results.json").read_bytes())
    return {
        model["model"]: [(case["status"], case.get("reason")) for case in model["cases"]]
        for model in results["models"]
    }


def assert_rescore_agrees(gateway: GatewayProcess, work: Path) -> None:
    """Nothing lost: `lobrec rescore` of the recording gives the models' results `record` wrote."""
    rescored = run_lobrec(
        ["rescore", str(work / "cassettes"), "--suite", str(gateway.suite_path), "--json", "-"], cwd=work
    )
    recorded = json.loads((work / "results.json").read_bytes())
    assert json.loads(rescored.stdout)["models"] == recorded["models"], rescored.stderr.decode()


def stop_lines(stderr: str, model: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(f"lobrec: {model}: ") and STOPPED in line]


def leaked(work: Path, streams: tuple[bytes, ...], *keys: str) -> list[str]:
    """Every (place, key) where a key shows up in any spelling, in any file or stream."""
    places = [(str(path), path.read_bytes()) for path in sorted(work.rglob("*")) if path.is_file()]
    places += [(f"stream {index}", data) for index, data in enumerate(streams)]
    found = [
        f"{place}: {key}"
        for place, data in places
        for key in keys
        if holds(data.decode("utf-8", "replace"), key)
    ]
    return found + [str(finding) for finding in audit(work / "cassettes", secrets=list(keys))]


def assert_stopped(
    done: Any, work: Path, model: str, reason: str, message: str
) -> list[tuple[str, str | None]]:
    """`model` errored its first FAIL_FAST_CASES cases with `message` and started no other."""
    stderr = done.stderr.decode()
    (line,) = stop_lines(stderr, model)  # named once, in one line
    assert line.startswith(
        f"lobrec: {model}: its first {FAIL_FAST_CASES} cases all errored: {reason} (step 1: {message})"
    ), line
    cases = statuses(work)[model]
    assert [case for case in cases if case[0] == "errored"] == [
        ("errored", f"step 1: {message}")
    ] * FAIL_FAST_CASES
    assert [status for status, _ in cases].count("unrecorded") == CASES - FAIL_FAST_CASES
    return cases


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (WRONG_KEY, "the gateway answered 401: Incorrect API key provided."),
        (
            None,
            "the gateway answered 401: You didn't provide an API key. "
            "Send it as `Authorization: Bearer KEY`.",
        ),
    ],
    ids=["a wrong key", "no key"],
)
def test_a_refused_key_stops_the_model_after_its_first_cases(
    gateway: GatewayProcess, tmp_path: Path, key: str | None, message: str
) -> None:
    done = record(gateway, tmp_path, key, "fixture/oracle", extra=("--concurrency", "1"))

    assert done.returncode == Exit.GATEWAY, done.stderr.decode()  # no case scored: 3 wins over 4
    assert_stopped(done, tmp_path, "fixture/oracle", "the gateway answered 401: the key is refused", message)
    log = gateway.log()  # a 401 is never retried: one request per case, none after the stop
    assert [(entry["fault"], entry["status"]) for entry in log] == [("require_key", 401)] * FAIL_FAST_CASES
    assert leaked(tmp_path, (done.stdout, done.stderr), RIGHT_KEY, *([key] if key else [])) == []
    assert_rescore_agrees(gateway, tmp_path)

    # Once the key is fixed, the documented command records the errored and the unstarted cases.
    resumed = record(gateway, tmp_path, RIGHT_KEY, "fixture/oracle", extra=("--missing", "--retry-errored"))
    assert resumed.returncode == Exit.OK, resumed.stderr.decode()
    assert [status for status, _ in statuses(tmp_path)["fixture/oracle"]] == ["scored"] * CASES
    assert leaked(tmp_path, (resumed.stdout, resumed.stderr), RIGHT_KEY, *([key] if key else [])) == []


def test_a_forbidden_model_stops_while_another_records_fully(gateway: GatewayProcess, tmp_path: Path) -> None:
    gateway.faults([{"model": "fixture/silent", "then": "403"}])
    done = record(
        gateway, tmp_path, RIGHT_KEY, "fixture/oracle", "fixture/silent", extra=("--concurrency", "1")
    )

    assert done.returncode == Exit.GATEWAY, done.stderr.decode()  # fixture/silent scored no case
    assert_stopped(
        done,
        tmp_path,
        "fixture/silent",
        "the gateway answered 403: the key is refused",
        "the gateway answered 403: This key is not allowed to use this model. (injected fault)",
    )
    assert stop_lines(done.stderr.decode(), "fixture/oracle") == []
    assert statuses(tmp_path)["fixture/oracle"] == [("scored", None)] * CASES
    forbidden = [entry for entry in gateway.log() if entry["model"] == "fixture/silent"]
    assert [(entry["fault"], entry["status"]) for entry in forbidden] == [("403", 403)] * FAIL_FAST_CASES
    assert leaked(tmp_path, (done.stdout, done.stderr), RIGHT_KEY) == []
    assert_rescore_agrees(gateway, tmp_path)


def test_the_right_key_records_every_case_and_is_written_nowhere(
    gateway: GatewayProcess, tmp_path: Path
) -> None:
    done = record(gateway, tmp_path, RIGHT_KEY, "fixture/oracle", "auto")

    assert done.returncode == Exit.OK, done.stderr.decode()
    assert STOPPED not in done.stderr.decode()
    assert statuses(tmp_path) == {
        "fixture/oracle": [("scored", None)] * CASES,
        "auto": [("scored", None)] * CASES,
    }
    log = gateway.log()
    assert {(entry["fault"], entry["status"]) for entry in log} == {(None, 200)}
    oracle = [entry for entry in log if entry["model"] == "fixture/oracle"]
    assert len(oracle) == CASES + 2  # chain-01 takes three requests
    assert len(list((tmp_path / "cassettes").rglob("*.json"))) == 2 * (CASES + 1)  # and a manifest each
    assert leaked(tmp_path, (done.stdout, done.stderr), RIGHT_KEY) == []

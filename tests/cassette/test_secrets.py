"""The API key never reaches a byte lobrec writes.

`lobrec record` runs as a subprocess with `LOBSTACK_API_KEY` set to a canary, against the fake
gateway process on loopback (with faults, so error paths write too), then against a scripted
gateway that echoes the Authorization header back in a response header, the reply text, the
completion id and an error message. Every file under the working directory (cassettes, manifests,
results JSON, Markdown and HTML reports) and the process's stdout and stderr are searched for the
canary as written, base64-encoded, percent-encoded and JSON-escaped.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lobrec.cassette.audit import audit
from lobrec.cassette.format import load_cassette_file
from tests.support.cli import cli_env, run_lobrec
from tests.support.faults import FAST_RETRIES, RawServer, echo_key, ok

CANARY = "lsk-canary-Zq81-7f3a9c2e4b6d0a1f"
FORMS = {
    "as written": CANARY.encode(),
    "base64": base64.b64encode(CANARY.encode()),
    "base64 of the header": base64.b64encode(f"Bearer {CANARY}".encode()),
    "percent-encoded": quote(CANARY, safe="").encode(),
    "JSON-escaped": json.dumps(CANARY).encode()[1:-1],
}


def leaks(directory: Path, *streams: bytes) -> list[str]:
    """Every (place, form) where the canary shows up."""
    found = []
    places = [(str(path), path.read_bytes()) for path in sorted(directory.rglob("*")) if path.is_file()]
    places += [(f"stream {index}", data) for index, data in enumerate(streams)]
    for place, data in places:
        found += [f"{place}: {form}" for form, needle in FORMS.items() if needle in data]
    return found


def record(url: str, suite_path: Path, work: Path, *extra: str) -> Any:
    return run_lobrec(
        [
            "record",
            "--model",
            "fixture/oracle",
            "--model",
            "auto",
            "--base-url",
            url,
            "--suite",
            str(suite_path),
            "--cassettes",
            str(work / "cassettes"),
            "--json",
            str(work / "results.json"),
            "--max-errored",
            "100%",  # the faults error cases on purpose
            "--markdown",
            str(work / "report.md"),
            "--html",
            str(work / "report.html"),
            "--timeout",
            "0.5",
            *FAST_RETRIES,
            *extra,
        ],
        env=cli_env(LOBSTACK_API_KEY=CANARY),
        cwd=work,
    )


def test_the_key_is_in_no_file_and_no_output(fake_gateway: Any, tmp_path: Path) -> None:
    fake_gateway.faults(
        [
            {"case": "sel-01", "faults": ["429", "reset", "truncate"]},
            {"case": "arg-01", "faults": ["500"]},
            {"case": "par-01", "faults": ["hang"], "hang_seconds": 2},
            {"case": "none-01", "faults": ["not_json"]},
        ]
    )
    done = record(fake_gateway.url, fake_gateway.suite_path, tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    rescored = run_lobrec(
        ["rescore", str(tmp_path / "cassettes"), "--suite", str(fake_gateway.suite_path), "--json", "-"],
        env=cli_env(LOBSTACK_API_KEY=CANARY),
    )

    assert len(list(tmp_path.rglob("*.json"))) == 13  # 10 cassettes, 2 manifests, the results
    assert leaks(tmp_path, done.stdout, done.stderr, rescored.stdout, rescored.stderr) == []
    assert audit(tmp_path / "cassettes", secrets=[CANARY]) == []


def test_a_gateway_echoing_the_key_is_scrubbed(
    raw_server: RawServer, small_suite_path: Path, tmp_path: Path
) -> None:
    """The key comes back in a header, the reply text, the completion id and an error message.

    A 200 answer holding the key is not altered (that would change what the model said): its case
    is errored with a clear reason and nothing of the answer is kept. An error answer's message and
    every header kept (the allow-list) are recorded with `<redacted>`; other headers are not kept.
    """
    raw_server.script = [echo_key(200), echo_key(401), ok, ok]
    done = record(
        raw_server.url,
        small_suite_path,
        tmp_path,
        "--case",
        "sel-01",
        "--case",
        "arg-01",
        "--concurrency",
        "1",
    )

    assert {request.headers["authorization"] for request in raw_server.requests} == {f"Bearer {CANARY}"}
    assert leaks(tmp_path, done.stdout, done.stderr) == []
    oracle = tmp_path / "cassettes" / "fixture%2Foracle"
    first = load_cassette_file(oracle / "sel-01.json").interactions[0].response
    assert (first.status.code, first.body.string) == (599, "")
    second = load_cassette_file(oracle / "arg-01.json").interactions[0].response
    assert "x-echo-authorization" not in second.headers  # outside the allow-list: not recorded
    results = json.loads((tmp_path / "results.json").read_bytes())
    reasons = {
        case["id"]: case["reason"]
        for model in results["models"]
        for case in model["cases"]
        if case["status"] == "errored"
    }
    assert reasons["sel-01"] == "step 1: the gateway's 200 answer contains the API key; it was not recorded"
    arg = {"reason": reasons["arg-01"]}
    assert arg["reason"] == "step 1: the gateway answered 401: bad key Bearer <redacted>"

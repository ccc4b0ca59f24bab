"""Ctrl-C, SIGTERM and SIGKILL at random points of `lobrec record`, repeated; nothing is lost.

Each test runs the real `lobrec` command as a subprocess against a fake gateway process that waits
`LATENCY_MS` before each answer, so a run takes a few seconds. It waits until the gateway has seen
the run's first request, waits a random (seeded) moment more, sends the signal, and checks:

- the process is gone within `STOP_WITHIN_S` seconds (a bounded wait, not a timing assertion),
  with exit code 130 and the line saying how many cases it kept and how to resume;
- every cassette and manifest decodes: no partial file, and (for SIGINT/SIGTERM) no `.tmp` left;
- the manifest lists exactly the cassettes on disk.

Then `lobrec record --missing` resumes it, is killed again, and so on; after the last kill
`--missing` finishes the run, and its results file equals an uninterrupted run's. Latency and the
recording's times are the things that may differ, since they are measured when a case is recorded:
`latency_ms` of every call, `latency_p50_ms`, `latency_p50_judged_ms`, and the manifest's
`started_at` and `finished_at` (cited under `recorded`; null while a run is unfinished, and a resume
with nothing left to record leaves it so) are zeroed on both sides before comparing;
everything else (verdicts, counts, costs from the gateway's headers, case order) must be identical.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.manifest import load_manifest
from lobrec.cli import app
from lobrec.core.metrics.results import decode_results
from lobrec.running.replay import ReplayModel
from tests.support.cli import LOBREC, cli_env, run_lobrec
from tests.support.faults import FAST_RETRIES, GatewayProcess, gateway_process

pytestmark = pytest.mark.process

MODEL = "fixture/oracle"
MODEL_DIR = "fixture%2Foracle"
LATENCY_MS = 60
CONCURRENCY = 2
STOP_WITHIN_S = 5.0
KILLS = 16
SEED = 20261021


def resume(url: str, cassettes: Path, suite_path: Path, *cases: str, flags: str = "") -> str:
    """The hint an interrupted run prints: the command that resumes it with the run's own options
    (`flags`: those it ran with that are not the defaults)."""
    extra = "".join(f" --case {case}" for case in cases)
    return (
        f"Resume with: lobrec record --model {MODEL} --base-url {url} --cassettes {cassettes} "
        f"--suite {suite_path}{extra}{flags} --missing"
    )


RUN_FLAGS = f" --concurrency {CONCURRENCY} --timeout 5 {' '.join(FAST_RETRIES)}"


def interrupted_line(hint: str) -> re.Pattern[str]:
    return re.compile(
        r"lobrec: interrupted(?:; (\d+) cases? recorded and kept\.|; every case recorded so far is kept\.)"
        rf" {re.escape(hint)}\n|lobrec: interrupted while writing the reports; every cassette is complete\n"
    )


@pytest.fixture(scope="module")
def slow_gateway(whole_suite_path: Path, _clean_proxy_environment: None) -> Iterator[GatewayProcess]:
    with gateway_process(whole_suite_path, latency_ms=LATENCY_MS) as gateway:
        yield gateway


def record_args(gateway: GatewayProcess, cassettes: Path, results: Path, *extra: str) -> list[str]:
    return [
        "record",
        "--model",
        MODEL,
        "--base-url",
        gateway.url,
        "--suite",
        str(gateway.suite_path),
        "--cassettes",
        str(cassettes),
        "--json",
        str(results),
        "--timeout",
        "5",
        *FAST_RETRIES,
        *extra,
    ]


MEASURED = ("latency_ms", "latency_p50_ms", "latency_p50_judged_ms", "started_at", "finished_at")


def normalised(path: Path) -> Any:
    """The results file with measured latencies and times zeroed (see the module docstring)."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: (0 if key in MEASURED and (value is not None or key == "finished_at") else walk(value))
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(json.loads(path.read_bytes()))


@pytest.fixture(scope="module")
def uninterrupted(slow_gateway: GatewayProcess, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The reference: one run start to finish (at high concurrency, to be quick; order is the suite's)."""
    directory = tmp_path_factory.mktemp("reference")
    results = directory / "results.json"
    args = record_args(slow_gateway, directory / "cassettes", results, "--concurrency", "32")
    done = run_lobrec(args)
    assert done.returncode == 0, done.stderr.decode()
    return normalised(results)


def cassette_files(model_dir: Path) -> set[str]:
    if not model_dir.is_dir():
        return set()
    return {p.name for p in model_dir.iterdir() if p.name.endswith(".json") and p.name != "manifest.json"}


def check_whole(model_dir: Path, allow_temporary: bool) -> None:
    """Every file decodes; the manifest lists exactly the cassettes on disk; no temporary files."""
    if not model_dir.exists():
        return
    names = {p.name for p in model_dir.iterdir()}
    temporary = {name for name in names if name.endswith(".tmp")}
    if not allow_temporary:
        assert temporary == set()
    manifest = load_manifest(model_dir)
    on_disk = cassette_files(model_dir)
    for name in on_disk:
        assert load_cassette_file(model_dir / name).interactions
    if allow_temporary:  # SIGKILL can land between a cassette and its manifest entry
        assert {f"{case}.json" for case in manifest.cases} <= on_disk
    else:
        assert {f"{case}.json" for case in manifest.cases} == on_disk


def wait_for_first_request(gateway: GatewayProcess, before: int, process: subprocess.Popen[bytes]) -> bool:
    """Poll the gateway log until this run's first request arrives (bounded); False if the run ended."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(gateway.log()) > before:
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.01)
    raise AssertionError("the run made no request within 30 seconds")


def everything_recorded(gateway: GatewayProcess, model_dir: Path) -> bool:
    return cassette_files(model_dir) == {f"{case.id}.json" for case in gateway.suite.cases}


def finished(results: Path, gateway: GatewayProcess, model_dir: Path) -> bool:
    """The run had done everything: every case recorded and its results file written (atomically)."""
    if not results.exists() or not everything_recorded(gateway, model_dir):
        return False
    decode_results(results.read_bytes())
    return True


def kill_loop(
    gateway: GatewayProcess, tmp_path: Path, signals: list[signal.Signals], rng: random.Random
) -> tuple[int, Path]:
    """Record with --missing, kill at a random point, repeat; returns (kills that landed, cassettes)."""
    cassettes = tmp_path / "cassettes"
    model_dir = cassettes / MODEL_DIR
    landed = 0
    for round_, sig in enumerate(signals):
        if everything_recorded(gateway, model_dir):
            break
        before_files = cassette_files(model_dir)
        before_log = len(gateway.log())
        results = tmp_path / f"results-{round_}.json"
        process = subprocess.Popen(
            [
                str(LOBREC),
                *record_args(gateway, cassettes, results, "--concurrency", str(CONCURRENCY), "--missing"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env(),
        )
        try:
            if wait_for_first_request(gateway, before_log, process):
                time.sleep(rng.uniform(0, 0.5))
                process.send_signal(sig)
                if sig != signal.SIGKILL and round_ % 4 == 3:
                    process.send_signal(sig)  # an impatient second Ctrl-C
            _, stderr = process.communicate(timeout=STOP_WITHIN_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        text = stderr.decode()
        if process.returncode != 130 and finished(results, gateway, model_dir):
            # The run was over when the signal came (at most the interpreter was still exiting).
            check_whole(model_dir, allow_temporary=sig == signal.SIGKILL)
            break
        landed += 1
        if sig == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
            check_whole(model_dir, allow_temporary=True)
            continue
        assert process.returncode == 130, text
        match = interrupted_line(resume(gateway.url, cassettes, gateway.suite_path, flags=RUN_FLAGS)).search(
            text
        )
        assert match is not None, text
        if match.group(1) is not None:  # the signal landed while cases ran (else: before or after)
            assert int(match.group(1)) == len(cassette_files(model_dir) - before_files)
        check_whole(model_dir, allow_temporary=False)
    return landed, cassettes


def finish(gateway: GatewayProcess, cassettes: Path, tmp_path: Path) -> Any:
    results = tmp_path / "final.json"
    done = run_lobrec(record_args(gateway, cassettes, results, "--missing"))
    assert done.returncode == 0, done.stderr.decode()
    check_whole(cassettes / MODEL_DIR, allow_temporary=False)
    return normalised(results)


def test_sigint_and_sigterm_at_random_points_lose_nothing(
    slow_gateway: GatewayProcess, uninterrupted: Any, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    signals = [signal.SIGINT, signal.SIGTERM] * (KILLS // 2)
    landed, cassettes = kill_loop(slow_gateway, tmp_path, signals, rng)
    assert landed >= KILLS // 2, "the loop must interrupt real runs, not finished ones"
    assert finish(slow_gateway, cassettes, tmp_path) == uninterrupted


def test_sigkill_at_random_points_leaves_only_whole_files(
    slow_gateway: GatewayProcess, uninterrupted: Any, tmp_path: Path
) -> None:
    """SIGKILL cannot be handled: a `.tmp` may be left (hidden, and flagged by `lobrec audit`), but
    never a partial cassette or manifest, and `--missing` still completes the same results."""
    rng = random.Random(SEED + 1)
    landed, cassettes = kill_loop(slow_gateway, tmp_path, [signal.SIGKILL] * 4, rng)
    assert landed >= 2
    for leftover in (cassettes / MODEL_DIR).glob(".*.tmp"):
        leftover.unlink()
    assert finish(slow_gateway, cassettes, tmp_path) == uninterrupted


def test_a_signal_after_the_cases_ran_stops_cleanly(
    fake_gateway: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while `record` replays the cases it did not run (here: the first replay) is not a
    traceback: one line, exit 130, and the cassettes stay whole."""
    cassettes = tmp_path / "cassettes"
    base = [
        "--base-url",
        fake_gateway.url,
        "--suite",
        str(fake_gateway.suite_path),
        "--cassettes",
        str(cassettes),
    ]
    first = CliRunner().invoke(app, ["record", "--model", MODEL, *base])
    assert first.exit_code == 0, first.stderr
    replay_case = ReplayModel.replay_case

    def interrupted_replay(self: ReplayModel, *args: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)  # the loop sees it at the next turn record gives it
        return replay_case(self, *args)

    monkeypatch.setattr(ReplayModel, "replay_case", interrupted_replay)
    result = CliRunner().invoke(app, ["record", "--model", MODEL, "--case", "sel-01", *base])

    assert (result.exit_code, result.stderr) == (
        130,
        "lobrec: interrupted; every case recorded so far is kept. "
        + resume(fake_gateway.url, cassettes, fake_gateway.suite_path, "sel-01")
        + "\n",
    )
    check_whole(cassettes / MODEL_DIR, allow_temporary=False)
    assert len(cassette_files(cassettes / MODEL_DIR)) == len(fake_gateway.suite.cases)

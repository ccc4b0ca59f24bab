"""Runs at scale: 20 models x the suite through one rate-limited gateway, adapting and fixed.

The fake gateway answers in 100 ms and allows 50 chat requests a second (one token bucket for all
models, as one API key has); `lobrec record` runs every model at once with `--concurrency 64`.
The bound is the rate's: `calls / 50` seconds, where calls are the requests that got an answer
other than the limiter's 429 (what the run needed), counted by the gateway's own log.

The same run with `--fixed` (64 in flight whatever the gateway says) shows what adapting buys:
the 429s it draws, the cases the retry rule gives up on, and the wall time.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import httpx

from bench._measure import SECONDS, VENV_BIN, Report, Row, Stats, SuiteChoice, check, run_process
from lobrec.core.metrics.results import decode_results
from lobrec.fakegateway import ORACLE, start_fake_gateway_process, stop_fake_gateway_process

MODELS = 20
LATENCY_MS = 100
RATE = 50.0
CONCURRENCY = 64
WALL_GOAL = 1.3


@dataclasses.dataclass(frozen=True, kw_only=True)
class ScaleRun:
    wall_s: float
    calls: int
    """Requests answered (the limiter's 429s not counted): what the run needed."""
    throttled: int
    errored: int


def _models(count: int) -> list[str]:
    return [f"{ORACLE}@{index:02d}" for index in range(count)]


def _once(suite: SuiteChoice, url: str, root: Path, adaptive: bool, models: list[str]) -> ScaleRun:
    httpx.post(url.removesuffix("/v1") + "/__fake__/reset").raise_for_status()
    target = root / ("adaptive" if adaptive else "fixed")
    shutil.rmtree(target, ignore_errors=True)
    results = target / "results.json"
    command = [str(VENV_BIN / "lobrec"), "record", "--base-url", url, "--suite", str(suite.path)]
    command += ["--cassettes", str(target), "--concurrency", str(CONCURRENCY), "--json", str(results)]
    # Errored cases are a figure of this benchmark, not a failure of it: the fixed run is meant to
    # draw 429s until the retry rule gives up on some cases, and the adapting run's goal is to have
    # none (its row says whether it met it). Both are counted below; without the allowance a run
    # with any errored case exits 5 and the benchmark stops there.
    command += ["--max-errored", "100%"] + ([] if adaptive else ["--fixed"])
    for model in models:
        command += ["--model", model]
    run = check(run_process(command), f"lobrec record ({len(models)} models)")
    log = httpx.get(url.removesuffix("/v1") + "/__fake__/log").json()
    throttled = sum(1 for entry in log if entry.get("fault") == "rate_limit")
    errored = sum(model.counts.errored for model in decode_results(results.read_bytes()).models)
    return ScaleRun(wall_s=run.wall_s, calls=len(log) - throttled, throttled=throttled, errored=errored)


def bench(report: Report, suite: SuiteChoice, runs: int, workdir: Path, models: int = MODELS) -> None:
    """`runs` rounds of adapting then fixed, against one gateway process."""
    names = _models(models)
    process, url = start_fake_gateway_process(suite.path, LATENCY_MS, rate_limit=RATE)
    try:
        done = {True: [], False: []}  # type: dict[bool, list[ScaleRun]]
        for _ in range(runs):
            for adaptive in (True, False):
                done[adaptive].append(_once(suite, url, workdir / "scale", adaptive, names))
    finally:
        stop_fake_gateway_process(process)
    section = f"scale {models}x{suite.cases}"
    for adaptive, label in ((True, "adapting"), (False, "fixed --concurrency 64")):
        samples = done[adaptive]
        bound = max(run.calls for run in samples) / RATE
        errored = max(run.errored for run in samples)
        wall = Stats.of([run.wall_s for run in samples])
        met = None
        if adaptive:
            met = errored == 0 and wall.median / bound <= WALL_GOAL
        report.add(
            Row(
                section=section,
                figure=f"lobrec record, {label}: wall time",
                stats=wall,
                unit=SECONDS,
                baseline_name="rate bound",
                baseline=bound,
                goal=f"≤ {WALL_GOAL}x, 0 errored" if adaptive else "",
                met=met,
                note=(
                    f"{RATE:g} req/s limit, {LATENCY_MS} ms latency; {samples[0].calls} calls answered, "
                    f"429s drawn {max(run.throttled for run in samples)}, errored cases {errored} (worst run)"
                ),
            )
        )

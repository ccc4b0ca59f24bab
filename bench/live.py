"""Live run: `lobrec record` of `fixture/oracle` against the fake gateway answering in 100 ms.

The fake gateway is its own process (`start_fake_gateway_process`), so its CPU is never counted as
lobrec's. Each run records the whole suite into a fresh directory at a given concurrency, through
`bench/_record_child.py` (the real `lobrec record` command, timed apart from start-up).

Two baselines, both measured in the same run:
- the bound a perfect client could reach, `max(longest chain's steps, ceil(calls / concurrency))`
  round trips of 100 ms: a chain's steps cannot overlap, and no more than `concurrency` calls are in
  flight;
- the same requests sent by a bare `httpx.AsyncClient` (`bench/_httpx_child.py`), taking turns
  with lobrec's runs: what the HTTP client costs before lobrec does anything.

Calls made are counted by the gateway itself (its request log).
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import sys
from pathlib import Path

import httpx
import msgspec

from bench._measure import (
    BENCH,
    MS,
    SECONDS,
    Report,
    Row,
    Stats,
    SuiteChoice,
    check,
    child_env,
    run_process,
)
from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.layout import MANIFEST, model_dir_name
from lobrec.fakegateway import ORACLE, start_fake_gateway_process, stop_fake_gateway_process

LATENCY_MS = 100
CONCURRENCIES = (1, 4, 16, 64)
WALL_GOAL = 1.3
WALL_GOAL_AT = 16
CPU_GOAL = 0.01
"""CPU per recorded call, as a share of one 100 ms call."""


class _ChildFigures(msgspec.Struct):
    run_s: float
    run_cpu_s: float
    modules: list[str]
    exit_code: int = 0
    calls: int = 0


@dataclasses.dataclass(frozen=True, kw_only=True)
class LiveRun:
    calls: int
    run_s: float
    run_cpu_s: float
    process_s: float
    process_cpu_s: float


class Gateway:
    """The fake gateway process and its control API."""

    def __init__(self, suite_path: Path) -> None:
        self.process, self.url = start_fake_gateway_process(suite_path, latency_ms=LATENCY_MS)
        self.control = httpx.Client(base_url=self.url.removesuffix("/v1"), trust_env=False)

    def reset(self) -> None:
        self.control.post("/__fake__/reset").raise_for_status()

    def calls(self) -> int:
        """Chat requests since the last reset; every one must have been answered 200."""
        response = self.control.get("/__fake__/log")
        response.raise_for_status()
        log = response.json()
        failed = [entry for entry in log if entry.get("status") != 200]
        if failed:
            raise SystemExit(f"bench: the live run saw failed calls, its timing means nothing: {failed[:3]}")
        return len(log)

    def close(self) -> None:
        self.control.close()
        stop_fake_gateway_process(self.process)


@dataclasses.dataclass(kw_only=True)
class Live:
    gateway: Gateway
    suite: SuiteChoice
    workdir: Path
    record_modules: str = "-"
    httpx_modules: str = "-"
    requests: Path | None = None

    def _child(
        self, command: list[str], what: str, env: dict[str, str] | None = None
    ) -> tuple[_ChildFigures, float, float]:
        figures_path = self.workdir / "child.json"
        figures_path.unlink(missing_ok=True)
        self.gateway.reset()
        process = check(run_process(command, env=env), what)
        figures = msgspec.json.decode(figures_path.read_bytes(), type=_ChildFigures)
        return figures, process.wall_s, process.cpu_s

    def record(self, concurrency: int, *, fsync: bool = True) -> LiveRun:
        cassettes = self.workdir / f"live-c{concurrency}"
        shutil.rmtree(cassettes, ignore_errors=True)
        command = [sys.executable, str(BENCH / "_record_child.py"), str(self.workdir / "child.json")]
        command += [self.record_modules, "--model", ORACLE, "--base-url", self.gateway.url]
        command += ["--suite", str(self.suite.path), "--cassettes", str(cassettes)]
        command += ["--concurrency", str(concurrency)]
        env = child_env() if fsync else {**child_env(), "LOBREC_BENCH_NO_FSYNC": "1"}
        figures, wall, cpu = self._child(command, f"lobrec record --concurrency {concurrency}", env)
        return LiveRun(
            calls=self.gateway.calls(),
            run_s=figures.run_s,
            run_cpu_s=figures.run_cpu_s,
            process_s=wall,
            process_cpu_s=cpu,
        )

    def bare_httpx(self, concurrency: int) -> LiveRun:
        assert self.requests is not None
        command = [sys.executable, str(BENCH / "_httpx_child.py"), str(self.workdir / "child.json")]
        command += [self.httpx_modules, f"{self.gateway.url}/chat/completions", str(concurrency)]
        command += [str(self.requests)]
        figures, wall, cpu = self._child(command, f"bare httpx at concurrency {concurrency}")
        calls = self.gateway.calls()
        if calls != figures.calls:
            raise SystemExit(f"bench: bare httpx sent {figures.calls} requests, the gateway saw {calls}")
        return LiveRun(
            calls=calls,
            run_s=figures.run_s,
            run_cpu_s=figures.run_cpu_s,
            process_s=wall,
            process_cpu_s=cpu,
        )

    def warm_up(self) -> None:
        """One run of each child: warms the caches, and lists the modules later runs import first."""
        self.record(16)
        self.record_modules = self._modules("record-modules.txt")
        self.requests = self._requests(self.workdir / "live-c16" / model_dir_name(ORACLE))
        self.bare_httpx(16)
        self.httpx_modules = self._modules("httpx-modules.txt")

    def _modules(self, name: str) -> str:
        figures = msgspec.json.decode((self.workdir / "child.json").read_bytes(), type=_ChildFigures)
        path = self.workdir / name
        path.write_text("\n".join(figures.modules) + "\n", encoding="utf-8")
        return str(path)

    def _requests(self, directory: Path) -> Path:
        """Per case, the bodies lobrec sent, from its cassettes."""
        cases = [
            [i.request.body or "" for i in load_cassette_file(path).interactions]
            for path in sorted(directory.glob("*.json"))
            if path.name != MANIFEST
        ]
        path = self.workdir / "requests.json"
        path.write_bytes(msgspec.json.encode(cases))
        return path


def bound_s(longest_chain: int, calls: int, concurrency: int) -> float:
    return max(longest_chain, math.ceil(calls / concurrency)) * LATENCY_MS / 1000


def bench(report: Report, suite: SuiteChoice, runs: dict[int, int], workdir: Path) -> None:
    gateway = Gateway(suite.path)
    try:
        live = Live(gateway=gateway, suite=suite, workdir=workdir)
        live.warm_up()
        for concurrency in CONCURRENCIES:
            lobrec_runs, httpx_runs, unsynced_runs = [], [], []
            for _ in range(runs[concurrency]):
                lobrec_runs.append(live.record(concurrency))
                httpx_runs.append(live.bare_httpx(concurrency))
                if concurrency == WALL_GOAL_AT:
                    unsynced_runs.append(live.record(concurrency, fsync=False))
            _rows(report, suite, concurrency, lobrec_runs, httpx_runs)
            if unsynced_runs:
                _unsynced_rows(report, suite, concurrency, unsynced_runs)
    finally:
        gateway.close()


def _calls(done: list[LiveRun], what: str) -> int:
    calls = sorted({run.calls for run in done})
    if len(calls) != 1:
        raise SystemExit(f"bench: calls made differ between runs of {what}: {calls}")
    return calls[0]


def _rows(
    report: Report, suite: SuiteChoice, concurrency: int, done: list[LiveRun], bare: list[LiveRun]
) -> None:
    calls = _calls(done, f"lobrec at concurrency {concurrency}")
    bound = bound_s(suite.longest_chain, calls, concurrency)
    section = f"live c={concurrency}"
    wall = Row(
        section=section,
        figure="lobrec record: wall time of the run",
        stats=Stats.of([run.run_s for run in done]),
        unit=SECONDS,
        baseline_name="bound",
        baseline=bound,
        goal=f"≤ {WALL_GOAL}x" if concurrency == WALL_GOAL_AT else "",
        note=(
            f"{calls} calls, longest chain {suite.longest_chain}; whole process "
            f"{SECONDS.show(Stats.of([run.process_s for run in done]).median)}"
        ),
    )
    if concurrency == WALL_GOAL_AT:
        wall = dataclasses.replace(wall, met=wall.ratio is not None and wall.ratio <= WALL_GOAL)
    report.add(wall)
    report.add(
        Row(
            section=section,
            figure="bare httpx: wall time of the run",
            stats=Stats.of([run.run_s for run in bare]),
            unit=SECONDS,
            baseline_name="bound",
            baseline=bound,
            note="the same requests, the same concurrency, nothing else",
        )
    )
    cpu = Row(
        section=section,
        figure="lobrec record: CPU per call",
        stats=Stats.of([run.run_cpu_s / run.calls for run in done]),
        unit=MS,
        baseline_name="one call",
        baseline=LATENCY_MS / 1000,
        goal=f"< {CPU_GOAL:.0%}",
        note=(
            "whole process (with start-up) "
            f"{MS.show(Stats.of([run.process_cpu_s / run.calls for run in done]).median)} per call"
        ),
    )
    report.add(dataclasses.replace(cpu, met=cpu.ratio is not None and cpu.ratio < CPU_GOAL))
    report.add(
        Row(
            section=section,
            figure="bare httpx: CPU per call",
            stats=Stats.of([run.run_cpu_s / run.calls for run in bare]),
            unit=MS,
            baseline_name="one call",
            baseline=LATENCY_MS / 1000,
            note="the floor lobrec's HTTP client sets",
        )
    )


def _unsynced_rows(report: Report, suite: SuiteChoice, concurrency: int, done: list[LiveRun]) -> None:
    """The diagnostic: the same `lobrec record` with `os.fsync` a no-op."""
    calls = _calls(done, f"lobrec without fsync at concurrency {concurrency}")
    section = f"live c={concurrency}"
    note = "diagnostic: os.fsync made a no-op; the difference is what durable writes cost"
    report.add(
        Row(
            section=section,
            figure="lobrec record, no fsync: wall time",
            stats=Stats.of([run.run_s for run in done]),
            unit=SECONDS,
            baseline_name="bound",
            baseline=bound_s(suite.longest_chain, calls, concurrency),
            note=note,
        )
    )
    report.add(
        Row(
            section=section,
            figure="lobrec record, no fsync: CPU per call",
            stats=Stats.of([run.run_cpu_s / run.calls for run in done]),
            unit=MS,
            baseline_name="one call",
            baseline=LATENCY_MS / 1000,
            note=note,
        )
    )

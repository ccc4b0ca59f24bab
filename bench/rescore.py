"""Rescore: `lobrec rescore` over 10, 30 and 100 model directories, against a plain decode loop.

The model directories are synthesized: the suite is recorded once for a few fixture models (fake
gateway, no latency), then copied under new model names (`bench/model-000`, ...). A copy's request
bodies name its new model, since replay matches on the exact body; everything else is unchanged.
100 directories of the 80-case suite are 8,000 cassettes.

Both `lobrec rescore` and the baseline (`bench/_decode_child.py`, which reads and decodes the same
files into the same Structs) are timed as whole processes, each run in turn with the other.
`lobrec rescore` runs as a user runs it (`--jobs` defaults to the CPU count) and with `--jobs 1`.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from pathlib import Path

import msgspec

from bench._measure import (
    BENCH,
    MB,
    MS,
    SECONDS,
    VENV_BIN,
    Report,
    Row,
    Stats,
    SuiteChoice,
    check,
    run_process,
)
from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.layout import MANIFEST, model_dir_name
from lobrec.cassette.manifest import load_manifest
from lobrec.fakegateway import (
    EAGER,
    ORACLE,
    SILENT,
    SLOPPY,
    start_fake_gateway_process,
    stop_fake_gateway_process,
)

SIZES = (10, 30, 100)
SOURCES = (ORACLE, SLOPPY, EAGER, SILENT)
"""Fixture models recorded once and copied round-robin, so the copies pass, fail and stop early."""
TIME_GOAL = 5.0
MEMORY_GOAL_MB = 300.0
LINEARITY_TOLERANCE = 0.15
"""The middle size's time may be this far (relative) from the straight line through the ends."""


class _LoopFigures(msgspec.Struct):
    loop_s: float
    files: int


def record_sources(suite: SuiteChoice, workdir: Path) -> Path:
    """Record every source model once, against a fake gateway with no latency."""
    target = workdir / "sources"
    shutil.rmtree(target, ignore_errors=True)
    process, url = start_fake_gateway_process(suite.path)
    try:
        command = [str(VENV_BIN / "lobrec"), "record", "--base-url", url, "--suite", str(suite.path)]
        command += ["--cassettes", str(target), "--concurrency", "16"]
        for model in SOURCES:
            command += ["--model", model]
        check(run_process(command), "lobrec record (rescore sources)")
    finally:
        stop_fake_gateway_process(process)
    return target


def _copy_model(source: Path, target: Path, old: str, new: str) -> int:
    """Copy one model directory under a new model name; returns the number of cassettes."""
    target.mkdir(parents=True)
    manifest = load_manifest(source)
    manifest = msgspec.structs.replace(manifest, model=new)
    (target / MANIFEST).write_bytes(msgspec.json.encode(manifest))
    prefix_old = '{"model":' + msgspec.json.encode(old).decode()
    prefix_new = '{"model":' + msgspec.json.encode(new).decode()
    count = 0
    for path in sorted(source.glob("*.json")):
        if path.name == MANIFEST:
            continue
        cassette = load_cassette_file(path)
        for interaction in cassette.interactions:
            body = interaction.request.body or ""
            if not body.startswith(prefix_old):
                raise SystemExit(f"bench: {path}: a request body that does not start with {prefix_old}")
            interaction.request.body = prefix_new + body[len(prefix_old) :]
        (target / path.name).write_bytes(msgspec.json.encode(cassette))
        count += 1
    return count


def synthesize(sources: Path, sizes: tuple[int, ...], workdir: Path) -> dict[int, tuple[Path, int]]:
    """One tree per size; the smaller trees hard-link the first directories of the largest."""
    largest = workdir / f"models-{max(sizes)}"
    shutil.rmtree(largest, ignore_errors=True)
    cassettes_in: list[int] = []
    names: list[str] = []
    for index in range(max(sizes)):
        old = SOURCES[index % len(SOURCES)]
        new = f"bench/model-{index:03d}"
        names.append(model_dir_name(new))
        cassettes_in.append(_copy_model(sources / model_dir_name(old), largest / names[-1], old, new))
    trees = {max(sizes): (largest, sum(cassettes_in))}
    for size in sizes:
        if size == max(sizes):
            continue
        tree = workdir / f"models-{size}"
        shutil.rmtree(tree, ignore_errors=True)
        for name in names[:size]:
            (tree / name).mkdir(parents=True)
            for path in (largest / name).iterdir():
                os.link(path, tree / name / path.name)
        trees[size] = (tree, sum(cassettes_in[:size]))
    return trees


@dataclasses.dataclass(frozen=True, kw_only=True)
class SizeResult:
    models: int
    cassettes: int
    rescore_s: Stats
    rescore_mb: Stats
    one_job_s: Stats
    loop_process_s: Stats
    loop_s: Stats
    loop_mb: Stats


@dataclasses.dataclass(kw_only=True)
class _Samples:
    """What one tree's runs measured so far."""

    tree: Path
    models: int
    cassettes: int
    rescore_s: list[float] = dataclasses.field(default_factory=list)
    rescore_mb: list[float] = dataclasses.field(default_factory=list)
    one_job_s: list[float] = dataclasses.field(default_factory=list)
    loop_process_s: list[float] = dataclasses.field(default_factory=list)
    loop_s: list[float] = dataclasses.field(default_factory=list)
    loop_mb: list[float] = dataclasses.field(default_factory=list)

    def result(self) -> SizeResult:
        return SizeResult(
            models=self.models,
            cassettes=self.cassettes,
            rescore_s=Stats.of(self.rescore_s),
            rescore_mb=Stats.of(self.rescore_mb),
            one_job_s=Stats.of(self.one_job_s),
            loop_process_s=Stats.of(self.loop_process_s),
            loop_s=Stats.of(self.loop_s),
            loop_mb=Stats.of(self.loop_mb),
        )


def _rescore_command(suite: SuiteChoice, tree: Path, *jobs: str) -> list[str]:
    """`lobrec rescore` as a user runs it (jobs: the CPU count), or with `--jobs 1`."""
    return [str(VENV_BIN / "lobrec"), "rescore", str(tree), "--suite", str(suite.path), *jobs]


def measure_once(suite: SuiteChoice, samples: _Samples, workdir: Path) -> None:
    """One `lobrec rescore` and one decode loop over the same tree, one after the other."""
    what = f"lobrec rescore ({samples.models} models)"
    run = check(run_process(_rescore_command(suite, samples.tree)), what)
    samples.rescore_s.append(run.wall_s)
    samples.rescore_mb.append(run.max_rss_mb)
    one_job = check(run_process(_rescore_command(suite, samples.tree, "--jobs", "1")), f"{what}, one job")
    samples.one_job_s.append(one_job.wall_s)
    figures_path = workdir / "decode.json"
    loop_command = [sys.executable, str(BENCH / "_decode_child.py"), str(samples.tree), str(figures_path)]
    loop = check(run_process(loop_command), "the decode loop")
    figures = msgspec.json.decode(figures_path.read_bytes(), type=_LoopFigures)
    expected = samples.cassettes + samples.models
    if figures.files != expected:
        raise SystemExit(f"bench: the decode loop read {figures.files} files, expected {expected}")
    samples.loop_process_s.append(loop.wall_s)
    samples.loop_mb.append(loop.max_rss_mb)
    samples.loop_s.append(figures.loop_s)


def bench(report: Report, suite: SuiteChoice, sizes: tuple[int, ...], runs: int, workdir: Path) -> None:
    """Each round runs every size once (smallest first), so a slow spell of the machine falls on all
    sizes alike and does not bend the growth line."""
    sources = record_sources(suite, workdir)
    trees = synthesize(sources, sizes, workdir)
    samples = [_Samples(tree=trees[size][0], models=size, cassettes=trees[size][1]) for size in sorted(sizes)]
    for each in samples:  # warm the file cache and the bytecode caches
        check(run_process(_rescore_command(suite, each.tree)), f"lobrec rescore ({each.models} models)")
    for _ in range(runs):
        for each in samples:
            measure_once(suite, each, workdir)
    results = [each.result() for each in samples]
    largest = results[-1]
    for result in results:
        section = f"rescore {result.models} models"
        is_goal = result is largest
        time_row = Row(
            section=section,
            figure=f"lobrec rescore, {result.cassettes:,} cassettes",
            stats=result.rescore_s,
            unit=SECONDS,
            baseline_name="decode loop",
            baseline=result.loop_process_s.median,
            goal=f"≤ {TIME_GOAL:.0f}x" if is_goal else "",
            note=(
                f"decode loop alone (no start-up) {MS.show(result.loop_s.median)}; "
                f"loop process min {SECONDS.show(result.loop_process_s.min)} "
                f"max {SECONDS.show(result.loop_process_s.max)}"
            ),
        )
        if is_goal:
            time_row = dataclasses.replace(
                time_row, met=time_row.ratio is not None and time_row.ratio <= TIME_GOAL
            )
        report.add(time_row)
        report.add(
            Row(
                section=section,
                figure=f"lobrec rescore --jobs 1, {result.cassettes:,} cassettes",
                stats=result.one_job_s,
                unit=SECONDS,
                baseline_name="decode loop",
                baseline=result.loop_process_s.median,
                note=f"one process; the row above spreads folders over {os.cpu_count()} (the --jobs default)",
            )
        )
        report.add(
            Row(
                section=section,
                figure="lobrec rescore peak memory",
                stats=result.rescore_mb,
                unit=MB,
                baseline_name="decode loop",
                baseline=result.loop_mb.median,
                goal=f"< {MEMORY_GOAL_MB:.0f} MB",
                met=result.rescore_mb.max < MEMORY_GOAL_MB,
                note="max RSS of the largest process (the parent or one worker)",
            )
        )
    if len(results) >= 3:
        _linearity(report, results)


def _linearity(report: Report, results: list[SizeResult]) -> None:
    """Per-cassette cost from the smallest to the largest size, and how straight the line is."""
    small, middle, large = results[0], results[len(results) // 2], results[-1]
    extra = large.cassettes - small.cassettes

    def slope(pick) -> float:
        return (pick(large) - pick(small)) / extra

    def off_line(pick) -> float:
        expected = pick(small) + slope(pick) * (middle.cassettes - small.cassettes)
        return abs(pick(middle) - expected) / pick(middle)

    rescore_slope = slope(lambda r: r.rescore_s.median)
    loop_slope = slope(lambda r: r.loop_process_s.median)
    deviation = off_line(lambda r: r.rescore_s.median)
    per_cassette = Stats.of([rescore_slope])
    report.add(
        Row(
            section="rescore growth",
            figure=f"time per extra cassette ({small.models}→{large.models} models)",
            stats=per_cassette,
            unit=dataclasses.replace(MS, digits=3),
            baseline_name="decode loop",
            baseline=loop_slope,
            goal=f"linear (±{LINEARITY_TOLERANCE:.0%})",
            met=deviation <= LINEARITY_TOLERANCE,
            note=(
                f"{middle.models} models is {deviation:.1%} off the straight line; "
                f"memory per extra cassette "
                f"{(large.rescore_mb.median - small.rescore_mb.median) / extra * 1024:.1f} KB"
            ),
        )
    )

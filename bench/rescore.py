"""Rescore: `lobrec rescore` from 10 to 1,000 model folders, against a plain decode loop.

The model folders are the committed fixture models copied under new names (`bench/models.py`:
`bench/model-0000`, ...), round-robin, so the copies pass, fail, flip between repeated runs and
route as the fixtures do; 100 folders are about 9,700 files. They are judged with the bundled
suite, as the fixtures are.

Both `lobrec rescore` and the baseline (`bench/_decode_child.py`, which reads and decodes the same
files into the same Structs) are timed as whole processes, each run in turn with the other.
`lobrec rescore` runs as a user runs it (`--jobs` defaults to the CPU count) and, up to 100
models, with `--jobs 1`. The largest sizes are measured fewer times: they take the longest and
vary the least.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec

from bench._measure import BENCH, MB, MS, SECONDS, VENV_BIN, Report, Row, Stats, check, run_process
from bench.models import copy_models, link_prefix

SIZES = (10, 30, 100, 300, 1000)
QUICK_SIZES = (2, 3, 5)
TIME_GOAL = 5.0
TIME_GOAL_AT = 100
MEMORY_GOAL_MB = 300.0
MEMORY_GOAL_AT = 300
LINEARITY_TOLERANCE = 0.15
"""Each middle size's time may be this far (relative) from the straight line through the ends."""
PER_MODEL_GOAL = 1.3
"""Time per model at 300 models over time per model at 30."""
ONE_JOB_UP_TO = 100
"""`--jobs 1` is measured up to this many models (above, it is the row above's time times the CPUs)."""


def runs_for(models: int, runs: int) -> int:
    """How many times a size is measured: every round up to 100 models, fewer above."""
    if models <= 100:
        return runs
    return max(1, runs // (3 if models <= 300 else 4))


class _LoopFigures(msgspec.Struct):
    loop_s: float
    files: int


def synthesize(sizes: tuple[int, ...], workdir: Path) -> dict[int, tuple[Path, int]]:
    """One tree per size; the smaller trees hard-link the first folders of the largest."""
    largest = workdir / f"models-{max(sizes)}"
    copy_models(max(sizes), largest)
    trees = {}
    for size in sizes:
        tree = largest if size == max(sizes) else workdir / f"models-{size}"
        if tree != largest:
            link_prefix(largest, size, tree)
        files = sum(1 for path in tree.rglob("*.json") if path.name != "manifest.json")
        trees[size] = (tree, files)
    return trees


@dataclasses.dataclass(frozen=True, kw_only=True)
class SizeResult:
    models: int
    cassettes: int
    rescore_s: Stats
    rescore_mb: Stats
    one_job_s: Stats | None
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
            one_job_s=Stats.of(self.one_job_s) if self.one_job_s else None,
            loop_process_s=Stats.of(self.loop_process_s),
            loop_s=Stats.of(self.loop_s),
            loop_mb=Stats.of(self.loop_mb),
        )


def _rescore_command(tree: Path, *jobs: str) -> list[str]:
    """`lobrec rescore` as a user runs it (jobs: the CPU count), or with `--jobs 1`."""
    return [str(VENV_BIN / "lobrec"), "rescore", str(tree), *jobs]


def measure_once(samples: _Samples, workdir: Path) -> None:
    """One `lobrec rescore` and one decode loop over the same tree, one after the other."""
    what = f"lobrec rescore ({samples.models} models)"
    run = check(run_process(_rescore_command(samples.tree)), what)
    samples.rescore_s.append(run.wall_s)
    samples.rescore_mb.append(run.max_rss_mb)
    if samples.models <= ONE_JOB_UP_TO:
        one_job = check(run_process(_rescore_command(samples.tree, "--jobs", "1")), f"{what}, one job")
        samples.one_job_s.append(one_job.wall_s)
    figures_path = workdir / "decode.json"
    loop_command = [sys.executable, str(BENCH / "_decode_child.py"), str(samples.tree), str(figures_path)]
    loop = check(run_process(loop_command), "the decode loop")
    figures = msgspec.json.decode(figures_path.read_bytes(), type=_LoopFigures)
    expected = sum(1 for _ in samples.tree.rglob("*.json"))
    if figures.files != expected:
        raise SystemExit(f"bench: the decode loop read {figures.files} files, expected {expected}")
    samples.loop_process_s.append(loop.wall_s)
    samples.loop_mb.append(loop.max_rss_mb)
    samples.loop_s.append(figures.loop_s)


def bench(report: Report, sizes: tuple[int, ...], runs: int, workdir: Path) -> None:
    """Each round runs every size once (smallest first), so a slow spell of the machine falls on all
    sizes alike and does not bend the growth line; the largest sizes sit out some rounds."""
    trees = synthesize(sizes, workdir)
    samples = [_Samples(tree=trees[size][0], models=size, cassettes=trees[size][1]) for size in sorted(sizes)]
    for each in samples:  # warm the file cache and the bytecode caches
        check(run_process(_rescore_command(each.tree)), f"lobrec rescore ({each.models} models)")
    for round_number in range(runs):
        for each in samples:
            if round_number < runs_for(each.models, runs):
                measure_once(each, workdir)
    results = [each.result() for each in samples]
    for result in results:
        _size_rows(report, result, time_goal=result.models == TIME_GOAL_AT)
    if len(results) >= 3:
        _linearity(report, results)
    _per_model(report, results)


def _time_row(result: SizeResult, figure: str, stats: Stats, note: str) -> Row:
    """A rescore time of one size against the decode loop over the same tree."""
    return Row(
        section=f"rescore {result.models} models",
        figure=f"{figure}, {result.cassettes:,} cassettes",
        stats=stats,
        unit=SECONDS,
        baseline_name="decode loop",
        baseline=result.loop_process_s.median,
        note=note,
    )


def _size_rows(report: Report, result: SizeResult, *, time_goal: bool) -> None:
    section = f"rescore {result.models} models"
    loop = result.loop_process_s
    time_row = _time_row(
        result,
        "lobrec rescore",
        result.rescore_s,
        f"decode loop alone (no start-up) {MS.show(result.loop_s.median)}; loop process min "
        f"{SECONDS.show(loop.min)} max {SECONDS.show(loop.max)}; {len(result.rescore_s.values)} runs",
    )
    if time_goal:
        met = time_row.ratio is not None and time_row.ratio <= TIME_GOAL
        time_row = dataclasses.replace(time_row, goal=f"≤ {TIME_GOAL:.0f}x", met=met)
    report.add(time_row)
    if result.one_job_s is not None:
        note = f"one process; the row above spreads folders over {os.cpu_count()} (the --jobs default)"
        report.add(_time_row(result, "lobrec rescore --jobs 1", result.one_job_s, note))
    memory_goal = result.models == MEMORY_GOAL_AT
    report.add(
        Row(
            section=section,
            figure="lobrec rescore peak memory",
            stats=result.rescore_mb,
            unit=MB,
            baseline_name="decode loop",
            baseline=result.loop_mb.median,
            goal=f"< {MEMORY_GOAL_MB:.0f} MB" if memory_goal else "",
            met=result.rescore_mb.max < MEMORY_GOAL_MB if memory_goal else None,
            note="max RSS of the largest process (the parent or one worker)",
        )
    )


def _linearity(report: Report, results: list[SizeResult]) -> None:
    """Per-cassette cost from the smallest to the largest size, and how straight the line is: every
    middle size's time against the straight line through the two ends."""
    small, large = results[0], results[-1]
    extra = large.cassettes - small.cassettes

    def slope(pick: Callable[[SizeResult], float]) -> float:
        return (pick(large) - pick(small)) / extra

    def off_line(middle: SizeResult) -> float:
        expected = small.rescore_s.median + slope(lambda r: r.rescore_s.median) * (
            middle.cassettes - small.cassettes
        )
        return (middle.rescore_s.median - expected) / middle.rescore_s.median

    deviations = {middle.models: off_line(middle) for middle in results[1:-1]}
    worst = max(abs(value) for value in deviations.values())
    shown = ", ".join(f"{models} models {value:+.1%}" for models, value in deviations.items())
    report.add(
        Row(
            section="rescore growth",
            figure=f"time per extra cassette ({small.models}→{large.models} models)",
            stats=Stats.of([slope(lambda r: r.rescore_s.median)]),
            unit=dataclasses.replace(MS, digits=3),
            baseline_name="decode loop",
            baseline=slope(lambda r: r.loop_process_s.median),
            goal=f"linear (±{LINEARITY_TOLERANCE:.0%})",
            met=worst <= LINEARITY_TOLERANCE,
            note=(
                f"off the straight line: {shown}; memory per extra cassette "
                f"{(large.rescore_mb.median - small.rescore_mb.median) / extra * 1024:.1f} KB"
            ),
        )
    )


def _per_model(report: Report, results: list[SizeResult]) -> None:
    """Time per model at 300 models against time per model at 30 (each with its start-up)."""
    by_size = {result.models: result for result in results}
    small, large = by_size.get(30), by_size.get(300)
    if small is None or large is None:
        return
    per_small, per_large = small.rescore_s.median / small.models, large.rescore_s.median / large.models
    report.add(
        Row(
            section="rescore growth",
            figure="time per model at 300 models",
            stats=Stats.of([value / large.models for value in large.rescore_s.values]),
            unit=MS,
            baseline_name="per model at 30",
            baseline=per_small,
            goal=f"≤ {PER_MODEL_GOAL}x",
            met=per_large <= PER_MODEL_GOAL * per_small,
            note="whole process (start-up included) over the models",
        )
    )

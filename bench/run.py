"""`make bench`: every benchmark, one table on the terminal, the same table in bench/results.md.

Usage: `python -m bench.run [--quick] [--only live,rescore,tiers,scale,startup,html]`.

`--quick` is the smoke mode CI runs: every benchmark on tiny inputs (the 5-case suite, a few model
folders, one run each), in well under a minute. It exits non-zero when a benchmark breaks (a
command fails, a figure cannot be measured); it prints the table but holds no figure to a goal
and does not write bench/results.md: timings on tiny inputs on a shared machine mean nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import time
from pathlib import Path

from bench import html, live, rescore, scale, startup, tiers
from bench._measure import BENCH, Report, machine, pick_suite

ALL = ("live", "rescore", "tiers", "scale", "startup", "html")
RESULTS = BENCH / "results.md"
WORKDIR = BENCH / ".work"
"""Recordings and synthesized cassettes (git-ignored); kept after the run for profiling."""


def _as_installed() -> str:
    """Compile lobrec's bytecode, as pip does when it installs a wheel. An editable install under
    PYTHONDONTWRITEBYTECODE (set on some machines, this one included) would otherwise compile every
    module of lobrec at every start, and the start-up and rescore figures would time the compiler."""
    import compileall

    import lobrec

    compileall.compile_dir(Path(lobrec.__file__).parent, quiet=1)
    return "lobrec's modules compiled before measuring, as a wheel install has them"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke mode: tiny inputs, once; results.md not written",
    )
    parser.add_argument("--only", default=",".join(ALL), help="comma-separated benchmarks to run")
    options = parser.parse_args()
    only = {name.strip() for name in options.only.split(",") if name.strip()}
    quick = options.quick

    report = Report()
    report.fact("Measured", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") + f" on {machine()}")
    report.fact("Bytecode", _as_installed())
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    shutil.rmtree(WORKDIR, ignore_errors=True)
    WORKDIR.mkdir(parents=True)
    suite = pick_suite(WORKDIR, small=quick)
    report.fact("Suite", suite.description)
    if "live" in only:
        runs = {1: 1, 4: 1, 16: 1, 64: 1} if quick else {1: 3, 4: 5, 16: 7, 64: 7}
        report.fact(
            "Live runs",
            f"fake gateway at {live.LATENCY_MS} ms, model fixture/oracle; runs per concurrency {runs}",
        )
        live.bench(report, suite, runs, WORKDIR)
    if "rescore" in only:
        sizes = rescore.QUICK_SIZES if quick else rescore.SIZES
        runs_rescore = 1 if quick else 5
        counts = {size: rescore.runs_for(size, runs_rescore) for size in sizes}
        report.fact(
            "Rescore runs",
            f"per size in model folders (copies of the fixture models, bundled suite): {counts}",
        )
        rescore.bench(report, sizes, runs_rescore, WORKDIR)
    if "tiers" in only:
        sizes = tiers.QUICK_SIZES if quick else tiers.SIZES
        runs_tiers = 1 if quick else 5
        report.fact("Tiers runs", f"{runs_tiers} per size; sizes in models {list(sizes)}")
        tiers.bench(report, sizes, runs_tiers)
    if "scale" in only:
        models = 2 if quick else scale.MODELS
        runs_scale = 1 if quick else 2
        report.fact(
            "Scale runs",
            f"{runs_scale} per mode; {models} models, fake gateway at {scale.LATENCY_MS} ms and "
            f"{scale.RATE:g} req/s, --concurrency {scale.CONCURRENCY}",
        )
        scale.bench(report, suite, runs_scale, WORKDIR, models)
    if "startup" in only:
        runs_startup = 3 if quick else 21
        report.fact("Start-up runs", f"{runs_startup} per command")
        startup.bench(report, runs_startup)
    if "html" in only:
        runs_html = 1 if quick else html.RUNS
        sizes = (2, 3) if quick else html.SIZES
        report.fact("HTML runs", f"{runs_html} per size; sizes in models (3 runs each) {list(sizes)}")
        html.bench(report, WORKDIR, runs_html, sizes)
    report.fact("Benchmark time", f"{time.perf_counter() - started:.0f} s")
    report.fact(
        "Load average (1 min)",
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after (this benchmark alone adds about 1; "
        "more means other work shared the machine, and the figures are noisier)",
    )
    report.print_rich()
    if quick or only != set(ALL):
        print(f"(partial or --quick run: {RESULTS.relative_to(BENCH.parent)} left as it was)")
        return
    RESULTS.write_text(report.markdown(), encoding="utf-8")
    print(f"written: {RESULTS.relative_to(BENCH.parent)}")


if __name__ == "__main__":
    main()

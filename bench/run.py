"""`make bench`: every benchmark, one table on the terminal, the same table in bench/results.md.

Usage: `python -m bench.run [--quick] [--only live,rescore,scale,startup,html]`. `--quick` takes fewer runs
and fewer model directories (for trying the scripts, not for figures worth keeping: it does not
write bench/results.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import time

from bench import html, live, rescore, scale, startup
from bench._measure import BENCH, Report, machine, pick_suite

RESULTS = BENCH / "results.md"
WORKDIR = BENCH / ".work"
"""Recordings and synthesized cassettes (git-ignored); kept after the run for profiling."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs; bench/results.md is not written")
    parser.add_argument(
        "--only", default="live,rescore,scale,startup,html", help="comma-separated benchmarks to run"
    )
    options = parser.parse_args()
    only = {name.strip() for name in options.only.split(",") if name.strip()}
    quick = options.quick

    report = Report()
    report.fact("Measured", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") + f" on {machine()}")
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    shutil.rmtree(WORKDIR, ignore_errors=True)
    WORKDIR.mkdir(parents=True)
    suite = pick_suite(WORKDIR)
    report.fact("Suite", suite.description)
    if "live" in only:
        runs = {1: 1, 4: 2, 16: 2, 64: 2} if quick else {1: 3, 4: 5, 16: 7, 64: 7}
        report.fact(
            "Live runs",
            f"fake gateway at {live.LATENCY_MS} ms, model fixture/oracle; runs per concurrency {runs}",
        )
        live.bench(report, suite, runs, WORKDIR)
    if "rescore" in only:
        sizes = (2, 5) if quick else rescore.SIZES
        runs_rescore = 2 if quick else 7
        report.fact("Rescore runs", f"{runs_rescore} per size; sizes in model directories {list(sizes)}")
        rescore.bench(report, suite, sizes, runs_rescore, WORKDIR)
    if "scale" in only:
        models = 4 if quick else scale.MODELS
        runs_scale = 1 if quick else 2
        report.fact(
            "Scale runs",
            f"{runs_scale} per mode; {models} models, fake gateway at {scale.LATENCY_MS} ms and "
            f"{scale.RATE:g} req/s, --concurrency {scale.CONCURRENCY}",
        )
        scale.bench(report, suite, runs_scale, WORKDIR, models)
    if "startup" in only:
        runs_startup = 5 if quick else 21
        report.fact("Start-up runs", f"{runs_startup} per command")
        startup.bench(report, runs_startup)
    if "html" in only:
        runs_html = 1 if quick else html.RUNS
        report.fact("HTML runs", f"{runs_html} per size; sizes in models (3 runs each) {list(html.SIZES)}")
        html.bench(report, WORKDIR, runs_html)
    report.fact("Benchmark time", f"{time.perf_counter() - started:.0f} s")
    report.fact(
        "Load average (1 min)",
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after (this benchmark alone adds about 1; "
        "more means other work shared the machine, and the figures are noisier)",
    )
    report.print_rich()
    if quick or only != {"live", "rescore", "scale", "startup", "html"}:
        print(f"(partial or --quick run: {RESULTS.relative_to(BENCH.parent)} left as it was)")
        return
    RESULTS.write_text(report.markdown(), encoding="utf-8")
    print(f"written: {RESULTS.relative_to(BENCH.parent)}")


if __name__ == "__main__":
    main()

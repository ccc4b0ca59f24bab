"""The HTML report at leaderboard scale: 7 and 100 models, each recorded three times, in one run.

The runs are built from the committed fixtures' results (`tests/support/scale_results.py`: `MODEL@NN`
copies, as the fake gateway's labelled copies answer), not recorded. For each size: the page's
bytes, the time `render_html` takes, and the time headless Chromium takes from navigation to the
load event with the page laid out (`performance.now()`, read back from the page's title), so
Chromium's own start-up is not counted. The 7-model page is the baseline of the ratios. Goals
(issue 26): under 10 MB and under 2 s at 100 models.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from bench._measure import SECONDS, Report, Row, Stats, Unit
from lobrec.reports.html import render_html
from tests.support.scale_results import leaderboard_run

SIZES = (7, 100)
RUNS = 3
SIZE_GOAL_MB = 10.0
RENDER_GOAL_S = 2.0
MEGABYTES = Unit(name="MB", digits=2)
_PROBE = (
    '<script>window.addEventListener("load", function () { document.body.offsetHeight;'
    ' setTimeout(function () { document.title = "rendered " + performance.now().toFixed(0); }, 0); });'
    "</script>"
)
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def _browser_seconds(chromium: str, page: Path, profile: Path) -> float:
    done = subprocess.run(
        [chromium, *_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True,
        timeout=300,
        check=True,
    )
    found = re.search(rb"<title>rendered (\d+)</title>", done.stdout)
    if found is None:
        raise RuntimeError(f"{page}: the page did not report its load time")
    return int(found.group(1)) / 1000


def _row(
    figure: str, stats: Stats, unit: Unit, baseline: float | None, goal: float | None, smallest: int
) -> Row:
    return Row(
        section="html",
        figure=figure,
        stats=stats,
        unit=unit,
        baseline_name="" if baseline is None else f"{smallest} models",
        baseline=baseline,
        goal="" if goal is None else f"< {unit.show(goal)}",
        met=None if goal is None else stats.median < goal,
    )


def bench(report: Report, workdir: Path, runs: int = RUNS, sizes: tuple[int, ...] = SIZES) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        report.fact("HTML in Chromium", "not measured: chromium is not installed")
    first: dict[str, float] = {}
    for models in sizes:
        run, suite = leaderboard_run(models, 3)
        renders = []
        for _ in range(runs):
            started = time.perf_counter()
            page = render_html(run, suite)
            renders.append(time.perf_counter() - started)
        path = workdir / f"report-{models}.html"
        path.write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
        figures = {
            "page size": (Stats.of([len(page.encode("utf-8")) / 1e6]), MEGABYTES, SIZE_GOAL_MB),
            "render_html": (Stats.of(renders), SECONDS, None),
        }
        if chromium is not None:
            seconds = [_browser_seconds(chromium, path, workdir / "chromium-profile") for _ in range(runs)]
            figures["Chromium load"] = (Stats.of(seconds), SECONDS, RENDER_GOAL_S)
        for name, (stats, unit, goal) in figures.items():
            baseline = first.get(name)
            report.add(
                _row(
                    f"{models} models x 3 runs: {name}",
                    stats,
                    unit,
                    baseline,
                    goal if baseline else None,
                    sizes[0],
                )
            )
            first.setdefault(name, stats.median)

"""Start-up: `lobrec --version` and `lobrec --help` as whole processes, against `import typer`.

The baseline is the least any typer CLI can cost: an interpreter that imports typer and exits. The
three commands are run in turn (not one after the other in blocks) so that a slow moment of the
machine falls on all of them alike.
"""

from __future__ import annotations

import dataclasses

from bench._measure import MS, VENV_BIN, Report, Row, Stats, check, run_process

GOAL = 1.5
BASELINE = "import typer"


def commands() -> dict[str, list[str]]:
    lobrec = str(VENV_BIN / "lobrec")
    return {
        BASELINE: [str(VENV_BIN / "python"), "-c", "import typer"],
        "lobrec --version": [lobrec, "--version"],
        "lobrec --help": [lobrec, "--help"],
    }


def measure(runs: int) -> dict[str, Stats]:
    todo = commands()
    for command in todo.values():  # warm the file cache and the bytecode caches
        check(run_process(command), " ".join(command))
    samples: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(runs):
        for name, command in todo.items():
            samples[name].append(check(run_process(command), name).wall_s)
    return {name: Stats.of(values) for name, values in samples.items()}


def bench(report: Report, runs: int) -> None:
    stats = measure(runs)
    baseline = stats[BASELINE].median
    report.add(Row(section="start-up", figure=f"python -c '{BASELINE}'", stats=stats[BASELINE], unit=MS))
    for name in ("lobrec --version", "lobrec --help"):
        row = Row(
            section="start-up",
            figure=name,
            stats=stats[name],
            unit=MS,
            baseline_name=BASELINE,
            baseline=baseline,
            goal=f"≤ {GOAL}x",
        )
        report.add(dataclasses.replace(row, met=row.ratio is not None and row.ratio <= GOAL))

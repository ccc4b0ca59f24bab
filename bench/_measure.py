"""Shared measuring helpers: run a child process and read its own rusage, summarise samples, draw tables.

Every figure is a median over several runs, shown with its min and max, and set against a baseline
measured in the same run on the same machine, so the ratio means something on any machine.

A child's CPU time and peak memory come from `os.wait4`, which returns the rusage of that one child
(`getrusage(RUSAGE_CHILDREN)` would give the largest peak of every child ever waited for).
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
VENV_BIN = Path(sys.executable).parent

DROPPED_ENV = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "PYTHONDONTWRITEBYTECODE",
)


def child_env() -> dict[str, str]:
    """The environment for children: no proxies (loopback is reached directly), no gateway key, and
    bytecode caching on, as in any installed copy (else lobrec's own modules, unlike typer's,
    would be compiled again by every process the start-up benchmark times)."""
    return {
        name: value
        for name, value in os.environ.items()
        if name.upper() not in DROPPED_ENV and not name.upper().startswith("LOBSTACK_")
    }


@dataclass(frozen=True, kw_only=True)
class ProcessRun:
    """One finished child process: wall time from spawn to reaped, its own CPU and peak memory."""

    wall_s: float
    user_s: float
    sys_s: float
    max_rss_mb: float
    returncode: int
    stdout: str
    stderr: str

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s


def run_process(
    command: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> ProcessRun:
    """Run `command` to completion; stdout and stderr go to temporary files (never a full pipe)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=dict(env) if env is not None else child_env(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ProcessRun(
            wall_s=wall,
            user_s=usage.ru_utime,
            sys_s=usage.ru_stime,
            max_rss_mb=usage.ru_maxrss / 1024,  # kilobytes on Linux
            returncode=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def check(run: ProcessRun, what: str) -> ProcessRun:
    """Stop the benchmark when a measured command failed: its figures would mean nothing."""
    if run.returncode != 0:
        raise SystemExit(f"bench: {what} exited {run.returncode}:\n{run.stderr[-2000:]}")
    return run


@dataclass(frozen=True)
class Stats:
    """Median, min and max of several runs."""

    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Stats:
        if not values:
            raise ValueError("no samples")
        return cls(tuple(values))

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def max(self) -> float:
        return max(self.values)


@dataclass(frozen=True, kw_only=True)
class Unit:
    """How to show a figure: seconds as ms or s, megabytes, counts."""

    name: str
    scale: float = 1.0
    digits: int = 1

    def show(self, value: float) -> str:
        return f"{value * self.scale:,.{self.digits}f} {self.name}".rstrip()


MS = Unit(name="ms", scale=1000.0, digits=1)
SECONDS = Unit(name="s", digits=2)
MB = Unit(name="MB", digits=0)


@dataclass(frozen=True, kw_only=True)
class Row:
    """One line of the results table."""

    section: str
    figure: str
    stats: Stats
    unit: Unit
    baseline_name: str = ""
    baseline: float | None = None
    goal: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.stats.median / self.baseline

    def cells(self) -> list[str]:
        ratio = self.ratio
        baseline = (
            f"{self.baseline_name} {self.unit.show(self.baseline)}" if self.baseline is not None else ""
        )
        met = {True: "yes", False: "NO", None: ""}[self.met]
        return [
            self.section,
            self.figure,
            self.unit.show(self.stats.median),
            self.unit.show(self.stats.min),
            self.unit.show(self.stats.max),
            baseline.strip(),
            "" if ratio is None else _ratio(ratio),
            self.goal,
            met,
            self.note,
        ]


def _ratio(value: float) -> str:
    if value < 0.1:
        return f"{value * 100:.2f}%"
    return f"{value:.2f}x"


HEADERS = ["Benchmark", "Figure", "Median", "Min", "Max", "Baseline (median)", "Ratio", "Goal", "Met", "Note"]


@dataclass(kw_only=True)
class Report:
    """Rows gathered by every benchmark, and facts about the run printed above the table."""

    facts: list[tuple[str, str]] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)

    def fact(self, name: str, value: str) -> None:
        self.facts.append((name, value))

    def add(self, row: Row) -> None:
        self.rows.append(row)

    def print_rich(self) -> None:
        from rich.console import Console
        from rich.table import Table

        console = Console(width=200)
        for name, value in self.facts:
            console.print(f"[bold]{name}[/bold]: {value}", highlight=False)
        table = Table(title="lobrec benchmarks", show_lines=False)
        for header in HEADERS:
            table.add_column(
                header, justify="right" if header in ("Median", "Min", "Max", "Ratio") else "left"
            )
        for row in self.rows:
            cells = row.cells()
            if row.met is False:
                cells[8] = f"[bold red]{cells[8]}[/bold red]"
            table.add_row(*cells)
        console.print(table)

    def markdown(self) -> str:
        lines = [
            "# lobrec benchmark results",
            "",
            "Written by `make bench` (`bench/run.py`); do not edit.",
            "",
        ]
        lines += [f"- **{name}**: {value}" for name, value in self.facts]
        lines += ["", "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        for row in self.rows:
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row.cells()) + " |")
        return "\n".join(lines) + "\n"


def machine() -> str:
    """A one-line description of where the figures were measured."""
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({sys.executable})"
    )


# --- the suite -------------------------------------------------------------------------------------

REAL_SUITE = ROOT / "suite" / "suite.json"
REAL_SUITE_CASES = 80


@dataclass(frozen=True, kw_only=True)
class SuiteChoice:
    path: Path
    description: str
    longest_chain: int
    cases: int


def pick_suite(workdir: Path, *, small: bool = False) -> SuiteChoice:
    """`suite/suite.json` when it decodes with 80 cases; else (or when `small`, for `--quick`) the e2e
    tests' 5-case suite, saying why."""
    from lobrec.core.suite.format import Suite, encode_suite
    from lobrec.errors import LobrecError
    from lobrec.suite_file import load_suite

    reason = "suite/suite.json does not exist yet"
    if REAL_SUITE.is_file() and not small:
        try:
            suite: Suite = load_suite(REAL_SUITE)
        except LobrecError as exc:
            reason = f"suite/suite.json does not load ({exc})"
        else:
            if len(suite.cases) == REAL_SUITE_CASES:
                return _choice(REAL_SUITE, suite, f"suite/suite.json ({suite.name} {suite.version})")
            reason = f"suite/suite.json has {len(suite.cases)} cases, not {REAL_SUITE_CASES}"
    sys.path.insert(0, str(ROOT))
    from tests.support.gateway import build_small_suite

    suite = build_small_suite()
    path = workdir / "small-suite.json"
    path.write_bytes(encode_suite(suite))
    if small:
        return _choice(path, suite, "the 5-case suite of tests/support/gateway.py (--quick)")
    return _choice(path, suite, f"FALLBACK: the 5-case suite of tests/support/gateway.py, because {reason}")


def _choice(path: Path, suite: object, description: str) -> SuiteChoice:
    cases = suite.cases  # type: ignore[attr-defined]
    return SuiteChoice(
        path=path,
        description=f"{description}: {len(cases)} cases",
        longest_chain=max(len(case.steps) for case in cases),
        cases=len(cases),
    )

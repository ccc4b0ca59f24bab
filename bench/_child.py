"""What the benchmark's child processes share: import first, then time, then report as JSON.

A child is told which modules a previous run of the same command imported (`--preload FILE`) and
imports them before its clock starts, so that the figures it reports are the command's run, not
the interpreter's start-up or imports (the start-up benchmark measures those; the parent still
times the whole process). It writes its figures and `sys.modules` (in import order) to OUT.json.
"""

from __future__ import annotations

import importlib
import resource
import sys
import time
from pathlib import Path
from typing import Any

import msgspec


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def preload(modules_file: str) -> None:
    """Import every module a previous run imported, in the same order; one that will not import is
    skipped. Private top-level modules (`_asyncio`, ...) are left to the packages that import them:
    importing `_asyncio` before `asyncio` leaves two task registries and `current_task()` None."""
    if modules_file == "-":
        return
    for name in Path(modules_file).read_text(encoding="utf-8").split():
        if name.startswith("_") or name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # a module private to an interpreter or platform; the run imports it anyway
            continue


class Clock:
    """Wall and CPU time from construction to `figures()`."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.start_cpu = cpu_s()

    def figures(self) -> dict[str, float]:
        return {"run_s": time.perf_counter() - self.start, "run_cpu_s": cpu_s() - self.start_cpu}


def write(out: str, figures: dict[str, Any]) -> None:
    figures = {**figures, "modules": list(sys.modules)}
    Path(out).write_bytes(msgspec.json.encode(figures))

"""Run `lobrec record` in this process, timing the command apart from start-up.

Usage: `python bench/_record_child.py OUT.json MODULES-FILE|- lobrec-record-arguments...`

The live benchmark wants the CPU lobrec spends per recorded call, and the wall time of the run to
set against the latency bound. This child imports what a previous run imported (see `_child.py`),
starts its clock, and runs the real command (`lobrec.cli.app`, exactly as the `lobrec` script does):
argument parsing, loading the suite, the run, the cassettes, the final report.

With `LOBREC_BENCH_NO_FSYNC=1` in the environment, `os.fsync` does nothing: a diagnostic that
shows, in the same run, what lobrec's durable writes (two fsyncs per case) cost.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._child import Clock, preload, write


def main() -> None:
    out, modules, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    preload(modules)
    from lobrec.cli import app

    if os.environ.get("LOBREC_BENCH_NO_FSYNC") == "1":
        os.fsync = lambda fd: None

    clock = Clock()
    code = 0
    try:
        app(args=["record", *args], prog_name="lobrec")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    write(out, {**clock.figures(), "exit_code": code})
    sys.exit(code)


if __name__ == "__main__":
    main()

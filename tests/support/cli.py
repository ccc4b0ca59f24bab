"""Run the `lobrec` command the way a test needs it: in this process by default, as a process on request.

Starting a Python process costs 0.2-0.5 s before lobrec does anything, and most tests that run the
command are about what it prints and the code it exits with, not about being a process. So
`run_lobrec` calls the typer app in this process, with its own stdin/stdout/stderr (byte buffers
with a UTF-8 text layer, not a terminal, as a captured process has), its own environment and its
own working folder, and hands back a `subprocess.CompletedProcess` like `subprocess.run` would. An
exception that escapes the app is written to stderr as the interpreter would write it, with exit
code 1, so a test that asserts "no traceback" still sees one.

`process=True` starts the installed `lobrec` script instead: for what only a process has (signals,
a terminal's or a pipe's encoding, the console script itself, output piped to another program).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

LOBREC = Path(sys.executable).with_name("lobrec")

_HIDDEN = ("LOBSTACK_API_KEY", "LOBSTACK_BASE_URL")


def cli_env(**extra: str) -> dict[str, str]:
    """A clean environment for `lobrec`: no proxies, no key or base URL unless given, wide output."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.upper().endswith("_PROXY") and name not in _HIDDEN
    }
    env.update({"COLUMNS": "200", "PYTHONUNBUFFERED": "1", **extra})
    return env


def run_lobrec(
    args: Sequence[str | os.PathLike[str]],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    text: bool = False,
    process: bool = False,
    input: bytes | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[Any]:
    """`lobrec ARGS` to completion; `env` replaces the whole environment (default `cli_env()`)."""
    argv = [str(arg) for arg in args]
    environment = dict(cli_env() if env is None else env)
    if process:
        return subprocess.run(
            [str(LOBREC), *argv],
            capture_output=True,
            env=environment,
            cwd=cwd,
            text=text,
            input=input.decode() if text and input is not None else input,
            timeout=timeout,
            check=False,
        )
    code, out, err = _in_process(argv, environment, cwd, input or b"")
    if text:
        return subprocess.CompletedProcess(["lobrec", *argv], code, out.decode(), err.decode())
    return subprocess.CompletedProcess(["lobrec", *argv], code, out, err)


def _in_process(
    argv: list[str], environment: dict[str, str], cwd: Path | str | None, stdin: bytes
) -> tuple[int, bytes, bytes]:
    from lobrec.cli import app

    out, err = io.BytesIO(), io.BytesIO()
    with _environment(environment), _folder(cwd), _streams(stdin, out, err):
        try:
            app(argv, prog_name="lobrec", standalone_mode=True)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except BaseException:
            sys.stderr.write(traceback.format_exc())
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
    return code, out.getvalue(), err.getvalue()


def _exit_code(code: object) -> int:
    """What a process exits with for `sys.exit(code)`: None is 0, an int itself, anything else 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return int(code)
    sys.stderr.write(f"{code}\n")
    return 1


@contextlib.contextmanager
def _environment(environment: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _folder(cwd: Path | str | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextlib.contextmanager
def _streams(stdin: bytes, out: io.BytesIO, err: io.BytesIO) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = _Captured(out)
    sys.stderr = _Captured(err)
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


class _Captured(io.TextIOWrapper):
    """A UTF-8 text stream over a byte buffer that outlives it (closing the wrapper keeps the bytes)."""

    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(_Kept(buffer), encoding="utf-8", errors="strict", write_through=True)


class _Kept(io.BufferedWriter):
    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(buffer)

    def close(self) -> None:
        self.flush()

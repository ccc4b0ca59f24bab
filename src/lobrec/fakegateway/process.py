"""The fake gateway as a separate process (`python -m lobrec.fakegateway`), for tests and benchmarks
that need it behind a real socket in another process: started on a free port, stopped cleanly."""

from __future__ import annotations

import re
import selectors
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

LISTENING = re.compile(r"fake gateway listening on (http://\S+/v1)")


def fake_gateway_command_line(
    suite_path: str | Path,
    latency_ms: int = 0,
    *,
    host: str = "127.0.0.1",
    extra_args: Sequence[str] = (),
    rate_limit: float | None = None,
    rate_limit_burst: float | None = None,
    rate_limit_per_model: bool = False,
) -> list[str]:
    """The `python -m lobrec.fakegateway` command `start_fake_gateway_process` runs.

    The rate-limit options are only added when asked for, so a command without them works with
    any version of `lobrec fake-gateway`.
    """
    limits: list[str] = []
    if rate_limit is not None:
        limits += ["--rate-limit", repr(float(rate_limit))]
    if rate_limit_burst is not None:
        limits += ["--rate-limit-burst", repr(float(rate_limit_burst))]
    if rate_limit_per_model:
        limits.append("--rate-limit-per-model")
    return [
        sys.executable,
        "-m",
        "lobrec.fakegateway",
        "--suite",
        str(suite_path),
        "--host",
        host,
        "--port",
        "0",
        "--latency-ms",
        str(latency_ms),
        *limits,
        *extra_args,
    ]


def start_fake_gateway_process(
    suite_path: str | Path,
    latency_ms: int = 0,
    *,
    host: str = "127.0.0.1",
    extra_args: Sequence[str] = (),
    startup_timeout: float = 30.0,
    rate_limit: float | None = None,
    rate_limit_burst: float | None = None,
    rate_limit_per_model: bool = False,
) -> tuple[subprocess.Popen[bytes], str]:
    """Run `python -m lobrec.fakegateway` on a free port; returns the process and its base URL.

    `rate_limit`, `rate_limit_burst` and `rate_limit_per_model` are passed as `--rate-limit R`,
    `--rate-limit-burst B` and `--rate-limit-per-model` (see `FakeGateway`). Stop it with
    `stop_fake_gateway_process` (terminate, wait, close the pipe). Raises RuntimeError, with what
    the process printed, if it does not announce itself in time.
    """
    command = fake_gateway_command_line(
        suite_path,
        latency_ms,
        host=host,
        extra_args=extra_args,
        rate_limit=rate_limit,
        rate_limit_burst=rate_limit_burst,
        rate_limit_per_model=rate_limit_per_model,
    )
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert process.stdout is not None
    line = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(startup_timeout):
            line = process.stdout.readline()
    text = line.decode("utf-8", "replace").strip()
    match = LISTENING.fullmatch(text)
    if match is None:
        stop_fake_gateway_process(process)
        raise RuntimeError(
            f"the fake gateway did not start (exit code {process.returncode}); it printed {text!r}"
        )
    return process, match.group(1)


def stop_fake_gateway_process(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Terminate the process, wait for it (kill if it lingers) and close its stdout pipe."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()

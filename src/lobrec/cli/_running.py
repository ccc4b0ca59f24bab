"""Running a command's coroutine so that SIGINT and SIGTERM stop it cleanly, keeping what finished.

asyncio and signal are imported inside the functions, so that `lobrec --help` starts fast.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from lobrec.cli._exits import Exit
from lobrec.cli._output import fail

T = TypeVar("T")


class Interrupted(Exception):
    """SIGINT/SIGTERM cancelled a run outside the part that keeps what finished (`run_jobs`)."""


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine; SIGINT/SIGTERM cancel it so it can keep what finished and stop cleanly.

    A signal that lands before or after the cases run (opening the client, replaying the rest,
    writing reports) raises `Interrupted` instead of a CancelledError traceback.
    """
    import asyncio  # here, not at the top: asyncio is a third of `lobrec --help`'s start-up

    signalled = False

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop() -> None:
            nonlocal signalled
            signalled = True
            task.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop)
        try:
            return await coro
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if signalled:
            raise Interrupted from None
        raise


@contextlib.contextmanager
def interruptible_reports() -> Iterator[None]:
    """Once the event loop is gone, SIGTERM is fatal by default and SIGINT a traceback; while the
    reports are written both end the command as an interrupted run instead."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        message = "interrupted while writing the reports; every cassette is complete"
        raise fail(message, Exit.INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)

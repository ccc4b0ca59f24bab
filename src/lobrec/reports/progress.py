"""Progress for long runs on stderr: a rich bar on a terminal, plain lines anywhere else (CI logs).

The bar has a total (cases x runs x models, known once the run has picked its cases) and so an
ETA. When stderr is not a terminal, a line such as `recording: 40/80 done, 1 errored, 8 in flight,
$0.0123 spent` is printed at most every `PLAIN_EVERY_S` seconds while cases finish, and once at the
end of a run that printed any.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from lobrec.core.results import CaseResult
from lobrec.runner import Progress as RunnerProgress

PLAIN_EVERY_S = 5.0


class RunProgress(RunnerProgress):
    """Counts cases as the runner reports them, and what their answers cost."""

    def __init__(
        self,
        verb: str,
        total: int | None,
        console: Console | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        plain_every_s: float = PLAIN_EVERY_S,
        spending: bool = True,
    ) -> None:
        self.verb = verb
        self.console = console or Console(stderr=True)
        self.plain = not self.console.is_terminal
        self.clock = clock
        self.plain_every_s = plain_every_s
        self.spending = spending
        """A live run's answers are paid for; a rescore's were paid for before."""
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errored {task.fields[errored]}  running {task.fields[running]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            disable=self.plain,
        )
        self.total = total
        self.task = self.bar.add_task(verb, total=total, errored=0, running=0)
        self.started_count = 0
        self.done = 0
        self.errored = 0
        self.spent_usd = 0.0
        self.last_line = clock()
        self.lines = 0

    def __enter__(self) -> RunProgress:
        self.bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.bar.stop()
        if self.plain and self.lines:
            self._line()

    def planned(self, count: int) -> None:
        self.total = count
        self.bar.update(self.task, total=count)
        self._refresh()

    def started(self, model: str, case_id: str) -> None:
        self.started_count += 1
        self._refresh()

    def finished(self, model: str, result: CaseResult) -> None:
        self.done += 1
        if result.status == "errored":
            self.errored += 1
        self.spent_usd += math.fsum(call.cost_usd for call in result.api_calls if call.cost_usd is not None)
        self._refresh()
        if self.plain and self.clock() - self.last_line >= self.plain_every_s:
            self._line()

    def _refresh(self) -> None:
        self.bar.update(
            self.task, completed=self.done, errored=self.errored, running=self.started_count - self.done
        )

    def status_line(self) -> str:
        total = "?" if self.total is None else str(self.total)
        line = f"{self.verb}: {self.done}/{total} done, {self.errored} errored, "
        line += f"{self.started_count - self.done} in flight"
        if self.spending and self.spent_usd:
            line += f", ${self.spent_usd:.4f} spent"
        return line

    def _line(self) -> None:
        self.console.print(self.status_line(), markup=False, highlight=False, soft_wrap=True)
        self.last_line = self.clock()
        self.lines += 1

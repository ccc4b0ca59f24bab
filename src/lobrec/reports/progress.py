"""Progress for long runs on stderr: a rich bar on a terminal, plain lines anywhere else (CI logs).

The bar has a total (cases x runs x models, known once the run has picked its cases) and so an
ETA. When stderr is not a terminal, a line such as `recording: 40/80 done, 1 errored, 8 in flight,
$0.0123 spent` is printed at most every `PLAIN_EVERY_S` seconds while cases finish, and once at the
end of a run that printed any. When several models record at once, each gets its own bar under the
total (on a terminal) or its count at the end of the line (`; a 30/40, b 10/40 (1 errored)`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from lobrec.core.results import CaseResult
from lobrec.reports._format import printable
from lobrec.runner import Progress as RunnerProgress

PLAIN_EVERY_S = 5.0


@dataclass
class _ModelCounts:
    total: int
    task: TaskID
    started: int = 0
    done: int = 0
    errored: int = 0


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
        self.models: dict[str, _ModelCounts] = {}
        """Per model, when several record at once (`planned_models`)."""

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

    def planned_models(self, counts: dict[str, int]) -> None:
        if len(counts) < 2:
            return
        for model, total in counts.items():
            name = escape(printable(model))
            task = self.bar.add_task(f"  {name}", total=total, errored=0, running=0)
            self.models[model] = _ModelCounts(total=total, task=task)
        self._refresh()

    def started(self, model: str, case_id: str) -> None:
        self.started_count += 1
        if model in self.models:
            self.models[model].started += 1
        self._refresh()

    def finished(self, model: str, result: CaseResult) -> None:
        self.done += 1
        if result.status == "errored":
            self.errored += 1
        if model in self.models:
            self.models[model].done += 1
            self.models[model].errored += result.status == "errored"
        self.spent_usd += math.fsum(call.cost_usd for call in result.api_calls if call.cost_usd is not None)
        self._refresh()
        if self.plain and self.clock() - self.last_line >= self.plain_every_s:
            self._line()

    def _refresh(self) -> None:
        self.bar.update(
            self.task, completed=self.done, errored=self.errored, running=self.started_count - self.done
        )
        for counts in self.models.values():
            self.bar.update(
                counts.task,
                completed=counts.done,
                errored=counts.errored,
                running=counts.started - counts.done,
            )

    def by_model(self) -> str:
        """Each model's cases done of its total (`a 30/40, b 10/40 (1 errored)`), or empty for one model."""
        return ", ".join(
            f"{printable(model)} {counts.done}/{counts.total}"
            + (f" ({counts.errored} errored)" if counts.errored else "")
            for model, counts in self.models.items()
        )

    def status_line(self) -> str:
        total = "?" if self.total is None else str(self.total)
        line = f"{self.verb}: {self.done}/{total} done, {self.errored} errored, "
        line += f"{self.started_count - self.done} in flight"
        if self.spending and self.spent_usd:
            line += f", ${self.spent_usd:.4f} spent"
        if self.models:
            line += f"; {self.by_model()}"
        return line

    def _line(self) -> None:
        self.console.print(self.status_line(), markup=False, highlight=False, soft_wrap=True)
        self.last_line = self.clock()
        self.lines += 1

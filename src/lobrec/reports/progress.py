"""A rich progress bar on stderr for long runs: cases done, errored and running."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lobrec.core.results import CaseResult
from lobrec.runner import Progress as RunnerProgress


class RunProgress(RunnerProgress):
    """Counts cases as the runner reports them; the total grows as cases are queued."""

    def __init__(self, verb: str, total: int | None, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errored {task.fields[errored]}  running {task.fields[running]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
            disable=not self.console.is_terminal,
        )
        self.task = self.bar.add_task(verb, total=total, errored=0, running=0)
        self.started_count = 0
        self.done = 0
        self.errored = 0

    def __enter__(self) -> RunProgress:
        self.bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.bar.stop()

    def started(self, model: str, case_id: str) -> None:
        self.started_count += 1
        self._refresh()

    def finished(self, model: str, result: CaseResult) -> None:
        self.done += 1
        if result.status == "errored":
            self.errored += 1
        self._refresh()

    def _refresh(self) -> None:
        self.bar.update(
            self.task, completed=self.done, errored=self.errored, running=self.started_count - self.done
        )

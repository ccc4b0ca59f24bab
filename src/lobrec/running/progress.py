"""Progress for long runs on stderr: a rich bar on a terminal, plain lines anywhere else (CI logs).

The bar has a total (cases x runs x models, known once the run has picked its cases) and so an
ETA (at the run's average pace, shown once `ETA_AFTER` cases have finished), and the latest
errored case with its reason as it happens. When stderr is not a terminal, a line such as
`recording: 40/80 done, 1 errored, 8 in flight, $0.0123 spent; last errored: m sel-01: step 1:
...` is printed at most every `PLAIN_EVERY_S` seconds while cases finish, at once when a live
run's case errors for a reason not seen before (the first `SHOWN_REASONS`), and once at the end of
a run that printed any, unless the last line printed already says it all. A `note` (a model that
failed fast) is printed at once. When several models record at once, each gets its own bar under
the total (on a terminal) or its count at the end of the line (`; a 30/40, b 10/40 (1 errored)`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.progress import Progress as Bars
from rich.text import Text

from lobrec.core.metrics.results import CaseResult
from lobrec.reports._text import markup_escaped, printable
from lobrec.running.runner import Progress as RunListener

PLAIN_EVERY_S = 5.0
SHOWN_REASONS = 10
"""Distinct errored reasons that each print a plain line at once (more wait for the next line)."""
REASON_CHARS = 120


ETA_AFTER = 10
"""Cases that must have finished before an ETA is shown (or a tenth of the total, if more): the first
cases finish together after the first round trips, and an ETA from them is far too low."""


def eta_seconds(done: int, total: int | None, elapsed_s: float) -> float | None:
    """The time left at the run's average pace so far, or None until enough cases finished."""
    if total is None or done <= 0 or done >= total or done < max(ETA_AFTER, math.ceil(total / 10)):
        return None
    return elapsed_s / done * (total - done)


class _Eta(ProgressColumn):
    """The time left (`eta_seconds`), `-:--:--` until it means something."""

    def render(self, task: Task) -> Text:
        total = None if task.total is None else int(task.total)
        left = eta_seconds(int(task.completed), total, task.elapsed or 0.0)
        if left is None:
            return Text("-:--:--", style="progress.remaining")
        minutes, seconds = divmod(int(left), 60)
        hours, minutes = divmod(minutes, 60)
        return Text(f"{hours}:{minutes:02d}:{seconds:02d}", style="progress.remaining")


def _shortened(reason: str) -> str:
    """A reason short enough for a progress line (the whole one is in the summary at the end)."""
    return reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + "…"


@dataclass
class _ModelCounts:
    total: int
    task: TaskID
    started: int = 0
    done: int = 0
    errored: int = 0


class RunProgress(RunListener):
    """Counts cases as the runner reports them, and what their answers cost, and draws them: rich's
    bars on a terminal, plain lines elsewhere. (`RunListener` is `lobrec.running.runner.Progress`, what a run
    reports; `Bars` is rich's `Progress`, what draws it.)"""

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
        self.bar = Bars(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errored {task.fields[errored]}  running {task.fields[running]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            _Eta(),
            TextColumn("{task.fields[why]}", markup=False),
            console=self.console,
            transient=False,
            disable=self.plain,
        )
        self.total = total
        self.task = self.bar.add_task(verb, total=total, errored=0, running=0, why="")
        self.started_count = 0
        self.done = 0
        self.errored = 0
        self.spent_usd = 0.0
        self.last_errored: str | None = None
        """The latest errored case and why, shown as it happens."""
        self.reasons: set[str] = set()
        self.last_line = clock()
        self.lines = 0
        self.printed = ""
        """The last plain line printed: the closing line is not printed twice."""
        self.models: dict[str, _ModelCounts] = {}
        """Per model, when several record at once (`planned_models`)."""

    def __enter__(self) -> RunProgress:
        self.bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.bar.stop()
        if self.plain and self.lines and self.status_line() != self.printed:
            self._line()

    def planned(self, count: int) -> None:
        self.total = count
        self.bar.update(self.task, total=count)
        self._refresh()

    def planned_models(self, counts: dict[str, int]) -> None:
        if len(counts) < 2:
            return
        for model, total in counts.items():
            name = markup_escaped(model)
            task = self.bar.add_task(f"  {name}", total=total, errored=0, running=0, why="")
            self.models[model] = _ModelCounts(total=total, task=task)
        self._refresh()

    def started(self, model: str, case_id: str) -> None:
        self.started_count += 1
        if model in self.models:
            self.models[model].started += 1
        self._refresh()

    def finished(self, model: str, result: CaseResult) -> None:
        self.done += 1
        new_reason = self._errored(model, result) if result.status == "errored" else False
        if model in self.models:
            self.models[model].done += 1
            self.models[model].errored += result.status == "errored"
        self.spent_usd += math.fsum(call.cost_usd for call in result.api_calls if call.cost_usd is not None)
        self._refresh()
        # A live run says at once why a case errored (a rescore's reasons were seen when recorded).
        if self.plain and (
            (new_reason and self.spending) or self.clock() - self.last_line >= self.plain_every_s
        ):
            self._line()

    def _errored(self, model: str, result: CaseResult) -> bool:
        """Count an errored case and keep its reason; True when the reason is new and still shown."""
        self.errored += 1
        reason = result.reason or "no reason recorded"
        self.last_errored = printable(f"{model} {result.id}: {_shortened(reason)}")
        new_reason = reason not in self.reasons and len(self.reasons) < SHOWN_REASONS
        self.reasons.add(reason)
        return new_reason

    def note(self, message: str) -> None:
        self.console.print(f"lobrec: {printable(message)}", markup=False, highlight=False, soft_wrap=True)

    def _refresh(self) -> None:
        if self.plain:  # no bar to draw: the plain lines read the counts themselves
            return
        why = f"last errored: {self.last_errored}" if self.last_errored else ""
        self.bar.update(
            self.task,
            completed=self.done,
            errored=self.errored,
            running=self.started_count - self.done,
            why=why,
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
        if self.last_errored:
            line += f"; last errored: {self.last_errored}"
        return line

    def _line(self) -> None:
        self.printed = self.status_line()
        self.console.print(self.printed, markup=False, highlight=False, soft_wrap=True)
        self.last_line = self.clock()
        self.lines += 1

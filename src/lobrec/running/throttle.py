"""Adaptive concurrency for live runs: fewer requests in flight when the gateway says "too many".

`--concurrency N` is a ceiling. Each model has a window (how many of its requests may be in flight)
and so has the run as a whole; a request waits until both have room. The windows follow AIMD, as
TCP's congestion control does:

- a 429 or 503 answer halves the model's window and the run's (never below 1), once per window's
  worth of requests: answers to requests sent before the last cut do not cut again, so one burst
  of 429s halves once, not down to 1;
- any other answer grows each window by 1/window, so a full window of successes adds one request,
  up to the ceiling; a transport failure (no answer) says nothing about load and changes nothing.

The retry rule is untouched: a throttled request is retried exactly as before (at most 3 times, 1,
2 and 4 s apart). What adapts is only how many requests are in flight; waiting for a slot is not
part of any request's latency (the runner times the exchange itself).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from lobrec.running.exchange import Answer, Exchange

THROTTLE_STATUSES = frozenset({429, 503})
DECREASE = 0.5


@dataclass(kw_only=True)
class Window:
    """One AIMD window: `size` may be fractional; `int(size)` requests may be in flight."""

    ceiling: int
    size: float = 0.0
    in_flight: int = 0
    cuts: int = 0
    """How many times the window was cut: a request remembers the count it was sent under."""
    lowest: float = 0.0
    """The smallest size the window reached (for the run's summary and for tests)."""

    def __post_init__(self) -> None:
        self.size = self.size or float(self.ceiling)
        self.lowest = self.size

    @property
    def room(self) -> bool:
        return self.in_flight < max(1, int(self.size))

    def answered(self, sent_under: int, throttled: bool) -> None:
        if throttled:
            if sent_under == self.cuts:  # the first throttle answer since the last cut
                self.size = max(1.0, self.size * DECREASE)
                self.cuts += 1
                self.lowest = min(self.lowest, self.size)
        else:
            self.size = min(float(self.ceiling), self.size + 1.0 / max(1.0, self.size))


@dataclass(kw_only=True)
class Ticket:
    """A request's slot: which windows it holds and the cut counts it was sent under."""

    model: str
    run_cuts: int
    model_cuts: int


@dataclass(kw_only=True)
class Throttle:
    """The run's window and one per model; `adaptive=False` keeps every window at the ceiling."""

    ceiling: int
    adaptive: bool = True
    run: Window = field(init=False)
    models: dict[str, Window] = field(default_factory=dict)
    _waiting: deque[tuple[str, asyncio.Future[Ticket]]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.run = Window(ceiling=self.ceiling)

    def window(self, model: str) -> Window:
        found = self.models.get(model)
        if found is None:
            found = self.models[model] = Window(ceiling=self.ceiling)
        return found

    def _fits(self, model: str) -> bool:
        return self.run.room and self.window(model).room

    def _take(self, model: str) -> Ticket:
        window = self.window(model)
        self.run.in_flight += 1
        window.in_flight += 1
        return Ticket(model=model, run_cuts=self.run.cuts, model_cuts=window.cuts)

    @contextlib.asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[Ticket]:
        """Hold a slot for one request; `answered` tells the windows how it went."""
        if not self._waiting and self._fits(model):
            ticket = self._take(model)
        else:
            ticket = await self._wait(model)
        try:
            yield ticket
        finally:
            self.run.in_flight -= 1
            self.window(model).in_flight -= 1
            self._wake()

    async def _wait(self, model: str) -> Ticket:
        future: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        entry = (model, future)
        self._waiting.append(entry)
        self._wake()  # room for this model even though others wait (their own window is full)
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # woken, then cancelled: give the slot back
                self.run.in_flight -= 1
                self.window(model).in_flight -= 1
                self._wake()
            else:
                self._waiting.remove(entry)
            raise

    def _wake(self) -> None:
        """Give free slots to waiting requests, first come first served, skipping a model whose own
        window is full (it must not hold up the others)."""
        for entry in list(self._waiting):
            model, future = entry
            if not self.run.room:
                return
            if self.window(model).room:
                self._waiting.remove(entry)
                future.set_result(self._take(model))

    def answered(self, ticket: Ticket, status: int | None) -> None:
        """An answer to a request sent under `ticket`; None (no response) says nothing of load."""
        if not self.adaptive or status is None:
            return
        throttled = status in THROTTLE_STATUSES
        self.run.answered(ticket.run_cuts, throttled)
        self.window(ticket.model).answered(ticket.model_cuts, throttled)
        self._wake()


class ThrottledExchange:
    """An `Exchange` whose every attempt first takes a slot of the throttle (live mode only)."""

    def __init__(self, exchange: Exchange, throttle: Throttle, model: str) -> None:
        self.exchange = exchange
        self.throttle = throttle
        self.model = model

    async def send(self, body: bytes) -> Answer:
        async with self.throttle.slot(self.model) as ticket:
            answer = await self.exchange.send(body)
            self.throttle.answered(ticket, answer.status)
            return answer

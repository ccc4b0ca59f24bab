"""Adaptive concurrency (issue 15): AIMD windows per model and for the run."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.running.throttle import Throttle, Window


def test_a_burst_of_429s_halves_the_window_once() -> None:
    window = Window(ceiling=16)
    sent_under = window.cuts
    for _ in range(10):  # ten answers to requests all sent before the cut
        window.answered(sent_under, throttled=True)
    assert window.size == 8.0 and window.cuts == 1


def test_a_later_429_halves_again_down_to_one_never_below() -> None:
    window = Window(ceiling=16)
    for _ in range(10):
        window.answered(window.cuts, throttled=True)
    assert window.size == 1.0 and window.lowest == 1.0 and window.room


def test_successes_grow_the_window_by_one_per_window_up_to_the_ceiling() -> None:
    window = Window(ceiling=8, size=4.0)
    for _ in range(4):
        window.answered(window.cuts, throttled=False)
    assert 4.9 < window.size < 5.0  # 4 + 1/4 + 1/4.25 + ...: about one per window's worth
    for _ in range(100):
        window.answered(window.cuts, throttled=False)
    assert window.size == 8.0


@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=200), st.integers(1, 64))
def test_the_window_stays_between_one_and_the_ceiling(answers: list[tuple[bool, bool]], ceiling: int) -> None:
    window = Window(ceiling=ceiling)
    for throttled, stale in answers:
        window.answered(window.cuts - 1 if stale else window.cuts, throttled)
        assert 1.0 <= window.size <= ceiling
        assert window.lowest <= window.size


async def _hold(throttle: Throttle, model: str, entered: list[str], gate: asyncio.Event) -> None:
    async with throttle.slot(model):
        entered.append(model)
        await gate.wait()


def test_requests_beyond_the_window_wait_and_a_full_model_does_not_block_others() -> None:
    async def run() -> list[str]:
        throttle = Throttle(ceiling=4)
        throttle.window("a").size = 1.0  # model a was throttled: one request at a time
        gate = asyncio.Event()
        entered: list[str] = []
        tasks = [
            asyncio.create_task(_hold(throttle, m, entered, gate)) for m in ["a", "a", "b", "b", "b", "b"]
        ]
        for _ in range(5):
            await asyncio.sleep(0)
        first = list(entered)
        gate.set()
        await asyncio.gather(*tasks)
        assert throttle.run.in_flight == 0 and throttle.window("a").in_flight == 0
        return first

    # a's second request waits for a's window; b gets the run's other three slots meanwhile
    assert asyncio.run(run()) == ["a", "b", "b", "b"]


def test_a_cancelled_waiter_gives_nothing_away() -> None:
    async def run() -> None:
        throttle = Throttle(ceiling=1)
        gate = asyncio.Event()
        holder = asyncio.create_task(_hold(throttle, "m", [], gate))
        await asyncio.sleep(0)
        waiter = asyncio.create_task(_hold(throttle, "m", [], gate))
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        gate.set()
        await holder
        assert throttle.run.in_flight == 0 and not throttle._waiting

    asyncio.run(run())


def test_fixed_concurrency_never_adapts() -> None:
    async def run() -> float:
        throttle = Throttle(ceiling=8, adaptive=False)
        async with throttle.slot("m") as ticket:
            throttle.answered(ticket, 429)
        return throttle.run.size

    assert asyncio.run(run()) == 8.0

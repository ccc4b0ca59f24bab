"""The live/replay seam (issue 11): both exchanges hand the runner the same `Answer`.

Each exchange is recorded through `LiveExchange` over `httpx.MockTransport`, saved as a vcrpy
cassette, and replayed through `ReplayExchange`: the answer (or the failure raised) must be equal,
elapsed time included. Replay must load neither httpx nor vcrpy.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lobrec.cassette.headers import joined_headers
from lobrec.cassette.vcrpy import new_for_recording, save
from lobrec.errors import CassetteMiss, GatewayError, TransportFailure
from lobrec.running.exchange import Answer
from lobrec.running.live import LiveLink
from lobrec.running.playback import ReplayExchange, open_for_replay

URL = "http://127.0.0.1:9/v1/chat/completions"
BODY = b'{"model":"m","messages":[]}'

Handler = Callable[[httpx.Request], httpx.Response]


def _reply(status: int, headers: list[tuple[str, str]], content: bytes) -> Handler:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=content)

    return handle


def _reset(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused")


EXCHANGES: dict[str, Handler] = {
    "a plain 200": _reply(200, [("x-lobstack-cost-usd", "0.0002")], b'{"choices":[]}'),
    "a header sent twice, names in any case": _reply(
        200, [("X-Lobstack-Dropped-Params", "temperature"), ("x-lobstack-dropped-params", "top_p")], b"{}"
    ),
    "a 429 with retry-after": _reply(429, [("retry-after", "1")], b'{"error":{"message":"slow down"}}'),
    "a 400 with an unusual status line": _reply(400, [], b'{"error":{"message":"bad"}}'),
    "a status with no standard phrase": _reply(599, [], b"gateway's own 599"),
    "a 200 that is not UTF-8": _reply(200, [], b"\xff\xfe"),
    "no response at all": _reset,
}


def _outcome(send: Callable[[], object]) -> Answer | tuple[str, str]:
    try:
        result = send()
    except (TransportFailure, GatewayError, CassetteMiss) as exc:
        return (type(exc).__name__, str(exc))
    assert isinstance(result, Answer)
    return result


@pytest.mark.parametrize("name", list(EXCHANGES))
def test_live_and_replay_give_the_same_answer(name: str, tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    cassette = new_for_recording(path)

    async def live() -> Answer:
        async with LiveLink(httpx.MockTransport(EXCHANGES[name]), URL) as link:
            try:
                return await link.recording_into(cassette).send(BODY)
            finally:
                save(cassette)

    recorded = _outcome(lambda: asyncio.run(live()))
    replayed = _outcome(lambda: ReplayExchange(open_for_replay(path)).send(BODY))
    if isinstance(recorded, Answer):
        assert isinstance(replayed, Answer)
        assert recorded == replayed
    else:
        assert recorded[0] == replayed[0]
        # A live failure's elapsed time is measured; the replayed one is read back: same text.
        assert recorded[1] == replayed[1]


def test_a_second_request_with_the_same_body_misses_in_replay(tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    cassette = new_for_recording(path)

    async def live() -> None:
        async with LiveLink(httpx.MockTransport(EXCHANGES["a plain 200"]), URL) as link:
            await link.recording_into(cassette).send(BODY)
        save(cassette)

    asyncio.run(live())
    replay = ReplayExchange(open_for_replay(path))
    assert replay.send(BODY).status == 200
    with pytest.raises(CassetteMiss):
        replay.send(BODY)
    with pytest.raises(CassetteMiss):
        ReplayExchange(open_for_replay(path)).send(BODY + b" ")


def test_joined_headers_lower_cases_and_joins_in_order() -> None:
    assert joined_headers({"A": ["1"], "a": ["2", "3"], "b": []}) == {"a": "1, 2, 3", "b": ""}


def test_the_live_request_carries_the_link_headers_and_no_cookie(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers=[("set-cookie", "s=1")], content=b"{}")

    async def live() -> None:
        headers = {"authorization": "Bearer lsk-0123456789abcdef"}
        async with LiveLink(httpx.MockTransport(handle), URL, headers=headers) as link:
            for _ in range(2):
                await link.recording_into(new_for_recording(tmp_path / "x.json")).send(BODY)

    asyncio.run(live())
    assert [r.content for r in seen] == [BODY, BODY]
    assert seen[1].headers["authorization"] == "Bearer lsk-0123456789abcdef"
    assert seen[1].headers["content-type"] == "application/json"
    assert "cookie" not in seen[1].headers


@pytest.mark.process
def test_replay_loads_neither_httpx_nor_vcrpy() -> None:
    code = (
        "import sys, lobrec.running.replay, lobrec.cassette.audit; "
        "print(sorted(m for m in ('httpx', 'vcr') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_requests_go_to_the_least_busy_pool(tmp_path: Path) -> None:
    """With at most `concurrency` in flight over pools of `concurrency / pools`, none waits."""
    release = asyncio.Event()
    served: list[int] = []

    def pool(number: int) -> httpx.MockTransport:
        async def handle(request: httpx.Request) -> httpx.Response:
            served.append(number)
            await release.wait()
            return httpx.Response(200, content=b"{}")

        return httpx.MockTransport(handle)

    async def live() -> list[int]:
        link = LiveLink([pool(0), pool(1), pool(2)], URL)
        sends = [
            asyncio.create_task(link.recording_into(new_for_recording(tmp_path / f"{n}.json")).send(BODY))
            for n in range(6)
        ]
        while len(served) < 6:
            await asyncio.sleep(0)
        busy = list(link.in_flight)
        release.set()
        await asyncio.gather(*sends)
        assert link.in_flight == [0, 0, 0]
        return busy

    assert asyncio.run(live()) == [2, 2, 2]
    assert sorted(served) == [0, 0, 1, 1, 2, 2]

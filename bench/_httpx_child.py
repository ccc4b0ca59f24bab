"""The live run's baseline: the same requests through a bare `httpx.AsyncClient`, nothing else.

Usage: `python bench/_httpx_child.py OUT.json MODULES-FILE|- URL CONCURRENCY REQUESTS.json`

REQUESTS.json holds, per case, the request bodies lobrec sent (from its cassettes). As lobrec does,
each case's requests go one after another (a chain's next step waits for the answer), at most
CONCURRENCY cases at once, longest cases first, over a client configured as lobrec's (connection
limit, headers, no retries). No judging, no cassettes: what is left is the floor set by httpx.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._child import Clock, preload, write


async def run(url: str, concurrency: int, cases: list[list[str]]) -> int:
    import httpx

    inner = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=concurrency), retries=0)
    headers = {"accept-encoding": "identity", "content-type": "application/json"}
    limit = asyncio.Semaphore(concurrency)
    calls = 0

    async def one_case(client: httpx.AsyncClient, bodies: list[str]) -> None:
        nonlocal calls
        async with limit:
            for body in bodies:
                response = await client.post(url, content=body.encode("utf-8"))
                response.raise_for_status()
                calls += 1

    async with (
        httpx.AsyncClient(transport=inner, headers=headers, trust_env=False, timeout=None) as client,
        asyncio.TaskGroup() as group,
    ):
        for bodies in sorted(cases, key=len, reverse=True):
            group.create_task(one_case(client, bodies))
    return calls


def main() -> None:
    import msgspec

    out, modules, url, concurrency, requests = sys.argv[1:6]
    preload(modules)
    cases = msgspec.json.decode(Path(requests).read_bytes(), type=list[list[str]])
    clock = Clock()
    calls = asyncio.run(run(url, int(concurrency), cases))
    write(out, {**clock.figures(), "calls": calls})


if __name__ == "__main__":
    main()

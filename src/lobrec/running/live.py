"""Live mode's side of the seam: send each request through httpx and record it into a vcrpy cassette.

`LiveLink` holds what every case of a `record` run shares (one httpx connection pool, the URL, the
headers, the key to keep out of files); `LiveExchange` is one case's `Exchange`, recording every
attempt into that case's cassette as it passes. The runner above the seam is the same for replay
(`lobrec.running.playback`), which answers from the file without any HTTP client.

lobrec sends through httpx's transport (its connection pool) rather than its client: the client's
machinery (URL merging, cookies, auth, event hooks) did nothing lobrec needs and cost CPU on every
call. No cookies are kept, so every request stands on its own, as it does in replay.

Things vcrpy does not record are added here:
- the wall time of each exchange, as the response header `x-lobrec-elapsed-ms`;
- an attempt that got no response (time-out, reset), as a pseudo-response with status 599 and the
  error in `x-lobrec-error`, so replay raises the same failure and the retry rule replays exactly.

httpx's exceptions stop here: the runner sees `TransportFailure` or `GatewayError`.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import NoReturn

import httpx
from vcr.cassette import Cassette
from vcr.request import Request as VcrRequest

from lobrec.cassette.headers import (
    RECORDED_REQUEST_HEADERS,
    RECORDED_RESPONSE_HEADERS,
    answered,
    joined_headers,
    no_response,
)
from lobrec.cassette.spellings import holds_secret, scrub, scrub_bytes
from lobrec.cassette.vcrpy import record
from lobrec.core.judge.wire import is_success
from lobrec.running.exchange import (
    KEY_IN_REPLY,
    REPLY_NOT_TEXT,
    REPLY_TOO_LARGE,
    TIMED_OUT,
    Answer,
    raise_recorded_failure,
)

MAX_REPLY_BYTES = 4 * 1024 * 1024
"""A reply body over this many bytes errors the case (the stream is abandoned, memory stays bounded).
The cap counts decoded bytes: a gzip body that inflates past it is abandoned too."""


class LiveLink:
    """What every case of one `record` run shares: the connection pool, the URL, the headers sent
    (with the key), the key to keep out of every file, and the limits on an answer."""

    def __init__(
        self,
        pools: httpx.AsyncBaseTransport | Sequence[httpx.AsyncBaseTransport],
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        secrets: tuple[str, ...] = (),
        max_reply_bytes: int = MAX_REPLY_BYTES,
        deadline_s: float | None = None,
    ) -> None:
        self.pools = [pools] if isinstance(pools, httpx.AsyncBaseTransport) else list(pools)
        self.in_flight = [0] * len(self.pools)
        """Requests holding a connection of each pool: a request goes to the least busy, so with at
        most `concurrency` in flight over pools of `concurrency / len(pools)` none waits for one."""
        self.url = httpx.URL(url)
        self.headers = httpx.Headers({"content-type": "application/json", **(headers or {})})
        self.recorded_headers = {
            name: self.headers[name] for name in sorted(RECORDED_REQUEST_HEADERS) if name in self.headers
        }
        self.secrets = tuple(secret for secret in secrets if secret)
        self.max_reply_bytes = max_reply_bytes
        self.deadline_s = deadline_s
        """Whole-exchange limit (connect to last byte): httpx's timeouts are per read, so a body
        trickling in a byte at a time would never time out on them."""

    def recording_into(self, cassette: Cassette) -> LiveExchange:
        """The exchange of one case: every attempt is appended to `cassette`."""
        return LiveExchange(self, cassette)

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()

    async def __aenter__(self) -> LiveLink:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def clean(self, text: str) -> str:
        """`text` with the key replaced however it is spelled (status lines, headers, errors)."""
        return scrub(text, self.secrets)


class LiveExchange:
    """One case's `Exchange` in live mode: send through the link, record into the cassette."""

    def __init__(self, link: LiveLink, cassette: Cassette) -> None:
        self.link = link
        self.cassette = cassette

    def _fail(self, vcr_request: VcrRequest, error: str, start: float) -> NoReturn:
        """Record an attempt that got no usable answer, and raise what replay will raise."""
        elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
        record(self.cassette, vcr_request, no_response(error, elapsed))
        raise_recorded_failure(error, float(elapsed))

    async def send(self, body: bytes) -> Answer:
        link = self.link
        vcr_request = VcrRequest(
            "POST", str(link.url), scrub_bytes(body, link.secrets), link.recorded_headers
        )
        start = time.perf_counter()
        response, content = await self._exchange(body, vcr_request, start)
        elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
        text = self._recordable(response.status_code, content, vcr_request, start)
        headers: dict[str, list[str]] = {}
        for name, value in response.headers.multi_items():
            if name in RECORDED_RESPONSE_HEADERS:
                headers.setdefault(name, []).append(link.clean(value))
        recorded = answered(response.status_code, link.clean(response.reason_phrase), headers, text, elapsed)
        record(self.cassette, vcr_request, recorded)
        return Answer(
            response.status_code, joined_headers(recorded.headers), text.encode("utf-8"), float(elapsed)
        )

    async def _exchange(
        self, body: bytes, vcr_request: VcrRequest, start: float
    ) -> tuple[httpx.Response, bytes]:
        """Send through the least busy pool and read the whole capped reply, within the deadline;
        httpx's failures are recorded and raised as lobrec's."""
        link = self.link
        request = httpx.Request("POST", link.url, headers=link.headers, content=body)
        pool = min(range(len(link.pools)), key=link.in_flight.__getitem__)
        link.in_flight[pool] += 1
        try:
            async with asyncio.timeout(link.deadline_s):
                response = await link.pools[pool].handle_async_request(request)
                try:
                    return response, await self._read_capped(response)
                finally:
                    await response.aclose()
        except TimeoutError:
            self._fail(
                vcr_request, f"{TIMED_OUT}: no complete answer within {link.deadline_s} seconds", start
            )
        except (httpx.TransportError, httpx.DecodingError) as exc:
            self._fail(vcr_request, f"{type(exc).__name__}: {link.clean(str(exc)) or 'no detail'}", start)
        except _TooLarge:
            self._fail(
                vcr_request,
                f"{REPLY_TOO_LARGE}: the reply is over the {link.max_reply_bytes}-byte cap",
                start,
            )
        finally:
            link.in_flight[pool] -= 1

    def _recordable(self, status: int, content: bytes, vcr_request: VcrRequest, start: float) -> str:
        """The body as a cassette may hold it: never the key; text. A 2xx that cannot be kept as it
        is (it holds the key, or is not text) is recorded as a failure instead."""
        secrets = self.link.secrets
        if is_success(status) and holds_secret(content, secrets):
            # Scrubbing an answer would change what the model said, and so the verdict: the case
            # is errored instead, and nothing of the answer is kept.
            self._fail(
                vcr_request,
                f"{KEY_IN_REPLY}: the gateway's {status} answer contains the API key; it was not recorded",
                start,
            )
        content = scrub_bytes(content, secrets)
        if holds_secret(content, secrets):  # an error body spelling the key some other way
            content = b"(the body held the API key and was not recorded)"
        try:
            return content.decode("utf-8")
        except UnicodeDecodeError:
            # A cassette body is text; bytes that are not UTF-8 would replay differently, so a 200
            # that is not text is recorded as a failure, and another status keeps a readable body.
            if is_success(status):
                self._fail(
                    vcr_request, f"{REPLY_NOT_TEXT}: the gateway's {status} body is not UTF-8 text", start
                )
            return content.decode("utf-8", "replace")

    async def _read_capped(self, response: httpx.Response) -> bytes:
        cap = self.link.max_reply_bytes
        if response.is_stream_consumed:  # an inner transport that read the body (httpx.MockTransport)
            if len(response.content) > cap:
                raise _TooLarge
            return response.content
        chunks: list[bytes] = []
        size = 0
        inflate = _Inflater.for_encoding(response.headers.get("content-encoding", ""))
        async for raw in response.aiter_raw():
            for chunk in inflate.feed(raw, cap - size + 1):
                size += len(chunk)
                if size > cap:
                    raise _TooLarge
                chunks.append(chunk)
        return b"".join(chunks)


class _TooLarge(Exception):
    pass


_PIECE = 64 * 1024


class _Inflater:
    """Decode gzip/deflate a bounded piece at a time: httpx's decoder inflates a whole network chunk
    at once, and 64 KiB of gzip can hold 64 MiB."""

    def __init__(self, wbits: int | None) -> None:
        self.zlib = None if wbits is None else zlib.decompressobj(wbits)

    @classmethod
    def for_encoding(cls, encoding: str) -> _Inflater:
        name = encoding.strip().lower()
        if name in ("", "identity"):
            return cls(None)
        if name in ("gzip", "x-gzip"):
            return cls(16 + zlib.MAX_WBITS)
        if name == "deflate":
            return cls(zlib.MAX_WBITS)
        raise httpx.DecodingError(f"unsupported content-encoding {encoding!r}")

    def feed(self, data: bytes, room: int) -> Iterator[bytes]:
        """The decoded bytes of `data`, in pieces of at most 64 KiB; the caller stops reading
        past its cap (`room`, what is left of it plus one), so no more than that is ever inflated."""
        if self.zlib is None:
            yield data
            return
        try:
            while data:
                yield self.zlib.decompress(data, max(1, min(room, _PIECE)))
                data = self.zlib.unconsumed_tail
        except zlib.error as exc:
            raise httpx.DecodingError(f"the reply does not decode: {exc}") from None

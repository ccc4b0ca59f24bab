"""The seam between the runner and the network: an httpx transport that records or replays.

The runner always talks through `CassetteTransport`; live recording and offline replay differ only
in whether it has a real transport underneath. Each request goes to the cassette of the case being
run (vcrpy's `Cassette` when recording, the lighter `ReplayCassette` when replaying), found through a
ContextVar that each case's task sets. vcrpy's own patching of httpx is
process-wide, so concurrent cases would mix their recordings, and a replay miss could reach the
real network; this transport patches nothing.

Things vcrpy does not record are added here:
- the wall time of each exchange, as the response header `x-lobrec-elapsed-ms`;
- an attempt that got no response (time-out, reset), as a pseudo-response with status 599 and the
  error in `x-lobrec-error`, so replay raises the same failure and the retry rule replays exactly.

httpx's exceptions stop here: the runner sees `TransportFailure`, `GatewayError` or `CassetteMiss`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import math
import time
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

import httpx
import msgspec
from vcr import serialize as vcr_serialize
from vcr.cassette import Cassette
from vcr.matchers import method, raw_body
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.record_mode import RecordMode
from vcr.request import Request as VcrRequest

from lobrec.cassettes import (
    CASSETTE_FORMAT_VERSION,
    MAX_CASSETTE_BYTES,
    CassetteFile,
    RecordedResponse,
    encode_pretty,
    read_capped,
    refuse_ambiguous,
    write_atomic,
)
from lobrec.errors import CassetteError, CassetteMiss, GatewayError, TransportFailure

ELAPSED_HEADER = "x-lobrec-elapsed-ms"
ERROR_HEADER = "x-lobrec-error"
NO_RESPONSE_STATUS = 599
REPLY_TOO_LARGE = "ReplyTooLarge"
REPLY_NOT_TEXT = "ReplyNotText"
KEY_IN_REPLY = "KeyInReply"
TIMED_OUT = "Timeout"
MAX_REPLY_BYTES = 4 * 1024 * 1024
"""A reply body over this many bytes errors the case (the stream is abandoned, memory stays bounded).
The cap counts decoded bytes: a gzip body that inflates past it is abandoned too."""

RECORDED_REQUEST_HEADERS = ("content-type",)
"""The only request headers a cassette keeps: never Authorization, never anything carrying the key."""

DROPPED_RESPONSE_HEADERS = frozenset(
    {"set-cookie", "authorization", "proxy-authorization", "www-authenticate"}
)
DECODED_BODY_HEADERS = ("content-encoding", "content-length")
"""Dropped when the gateway compressed the body: the cassette holds the decoded bytes."""

MATCH_ON = (method, raw_body)
"""Requests match on method and exact body bytes (which hold the model and every message)."""

_current: contextvars.ContextVar[Cassette | ReplayCassette] = contextvars.ContextVar("lobrec_cassette")


class MsgspecSerializer:
    """vcrpy serializer: strict msgspec decoding into the cassette Structs, pretty JSON out."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        return encode_pretty(cassette_dict).decode("utf-8")

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        data = msgspec.json.decode(cassette_string, type=CassetteFile)
        return msgspec.to_builtins(data)


class SafePersister:
    """vcrpy persister: capped, symlink-refusing reads; atomic writes; errors that name the file."""

    @staticmethod
    def load_cassette(cassette_path: str | Path, serializer: Any) -> tuple[list[Any], list[Any]]:
        path = Path(cassette_path)
        if not path.exists() and not path.is_symlink():
            raise CassetteNotFoundError()
        data = read_capped(path, MAX_CASSETTE_BYTES)
        try:
            text = data.decode("utf-8")
            return vcr_serialize.deserialize(text, serializer)
        except UnicodeDecodeError:
            raise CassetteError(f"{path}: not UTF-8 text") from None
        except msgspec.ValidationError as exc:
            raise CassetteError(f"{path}: not a cassette: {exc}") from None
        except msgspec.DecodeError as exc:
            raise CassetteError(f"{path}: not valid JSON: {exc}") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise CassetteError(f"{path}: not a cassette: {exc}") from None

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        text = vcr_serialize.serialize(cassette_dict, serializer)
        write_atomic(Path(cassette_path), text.encode("utf-8"))


class PlaybackRequest(NamedTuple):
    """What replay matches on (method and exact body bytes); vcrpy's matchers accept it too."""

    method: str
    body: bytes


class ReplayCassette:
    """A recorded cassette for playback only: the three members of vcrpy's `Cassette` that the
    transport uses (`path`, `can_play_response_for`, `play_response`), built straight from the
    decoded file.

    Replay is most of a rescore's time, and vcrpy's own loading deep-copies every response and
    re-runs its matchers (with a diff on every mismatch); this reads each file once. It plays as
    vcrpy's `Cassette` in record mode `none` with `MATCH_ON` and no playback repeats: a request
    gets the first recorded interaction with the same method and body that has not been played,
    each interaction plays once, and anything else is a miss. `tests/unit/test_replay_cassette.py`
    checks it against vcrpy on the committed cassettes. vcrpy still records.
    """

    def __init__(self, path: str, interactions: list[tuple[str, bytes | None, dict[str, Any]]]) -> None:
        self.path = path
        self._interactions = interactions
        self._unplayed = list(range(len(interactions)))

    @classmethod
    def load(cls, path: Path) -> ReplayCassette:
        """Read and check the file as `SafePersister` does, with the same errors."""
        data = read_capped(path, MAX_CASSETTE_BYTES)
        try:
            cassette = _cassette_decoder.decode(data)
            if cassette.version != CASSETTE_FORMAT_VERSION:
                raise ValueError(f"cassette format version {cassette.version}, expected 1")
            interactions = [
                (i.request.method, _request_body(i.request.uri, i.request.body), _response(i.response))
                for i in cassette.interactions
            ]
        except ValueError as exc:  # msgspec's errors are ValueErrors too
            raise _load_error(path, data, exc) from None
        refuse_ambiguous(data, path)
        return cls(str(path), interactions)

    def _find(self, request: PlaybackRequest | VcrRequest) -> int | None:
        for position, index in enumerate(self._unplayed):
            method, body, _ = self._interactions[index]
            if method == request.method and body == request.body:
                return position
        return None

    def can_play_response_for(self, request: PlaybackRequest | VcrRequest) -> bool:
        return self._find(request) is not None

    def play_response(self, request: PlaybackRequest | VcrRequest) -> dict[str, Any]:
        position = self._find(request)
        if position is None:
            raise CassetteMiss(f"{self.path}: no recorded answer for this request")
        return self._interactions[self._unplayed.pop(position)][2]


_cassette_decoder = msgspec.json.Decoder(CassetteFile)


def _load_error(path: Path, data: bytes, exc: ValueError) -> CassetteError:
    """`SafePersister`'s message: it checks UTF-8 first (here only once decoding failed), then JSON,
    then the shape."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return CassetteError(f"{path}: not UTF-8 text")
    if isinstance(exc, msgspec.ValidationError):
        return CassetteError(f"{path}: not a cassette: {exc}")
    if isinstance(exc, msgspec.DecodeError):
        return CassetteError(f"{path}: not valid JSON: {exc}")
    return CassetteError(f"{path}: not a cassette: {exc}")


def _request_body(uri: str, body: str | None) -> bytes | None:
    """As vcrpy's `Request` does: the body as UTF-8 bytes, and a URI that `urlparse` accepts."""
    urlparse(uri)
    return None if body is None else body.encode("utf-8")


def _response(response: RecordedResponse) -> dict[str, Any]:
    """The recorded response as vcrpy hands it out: plain dicts, the body as UTF-8 bytes."""
    text = response.body.string
    try:
        content: str | bytes = text.encode("utf-8")
    except UnicodeEncodeError:
        content = text
    return {
        "status": {"code": response.status.code, "message": response.status.message},
        "headers": response.headers,
        "body": {"string": content},
    }


def open_for_replay(path: Path) -> ReplayCassette:
    """Load a recorded cassette for playback (see `ReplayCassette`): a miss raises."""
    try:
        return ReplayCassette.load(path)
    except CassetteError:
        if not path.exists() and not path.is_symlink():  # asked only on failure: one stat less
            raise CassetteError(f"{path}: no cassette") from None
        raise


def new_for_recording(path: Path) -> Cassette:
    """An empty cassette that records every exchange (an older recording is replaced on save)."""
    return Cassette(
        path=str(path),
        serializer=MsgspecSerializer,
        persister=SafePersister,
        record_mode=RecordMode.ALL,
        match_on=MATCH_ON,
    )


def save(cassette: Cassette) -> None:
    SafePersister.save_cassette(
        cassette.path, {"requests": cassette.requests, "responses": cassette.responses}, MsgspecSerializer
    )


@contextlib.contextmanager
def using(cassette: Cassette | ReplayCassette) -> Iterator[Cassette | ReplayCassette]:
    """Route this task's requests to `cassette` (a ContextVar: concurrent tasks never mix)."""
    token = _current.set(cassette)
    try:
        yield cassette
    finally:
        _current.reset(token)


def _spellings(secret: bytes) -> list[bytes]:
    """The key as it may stand in a JSON text: raw, JSON-escaped (`/` as `\\/` too), all `\\u`."""
    text = secret.decode("utf-8", "replace")
    escaped = json.dumps(text)[1:-1]
    every = "".join(f"\\u{ord(char):04x}" for char in text)
    found = [secret, escaped.encode(), escaped.replace("/", "\\/").encode(), every.encode()]
    return list(dict.fromkeys(found))


def _scrub(data: bytes, secrets: tuple[bytes, ...]) -> bytes:
    for secret in secrets:
        if secret:
            for spelling in _spellings(secret):
                data = data.replace(spelling, b"<redacted>")
    return data


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def holds_secret(data: bytes, secrets: tuple[bytes, ...]) -> bool:
    """The key is in these bytes, or in any string of them read as JSON, however it is escaped."""
    if not secrets:
        return False
    if any(spelling in data for secret in secrets for spelling in _spellings(secret)):
        return True
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return False
    texts = [secret.decode("utf-8", "replace") for secret in secrets]
    return any(text in string for string in _strings(parsed) for text in texts)


LOBREC_HEADER_PREFIX = "x-lobrec-"


def is_no_response(status: int, headers: Mapping[str, list[str]]) -> bool:
    """lobrec's pseudo-response for "no answer": status 599 *and* lobrec's error header.

    A gateway may itself answer 599; that is an answer (recorded without the error header, which
    lobrec never copies from a gateway) and replays as one.
    """
    return status == NO_RESPONSE_STATUS and bool(headers.get(ERROR_HEADER))


def _failure_response(error: str, elapsed_ms: str) -> dict[str, Any]:
    return {
        "status": {"code": NO_RESPONSE_STATUS, "message": "no response"},
        "headers": {ELAPSED_HEADER: [elapsed_ms], ERROR_HEADER: [error]},
        "body": {"string": b""},
    }


def _raise_recorded_failure(error: str, elapsed_ms: float) -> None:
    kind, _, message = error.partition(": ")
    if kind in (REPLY_TOO_LARGE, REPLY_NOT_TEXT, KEY_IN_REPLY):
        raise GatewayError(message)
    raise TransportFailure(error, elapsed_ms=elapsed_ms)


def _header_list(headers: dict[str, list[str]]) -> list[tuple[bytes, bytes]]:
    """Headers as bytes: httpx would refuse a non-ASCII str (a Latin-1 byte from a gateway)."""
    return [(name.encode(), value.encode()) for name, values in headers.items() for value in values]


def _elapsed(headers: dict[str, list[str]]) -> float:
    """The recorded wall time; a cassette is untrusted, so anything but a finite, non-negative number
    of milliseconds is refused."""
    elapsed = float(headers.get(ELAPSED_HEADER, ["0"])[0])
    if not math.isfinite(elapsed) or elapsed < 0:
        raise ValueError(f"{ELAPSED_HEADER} is {elapsed}, not a duration")
    return elapsed


class CassetteTransport(httpx.AsyncBaseTransport):
    """Record through `inner` into the current cassette, or (inner=None) replay from it."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None,
        *,
        secrets: tuple[str, ...] = (),
        max_reply_bytes: int = MAX_REPLY_BYTES,
        deadline_s: float | None = None,
    ) -> None:
        self.inner = inner
        self.secrets = tuple(secret.encode() for secret in secrets if secret)
        self.max_reply_bytes = max_reply_bytes
        self.deadline_s = deadline_s
        """Whole-exchange limit (connect to last byte): httpx's timeouts are per read, so a body
        trickling in a byte at a time would never time out on them."""

    def _vcr_request(self, request: httpx.Request, body: bytes) -> VcrRequest:
        headers = {
            name: request.headers[name] for name in RECORDED_REQUEST_HEADERS if name in request.headers
        }
        return VcrRequest(request.method, str(request.url), _scrub(body, self.secrets), headers)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        cassette = _current.get(None)
        if cassette is None:
            raise RuntimeError("CassetteTransport used outside transport.using(cassette)")
        body = await request.aread()
        if self.inner is None:
            played = PlaybackRequest(request.method, _scrub(body, self.secrets))
            return self._replay(cassette, played, request)
        if isinstance(cassette, ReplayCassette):
            raise RuntimeError("recording needs a cassette from new_for_recording, not open_for_replay")
        return await self._record(cassette, self._vcr_request(request, body), request)

    def _replay(
        self, cassette: Cassette | ReplayCassette, played: PlaybackRequest, request: httpx.Request
    ) -> httpx.Response:
        if not cassette.can_play_response_for(played):
            raise CassetteMiss(f"{cassette.path}: no recorded answer for this request")
        recorded = cassette.play_response(played)
        try:
            headers = recorded["headers"]
            elapsed = _elapsed(headers)
            if is_no_response(recorded["status"]["code"], headers):
                error = headers[ERROR_HEADER][0]
            else:
                error = None
                content = recorded["body"]["string"]
                if isinstance(content, str):
                    content = content.encode("utf-8")
                # A cassette body is always the decoded text, whatever a header claims.
                response = httpx.Response(
                    recorded["status"]["code"],
                    headers=_header_list(
                        {k: v for k, v in headers.items() if k.lower() not in DECODED_BODY_HEADERS}
                    ),
                    content=content,
                    request=request,
                )
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise CassetteError(f"{cassette.path}: a recorded response cannot be replayed: {exc}") from None
        if error is not None:
            _raise_recorded_failure(error, elapsed)
        return response

    async def _record(
        self, cassette: Cassette, vcr_request: VcrRequest, request: httpx.Request
    ) -> httpx.Response:
        assert self.inner is not None
        start = time.perf_counter()
        try:
            async with asyncio.timeout(self.deadline_s):
                response = await self.inner.handle_async_request(request)
                try:
                    content = await self._read_capped(response)
                finally:
                    await response.aclose()
        except TimeoutError:
            elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
            error = f"{TIMED_OUT}: no complete answer within {self.deadline_s} seconds"
            cassette.append(vcr_request, _failure_response(error, elapsed))
            raise TransportFailure(error, elapsed_ms=float(elapsed)) from None
        except (httpx.TransportError, httpx.DecodingError) as exc:
            elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
            error = f"{type(exc).__name__}: {self._clean(str(exc)) or 'no detail'}"
            cassette.append(vcr_request, _failure_response(error, elapsed))
            raise TransportFailure(error, elapsed_ms=float(elapsed)) from None
        except _TooLarge:
            elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
            error = f"{REPLY_TOO_LARGE}: the reply is over the {self.max_reply_bytes}-byte cap"
            cassette.append(vcr_request, _failure_response(error, elapsed))
            _raise_recorded_failure(error, float(elapsed))
            raise  # unreachable: _raise_recorded_failure always raises
        elapsed = f"{(time.perf_counter() - start) * 1000:.3f}"
        if response.status_code == 200 and holds_secret(content, self.secrets):
            # Scrubbing an answer would change what the model said, and so the verdict: the case
            # is errored instead, and nothing of the answer is kept.
            error = f"{KEY_IN_REPLY}: the gateway's 200 answer contains the API key; it was not recorded"
            cassette.append(vcr_request, _failure_response(error, elapsed))
            _raise_recorded_failure(error, float(elapsed))
        content = _scrub(content, self.secrets)
        if holds_secret(content, self.secrets):  # an error body spelling the key some other way
            content = b"(the body held the API key and was not recorded)"
        try:
            content.decode("utf-8")
        except UnicodeDecodeError:
            # A cassette body is text; bytes that are not UTF-8 would replay differently, so a 200
            # that is not text is recorded as a failure, and another status keeps a readable body.
            if response.status_code == 200:
                error = f"{REPLY_NOT_TEXT}: the gateway's 200 body is not UTF-8 text"
                cassette.append(vcr_request, _failure_response(error, elapsed))
                _raise_recorded_failure(error, float(elapsed))
            content = content.decode("utf-8", "replace").encode("utf-8")
        dropped = set(DROPPED_RESPONSE_HEADERS)
        if "content-encoding" in response.headers:
            dropped.update(DECODED_BODY_HEADERS)
        headers: dict[str, list[str]] = {}
        for name, value in response.headers.multi_items():
            # lobrec's own x-lobrec-* headers are never taken from a gateway: a gateway that sends
            # x-lobrec-error would otherwise pass its answer off as a recorded transport failure.
            if name.lower() not in dropped and not name.lower().startswith(LOBREC_HEADER_PREFIX):
                headers.setdefault(name.lower(), []).append(self._clean(value))
        headers[ELAPSED_HEADER] = [elapsed]
        recorded = {
            "status": {"code": response.status_code, "message": self._clean(response.reason_phrase)},
            "headers": headers,
            "body": {"string": content},
        }
        cassette.append(vcr_request, recorded)
        return httpx.Response(
            response.status_code, headers=_header_list(headers), content=content, request=request
        )

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            for spelling in _spellings(secret):
                text = text.replace(spelling.decode(), "<redacted>")
        return text

    async def _read_capped(self, response: httpx.Response) -> bytes:
        if response.is_stream_consumed:  # an inner transport that read the body (httpx.MockTransport)
            if len(response.content) > self.max_reply_bytes:
                raise _TooLarge
            return response.content
        chunks: list[bytes] = []
        size = 0
        inflate = _Inflater.for_encoding(response.headers.get("content-encoding", ""))
        async for raw in response.aiter_raw():
            for chunk in inflate.feed(raw, self.max_reply_bytes - size + 1):
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise _TooLarge
                chunks.append(chunk)
        return b"".join(chunks)

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()


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

"""Replay's side of the seam: answers straight from a decoded cassette, with no HTTP client.

A rescore is mostly replay, and it used to build an httpx request and response around every
recorded answer; `ReplayExchange` hands the runner the recorded status, headers and body as they
are in the file. It imports neither httpx nor vcrpy (vcrpy still writes every cassette, and
`tests/unit/test_replay_cassette.py` checks that `ReplayCassette` plays as vcrpy's `Cassette` does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import msgspec

from lobrec.cassettes import (
    CASSETTE_FORMAT_VERSION,
    MAX_CASSETTE_BYTES,
    CassetteFile,
    RecordedResponse,
    read_capped,
    refuse_ambiguous,
)
from lobrec.errors import CassetteError, CassetteMiss
from lobrec.exchange import (
    ELAPSED_HEADER,
    ERROR_HEADER,
    Answer,
    is_no_response,
    joined_headers,
    raise_recorded_failure,
)

REPLAY_METHOD = "POST"


class ReplayCassette:
    """A recorded cassette for playback only, built straight from the decoded file.

    It plays as vcrpy's `Cassette` in record mode `none`, matching on method and exact body, with no
    playback repeats: a request gets the first recorded interaction with the same method and body
    that has not been played, each interaction plays once, and anything else is a miss. vcrpy's own
    loading deep-copies every response and re-runs its matchers (with a diff on every mismatch);
    this reads each file once.
    """

    def __init__(self, path: str, interactions: list[tuple[str, bytes | None, RecordedResponse]]) -> None:
        self.path = path
        self._interactions = interactions
        self._unplayed = list(range(len(interactions)))

    @classmethod
    def load(cls, path: Path) -> ReplayCassette:
        """Read and check the file as vcrpy's loading through lobrec's persister does, with the
        same errors."""
        data = read_capped(path, MAX_CASSETTE_BYTES)
        try:
            cassette = _cassette_decoder.decode(data)
            if cassette.version != CASSETTE_FORMAT_VERSION:
                raise ValueError(f"cassette format version {cassette.version}, expected 1")
            interactions = [
                (i.request.method, _request_body(i.request.uri, i.request.body), i.response)
                for i in cassette.interactions
            ]
        except ValueError as exc:  # msgspec's errors are ValueErrors too
            raise _load_error(path, data, exc) from None
        refuse_ambiguous(data, path)
        return cls(str(path), interactions)

    def _find(self, method: str, body: bytes | None) -> int | None:
        for position, index in enumerate(self._unplayed):
            recorded_method, recorded_body, _ = self._interactions[index]
            if recorded_method == method and recorded_body == body:
                return position
        return None

    def play(self, method: str, body: bytes) -> RecordedResponse:
        """The recorded response for this request, played once; a miss raises `CassetteMiss`."""
        position = self._find(method, body)
        if position is None:
            raise CassetteMiss(f"{self.path}: no recorded answer for this request")
        return self._interactions[self._unplayed.pop(position)][2]

    # vcrpy's `Cassette` interface, for the equivalence test against vcrpy.

    def can_play_response_for(self, request: Any) -> bool:
        return self._find(request.method, request.body) is not None

    def play_response(self, request: Any) -> dict[str, Any]:
        """The recorded response as vcrpy hands it out: plain dicts, the body as UTF-8 bytes."""
        response = self.play(request.method, request.body)
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


_cassette_decoder = msgspec.json.Decoder(CassetteFile)


def _load_error(path: Path, data: bytes, exc: ValueError) -> CassetteError:
    """The persister's message: it checks UTF-8 first (here only once decoding failed), then JSON,
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


def open_for_replay(path: Path) -> ReplayCassette:
    """Load a recorded cassette for playback (see `ReplayCassette`): a miss raises."""
    try:
        return ReplayCassette.load(path)
    except CassetteError:
        if not path.exists() and not path.is_symlink():  # asked only on failure: one stat less
            raise CassetteError(f"{path}: no cassette") from None
        raise


MAX_ELAPSED_MS = 24 * 3600 * 1000.0
"""No exchange lobrec records lasts a day (a whole run does not); a larger recorded time is not a
duration but a number planted to overflow the sums built on it (`1e308` twice is `inf`)."""


def recorded_elapsed(headers: Mapping[str, list[str]]) -> float:
    """The recorded wall time (lobrec writes exactly one value); a cassette is untrusted, so anything
    but one finite number of milliseconds from 0 to a day is refused."""
    values = headers.get(ELAPSED_HEADER, ["0"])
    if len(values) != 1:
        raise ValueError(f"{ELAPSED_HEADER} has {len(values)} values, not one")
    elapsed = float(values[0])
    if not math.isfinite(elapsed) or not 0 <= elapsed <= MAX_ELAPSED_MS:
        raise ValueError(f"{ELAPSED_HEADER} is {elapsed}, not a duration")
    return elapsed


class ReplayExchange:
    """The `Exchange` of one case in replay: each request gets its recorded answer, in order."""

    def __init__(self, cassette: ReplayCassette) -> None:
        self.cassette = cassette

    async def send(self, body: bytes) -> Answer:
        recorded = self.cassette.play(REPLAY_METHOD, body)
        try:
            headers = joined_headers(recorded.headers)
            elapsed = recorded_elapsed(recorded.headers)
            if is_no_response(recorded.status.code, recorded.headers):
                raise_recorded_failure(recorded.headers[ERROR_HEADER][0], elapsed)
            # A cassette body is always the decoded text, whatever a content-encoding header claims.
            content = recorded.body.string.encode("utf-8")
        except ValueError as exc:  # a bad number, or text that is not UTF-8
            raise CassetteError(
                f"{self.cassette.path}: a recorded response cannot be replayed: {exc}"
            ) from None
        return Answer(recorded.status.code, headers, content, elapsed)

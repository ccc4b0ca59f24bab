"""Replay's side of the seam: answers straight from a decoded cassette, with no HTTP client.

A rescore is mostly replay, and it used to build an httpx request and response around every
recorded answer; `ReplayExchange` hands the runner the recorded status, headers and body as they
are in the file. It imports neither httpx nor vcrpy, nor anything that could reach a network: replay
is offline because nothing in it can send (vcrpy still writes every cassette, and
`tests/cassette/test_replay_cassette.py` checks that `ReplayCassette` plays as vcrpy's `Cassette` does).
"""

from __future__ import annotations

from pathlib import Path

from lobrec.cassette.format import RecordedResponse, load_cassette_file
from lobrec.cassette.headers import ERROR_HEADER, is_no_response, joined_headers, recorded_elapsed
from lobrec.errors import CassetteError, CassetteMiss
from lobrec.running.exchange import Answer, raise_recorded_failure

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
        """Read the file through the format's one decoder (`lobrec.cassette.format`)."""
        cassette = load_cassette_file(path)
        return cls(
            str(path),
            [
                (
                    i.request.method,
                    None if i.request.body is None else i.request.body.encode("utf-8"),
                    i.response,
                )
                for i in cassette.interactions
            ],
        )

    def find(self, method: str, body: bytes | None) -> int | None:
        """Where the unplayed interaction this request would get stands in the play order, or None."""
        for position, index in enumerate(self._unplayed):
            recorded_method, recorded_body, _ = self._interactions[index]
            if recorded_method == method and recorded_body == body:
                return position
        return None

    def count(self, method: str, body: bytes | None) -> int:
        """How many unplayed interactions this request would still get, one after another."""
        return sum(
            1
            for index in self._unplayed
            if self._interactions[index][0] == method and self._interactions[index][1] == body
        )

    def play(self, method: str, body: bytes | None) -> RecordedResponse:
        """The recorded response for this request, played once; a miss raises `CassetteMiss`."""
        position = self.find(method, body)
        if position is None:
            raise CassetteMiss(f"{self.path}: no recorded answer for this request")
        return self._interactions[self._unplayed.pop(position)][2]


def open_for_replay(path: Path) -> ReplayCassette:
    """Load a recorded cassette for playback (see `ReplayCassette`): a miss raises."""
    try:
        return ReplayCassette.load(path)
    except CassetteError:
        if not path.exists() and not path.is_symlink():  # asked only on failure: one stat less
            raise CassetteError(f"{path}: no cassette") from None
        raise


def replayed_answer(recorded: RecordedResponse) -> Answer:
    """A recorded response as the runner reads it; a recorded failure raises as it did live.
    ValueError when the file holds something replay cannot trust (a bad elapsed time)."""
    headers = joined_headers(recorded.headers)
    elapsed = recorded_elapsed(recorded.headers)
    if is_no_response(recorded.status.code, recorded.headers):
        raise_recorded_failure(recorded.headers[ERROR_HEADER][0], elapsed)
    # A cassette body is always the decoded text, whatever a content-encoding header claims.
    return Answer(recorded.status.code, headers, recorded.body.string.encode("utf-8"), elapsed)


class ReplayExchange:
    """The `Replayer` of one case: each request gets its recorded answer, in order, at once."""

    def __init__(self, cassette: ReplayCassette) -> None:
        self.cassette = cassette

    def attempts(self, body: bytes) -> int:
        return self.cassette.count(REPLAY_METHOD, body)

    def send(self, body: bytes) -> Answer:
        recorded = self.cassette.play(REPLAY_METHOD, body)
        try:
            return replayed_answer(recorded)
        except ValueError as exc:  # a bad number, or text that is not UTF-8
            raise CassetteError(
                f"{self.cassette.path}: a recorded response cannot be replayed: {exc}"
            ) from None

"""`ReplayCassette` (replay's light cassette) plays exactly as vcrpy's `Cassette` did.

The reference is what `open_for_replay` used to return: vcrpy's `Cassette` loaded through lobrec's
serializer and persister, record mode `none`, `MATCH_ON`, no playback repeats. Both are asked the
same requests, in the same order, and must give the same transcript: which requests play, which
response each gets, which miss. The committed fixture cassettes are the main input; a few written
here add what they lack (a retried request recorded three times, a failure, a null body), and
unreadable files must fail with the same message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from vcr.cassette import Cassette
from vcr.record_mode import RecordMode
from vcr.request import Request as VcrRequest

from lobrec.cassette.format import CassetteFile, encode_pretty
from lobrec.cassette.vcrpy import MATCH_ON, MsgspecSerializer, SafePersister
from lobrec.errors import CassetteError
from lobrec.running.playback import ReplayCassette, open_for_replay

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "fixtures" / "cassettes"
MODEL_DIRECTORIES = sorted(path for path in COMMITTED.iterdir() if path.is_dir())

Transcript = list[tuple[str, Any]]


def open_with_vcrpy(path: Path) -> Cassette:
    """The replay cassette as it was before `ReplayCassette`."""
    if not path.exists() and not path.is_symlink():
        raise CassetteError(f"{path}: no cassette")
    return Cassette.load(
        path=str(path),
        serializer=MsgspecSerializer,
        persister=SafePersister,
        record_mode=RecordMode.NONE,
        match_on=MATCH_ON,
    )


class AsVcrpy:
    """`ReplayCassette` asked as vcrpy's `Cassette` is: the interface the transcripts use."""

    def __init__(self, cassette: ReplayCassette) -> None:
        self.cassette = cassette

    def can_play_response_for(self, request: VcrRequest) -> bool:
        return self.cassette.find(request.method, request.body) is not None

    def play_response(self, request: VcrRequest) -> dict[str, Any]:
        """The recorded response as vcrpy hands it out: plain dicts, the body as UTF-8 bytes."""
        response = self.cassette.play(request.method, request.body)
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


def open_light(path: Path) -> AsVcrpy:
    return AsVcrpy(open_for_replay(path))


def recorded_requests(path: Path) -> list[VcrRequest]:
    data = msgspec.json.decode(path.read_bytes(), type=CassetteFile)
    return [
        VcrRequest(i.request.method, i.request.uri, i.request.body, {"content-type": "application/json"})
        for i in data.interactions
    ]


def stranger(method: str, body: bytes) -> VcrRequest:
    return VcrRequest(method, "http://replay.invalid/v1/chat/completions", body, {})


def play(cassette: Cassette | AsVcrpy, requests: list[VcrRequest]) -> Transcript:
    transcript: Transcript = []
    for request in requests:
        if cassette.can_play_response_for(request):
            transcript.append(("played", cassette.play_response(request)))
        else:
            transcript.append(("miss", None))
    return transcript


def scenarios(path: Path) -> dict[str, list[VcrRequest]]:
    """Every recorded request in order, then all again (each plays once), then strangers; and
    every recorded request backwards (a chain's later step before its first)."""
    recorded = recorded_requests(path)
    first_body = recorded[0].body or b""
    strangers = [stranger("POST", b"{}"), stranger("GET", first_body), stranger("POST", first_body + b" ")]
    return {"forward twice": [*recorded, *recorded, *strangers], "backward": recorded[::-1]}


def transcripts(path: Path, opener: Any) -> dict[str, Transcript]:
    return {name: play(opener(path), requests) for name, requests in scenarios(path).items()}


def test_the_committed_cassettes_cover_chains() -> None:
    counts = [len(recorded_requests(path)) for path in COMMITTED.glob("*/*.json") if path.stem != "manifest"]
    assert len(counts) >= 400
    assert max(counts) >= 3


@pytest.mark.parametrize("directory", MODEL_DIRECTORIES, ids=lambda path: path.name)
def test_committed_cassettes_replay_as_vcrpy_replays_them(directory: Path) -> None:
    paths = sorted(path for path in directory.glob("*.json") if path.name != "manifest.json")
    light = {path.name: transcripts(path, open_light) for path in paths}
    reference = {path.name: transcripts(path, open_with_vcrpy) for path in paths}
    assert light == reference
    kinds = {kind for per_file in light.values() for t in per_file.values() for kind, _ in t}
    assert kinds == {"played", "miss"}


def _interaction(body: str | None, status: int, text: str, headers: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "request": {
            "method": "POST",
            "uri": "http://127.0.0.1:9/v1/chat/completions",
            "body": body,
            "headers": {"content-type": ["application/json"]},
        },
        "response": {
            "status": {"code": status, "message": "x"},
            "headers": {"x-lobrec-elapsed-ms": ["1.0"], **headers},
            "body": {"string": text},
        },
    }


HANDMADE: dict[str, list[dict[str, Any]]] = {
    "a retried step: one body recorded three times, played in recorded order": [
        _interaction('{"step":0}', 503, "busy", {}),
        _interaction('{"step":0}', 599, "", {"x-lobrec-error": ["ReadTimeout: slow"]}),
        _interaction('{"step":0}', 200, '{"ok":"Zürich"}', {}),
        _interaction('{"step":1}', 200, '{"ok":1}', {}),
    ],
    "a null body matches no request": [_interaction(None, 200, "{}", {})],
    "no interactions at all": [],
}


@pytest.mark.parametrize("name", list(HANDMADE))
def test_handmade_cassettes_replay_as_vcrpy_replays_them(name: str, tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_bytes(encode_pretty({"version": 1, "interactions": HANDMADE[name]}))
    requests = [
        stranger("POST", b'{"step":1}'),
        *[stranger("POST", b'{"step":0}')] * 4,
        stranger("POST", b'{"step":1}'),
        stranger("POST", b""),
    ]
    assert play(open_light(path), requests) == play(open_with_vcrpy(path), requests)


def test_a_retried_step_plays_each_recorded_attempt_once_in_order(tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_bytes(encode_pretty({"version": 1, "interactions": HANDMADE[next(iter(HANDMADE))]}))
    transcript = play(open_light(path), [stranger("POST", b'{"step":0}')] * 4)
    assert [(kind, response and response["status"]["code"]) for kind, response in transcript] == [
        ("played", 503),
        ("played", 599),
        ("played", 200),
        ("miss", None),
    ]
    assert transcript[2][1]["body"] == {"string": '{"ok":"Zürich"}'.encode()}


UNREADABLE: dict[str, bytes | None] = {
    "missing": None,
    "not JSON": b'{"version": 1, "interactions": [',
    "not UTF-8": b'{"version": 1, "interactions": [], "x": "\xff"}',
    "unknown field": b'{"version": 1, "interactions": [], "extra": 1}',
    "wrong type": b'{"version": "1", "interactions": []}',
    "a URI urlparse refuses": encode_pretty(
        {"version": 1, "interactions": [_interaction("{}", 200, "{}", {})]}
    ).replace(b"http://127.0.0.1:9/", b"http://[::1/"),
}


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_unreadable_files_fail_with_the_same_message(name: str, tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    content = UNREADABLE[name]
    if content is not None:
        path.write_bytes(content)
    messages = []
    for opener in (open_for_replay, open_with_vcrpy):
        with pytest.raises(CassetteError) as caught:
            opener(path)
        messages.append(str(caught.value).replace(str(path), "PATH"))
    assert messages[0] == messages[1]
    assert messages[0].startswith("PATH: ")

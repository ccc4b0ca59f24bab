"""vcrpy's side of the format: its serializer and persister, both through the Structs of `format`.

Live mode records every exchange into a vcrpy `Cassette` (`new_for_recording`); the live path hands
it responses built by `lobrec.cassette.headers` and saves it through `cassette_bytes`, which puts the
cassette through `CassetteFile` before encoding, so nothing but the format reaches a file. Loading
through `SafePersister` is the reference reader the tests hold replay against: it decodes with the
one decoder (`format.decode_cassette`, the same errors) and lets vcrpy build its requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from vcr import serialize as vcr_serialize
from vcr.cassette import Cassette
from vcr.matchers import method, raw_body
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.record_mode import RecordMode
from vcr.request import Request as VcrRequest

from lobrec import files
from lobrec.cassette.format import (
    CassetteFile,
    RecordedResponse,
    decode_cassette,
    encode_pretty,
    load_cassette_file,
)

MATCH_ON = (method, raw_body)
"""Requests match on method and exact body bytes (which hold the model and every message)."""


class MsgspecSerializer:
    """vcrpy serializer: the cassette Structs both ways, pretty JSON out."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        return encode_pretty(msgspec.convert(cassette_dict, CassetteFile)).decode("utf-8")

    @staticmethod
    def deserialize(cassette: str | CassetteFile) -> dict[str, Any]:
        """A cassette's text (or the file `SafePersister` already decoded) as vcrpy's dicts."""
        if isinstance(cassette, str):
            cassette = decode_cassette(cassette.encode("utf-8"), Path("<cassette>"))
        result: dict[str, Any] = msgspec.to_builtins(cassette)
        return result


class SafePersister:
    """vcrpy persister: the one reader (capped, symlink-refusing, errors naming the file); atomic writes."""

    @staticmethod
    def load_cassette(cassette_path: str | Path, serializer: Any) -> tuple[list[Any], list[Any]]:
        path = Path(cassette_path)
        if not path.exists() and not path.is_symlink():
            raise CassetteNotFoundError()
        loaded: tuple[list[Any], list[Any]] = vcr_serialize.deserialize(load_cassette_file(path), serializer)
        return loaded

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        text: str = vcr_serialize.serialize(cassette_dict, serializer)
        files.write_atomic(Path(cassette_path), text.encode("utf-8"))


def new_for_recording(path: Path) -> Cassette:
    """An empty cassette that records every exchange (an older recording is replaced on save)."""
    return Cassette(
        path=str(path),
        serializer=MsgspecSerializer,
        persister=SafePersister,
        record_mode=RecordMode.ALL,
        match_on=MATCH_ON,
    )


def record(cassette: Cassette, request: VcrRequest, response: RecordedResponse) -> None:
    """Append one exchange to a recording, the response as the format describes it."""
    cassette.append(request, msgspec.to_builtins(response))


def cassette_bytes(cassette: Cassette) -> bytes:
    """The file a recording is saved as, through vcrpy's serializer."""
    cassette_dict = {"requests": cassette.requests, "responses": cassette.responses}
    text: str = vcr_serialize.serialize(cassette_dict, MsgspecSerializer)
    return text.encode("utf-8")


def save(cassette: Cassette) -> None:
    files.write_atomic(Path(cassette.path), cassette_bytes(cassette))

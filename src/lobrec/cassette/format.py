"""The cassette and manifest files: their Structs, the one decoder, the one encoder.

A cassette keeps vcrpy's layout (`{"version": 1, "interactions": [...]}`), read strictly: unknown
fields are errors, a file is capped in size and never read through a symlink, and every failure is
a `CassetteError` naming the file (vcrpy's own loader would treat an undecodable cassette as empty
and silently re-record over it). Every reader (replay, audit, vcrpy's persister, tests) decodes
through `decode_cassette` or `decode_manifest`, so a file is refused with the same words everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import msgspec

from lobrec import files
from lobrec.core.judge.jsonvalue import duplicate_key
from lobrec.errors import CassetteError

MAX_CASSETTE_BYTES = 16 * 1024 * 1024
"""A cassette larger than this is refused unread (a reply is capped well below it)."""
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
CASSETTE_FORMAT_VERSION = 1


class _Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class RecordedRequest(_Strict):
    method: str
    uri: str
    body: str | None
    headers: dict[str, list[str]]


class Status(_Strict):
    code: int
    message: str


class Body(_Strict):
    string: str


class RecordedResponse(_Strict):
    status: Status
    headers: dict[str, list[str]]
    body: Body


class Interaction(_Strict):
    request: RecordedRequest
    response: RecordedResponse


class CassetteFile(_Strict):
    version: int
    interactions: list[Interaction]


class ManifestCase(_Strict):
    fingerprint: str


class ManifestSuite(_Strict):
    name: str
    version: str


class Manifest(_Strict):
    model: str
    suite: ManifestSuite
    lobrec_version: str
    started_at: str
    finished_at: str | None = None
    cases: dict[str, ManifestCase] = {}


_cassette_decoder = msgspec.json.Decoder(CassetteFile)
_manifest_decoder = msgspec.json.Decoder(Manifest)
_encoder = msgspec.json.Encoder()
T = TypeVar("T")


def encode_pretty(value: Any) -> bytes:
    """A cassette or manifest as it is written: indented JSON, one trailing newline."""
    return _pretty(_encoder.encode(value))


def _pretty(compact: bytes) -> bytes:
    return msgspec.json.format(compact, indent=2) + b"\n"


def encoded(value: Any) -> bytes:
    """Compact JSON, for hashing (fingerprints)."""
    return _encoder.encode(value)


def read_capped(path: Path, limit: int = MAX_CASSETTE_BYTES) -> bytes:
    """Read a cassette or manifest: a regular file, never through a symlink, at most `limit` bytes."""
    return files.read_capped(path, limit, "cassette", CassetteError)


def _decode(decoder: msgspec.json.Decoder[T], data: bytes, path: Path, kind: str) -> T:
    """The one mapping of msgspec's errors: UTF-8 first, then JSON, then the shape."""
    try:
        return decoder.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise _refusal(path, data, kind, exc) from None


def _as_written(value: msgspec.Struct, data: bytes) -> bool:
    """Whether `data` is byte for byte what lobrec writes for `value` (indented, or compact as
    `encoded`): an encoding of a Struct spells no key twice, so such a file needs no key-by-key
    reading, which would take longer than decoding it (0.3 s of a 100-model rescore)."""
    compact = _encoder.encode(value)
    if data.startswith(b"{\n"):
        return _pretty(compact) == data
    return compact == data


def _refuse_ambiguous(value: msgspec.Struct, data: bytes, path: Path) -> None:
    """A repeated key would let a first-key reader (another tool) see what lobrec does not."""
    if _as_written(value, data):
        return
    repeated = duplicate_key(data)
    if repeated is not None:
        raise CassetteError(f"{path}: ambiguous JSON: {repeated}")


def _refusal(path: Path, data: bytes, kind: str, exc: Exception) -> CassetteError:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return CassetteError(f"{path}: not UTF-8 text")
    if isinstance(exc, msgspec.ValidationError):
        return CassetteError(f"{path}: not a {kind}: {exc}")
    return CassetteError(f"{path}: not valid JSON: {exc}")


def decode_cassette(data: bytes, path: Path) -> CassetteFile:
    """A cassette file's bytes as the Struct; CassetteError naming `path` for anything else,
    another format version and a request URI that does not parse included."""
    cassette = _decode(_cassette_decoder, data, path, "cassette")
    try:
        if cassette.version != CASSETTE_FORMAT_VERSION:
            raise ValueError(
                f"cassette format version {cassette.version}, expected {CASSETTE_FORMAT_VERSION}"
            )
        for interaction in cassette.interactions:
            urlparse(interaction.request.uri)  # as vcrpy's Request does when it reads one
    except ValueError as exc:
        raise CassetteError(f"{path}: not a cassette: {exc}") from None
    _refuse_ambiguous(cassette, data, path)
    return cassette


def decode_manifest(data: bytes, path: Path) -> Manifest:
    manifest = _decode(_manifest_decoder, data, path, "manifest")
    _refuse_ambiguous(manifest, data, path)
    return manifest


def load_cassette_file(path: Path) -> CassetteFile:
    return decode_cassette(read_capped(path), path)

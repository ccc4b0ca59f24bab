"""A repeated key is refused however the file is written, and a file exactly as lobrec writes it
(`format._as_written`: proven free of repeated keys without reading it key by key) reads as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cassette.format import decode_cassette, decode_manifest, encode_pretty, encoded
from lobrec.errors import CassetteError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "fake%2Falpha"
CASSETTES = sorted(path for path in FIXTURES.glob("*.json") if path.name != "manifest.json")[:6]


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every object `value` holds, itself included, in document order (as `_written` counts them)."""
    if isinstance(value, dict):
        return [value, *(found for item in value.values() for found in _objects(item))]
    if isinstance(value, list):
        return [found for item in value for found in _objects(item)]
    return []


def _written(value: Any, repeat_in: int | None, indent: bool) -> str:
    """`value` as JSON, the first member of the `repeat_in`-th object (in document order) written twice."""
    counter = [0]
    gap = "\n" if indent else ""

    def write(item: Any) -> str:
        if isinstance(item, list):
            return "[" + ",".join(write(element) for element in item) + "]"
        if not isinstance(item, dict):
            return json.dumps(item)
        index, counter[0] = counter[0], counter[0] + 1
        members = [f"{gap}{json.dumps(key)}: {write(element)}" for key, element in item.items()]
        if index == repeat_in and item:
            members.insert(0, members[0])  # the same value twice: still two readings of one file
        return "{" + ",".join(members) + gap + "}"

    return write(value)


@given(which=st.sampled_from(CASSETTES), indent=st.booleans(), data=st.data())
def test_a_repeated_key_is_refused_in_any_object(which: Path, indent: bool, data: st.DataObject) -> None:
    value = json.loads(which.read_bytes())
    objects = _objects(value)
    repeat_in = data.draw(st.none() | st.integers(0, len(objects) - 1))
    text = _written(value, repeat_in, indent).encode()
    if repeat_in is None or not objects[repeat_in]:
        assert decode_cassette(text, which) == decode_cassette(which.read_bytes(), which)
    else:
        with pytest.raises(CassetteError, match=r"ambiguous JSON: the key .* appears more than once"):
            decode_cassette(text, which)


@pytest.mark.parametrize("which", CASSETTES[:2])
@pytest.mark.parametrize("form", [encode_pretty, encoded])
def test_a_file_as_lobrec_writes_it_reads_the_same_compact_or_indented(which: Path, form: Any) -> None:
    cassette = decode_cassette(which.read_bytes(), which)
    assert decode_cassette(form(cassette), which) == cassette


def test_a_manifest_with_a_repeated_key_is_refused_compact_or_indented() -> None:
    manifest = decode_manifest((FIXTURES / "manifest.json").read_bytes(), FIXTURES)
    compact = encoded(manifest)
    assert decode_manifest(compact, FIXTURES) == manifest
    repeated = compact.replace(b'{"', b'{"cases":{},"', 1)
    with pytest.raises(CassetteError, match="the key 'cases' appears more than once"):
        decode_manifest(repeated, FIXTURES)
    with pytest.raises(CassetteError, match="the key 'cases' appears more than once"):
        decode_manifest(msgspec.json.format(repeated, indent=2) + b"\n", FIXTURES)

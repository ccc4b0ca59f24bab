"""The build-time translations of the shipped patterns (`lobrec.translations`): today's translator's,
complete, and only ever a shortcut to the same compiled pattern."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from lobrec.core.suite import ecma, jsonschema
from lobrec.suite_file import load_suite
from lobrec.translations import (
    FILE_NAME,
    encode_translations,
    read_translations,
    remember_bundled,
    translator_fingerprint,
)
from tests.support.scriptfiles import load_script

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "suite" / FILE_NAME


@pytest.fixture(autouse=True)
def _fresh_translations() -> Iterator[None]:
    """Each test starts, and leaves the worker, without translations remembered by another."""
    ecma.forget_translations()
    remember_bundled.cache_clear()
    yield
    ecma.forget_translations()
    remember_bundled.cache_clear()


def test_the_kept_file_is_what_todays_translator_makes_of_every_shipped_suite() -> None:
    build = load_script("suite/build.py", "suite_build")
    made = build.translations((ROOT / "suite" / "suite.json").read_bytes())
    assert KEPT.read_bytes() == made, "stale: run python suite/build.py"
    assert read_translations(KEPT) is not None


def test_every_pattern_a_run_compiles_is_kept() -> None:
    kept = read_translations(KEPT)
    assert kept is not None
    ecma.forget_translations()
    jsonschema.forget_compiled()
    for path in [ROOT / "suite" / "suite.json", *sorted((ROOT / "suite" / "history").glob("*.json"))]:
        load_suite(path)
    assert set(ecma.translations()) <= set(kept)
    assert any(not ignore_case for _, ignore_case in kept)  # schema patterns as well as checks'


def test_loading_a_suite_hands_compile_ecma_every_kept_translation() -> None:
    """What makes a run fast: `load_suite` gives the kept translations to `compile_ecma` (those of
    the kept suite versions too, which loading this suite alone would never translate)."""
    kept = read_translations(KEPT)
    assert kept is not None
    load_suite(ROOT / "suite" / "suite.json")
    assert set(ecma.translations()) == set(kept)


def test_a_kept_translation_compiles_to_the_pattern_a_fresh_one_does() -> None:
    kept = read_translations(KEPT)
    assert kept is not None
    texts = ["", "15:00", "3 pm", "2026-10-21T15:00:00Z", "ſ", "K", "quarter past three", "a\u2028b"]
    for (pattern, ignore_case), translation in list(kept.items())[:40]:
        ecma.forget_translations()
        fresh = ecma.compile_ecma(pattern, ignore_case=ignore_case)
        assert ecma.translations()[pattern, ignore_case] == translation
        ecma.forget_translations()
        ecma.remember_translations({(pattern, ignore_case): translation})
        remembered = ecma.compile_ecma(pattern, ignore_case=ignore_case)
        assert [remembered.search(text) for text in texts] == [fresh.search(text) for text in texts]


def test_a_file_from_another_translator_is_not_used(tmp_path: Path) -> None:
    pattern = "^a+$"
    ecma.compile_ecma(pattern)
    other = msgspec.json.decode(encode_translations(ecma.translations()))
    other["translator"] = "0" * 64
    # a doctored translation under a stale fingerprint: were it used, "b" would match
    other["patterns"][0][2][0][0][1] = "^b+$"
    path = tmp_path / FILE_NAME
    path.write_bytes(msgspec.json.encode(other))
    assert read_translations(path) is None
    other["translator"] = translator_fingerprint()
    path.write_bytes(msgspec.json.encode(other))
    found = read_translations(path)
    assert found is not None and found[pattern, False].alternatives[0].core == "^b+$"


@pytest.mark.parametrize("content", [b"", b"{", b'{"translator": 1, "patterns": []}', b"[]"])
def test_an_unreadable_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(content)
    assert read_translations(path) is None
    assert read_translations(tmp_path / "absent.json") is None

"""The `lobrec-ascii` error handler (`reports._text.ascii_fallback`): any text can be written to an
ASCII or Latin-1 terminal, what the encoding has stays as it is, and each of lobrec's symbols has
an ASCII spelling (one character where it sits in a table cell)."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.reports._text import ASCII_FALLBACK, ASCII_SYMBOLS, ascii_fallback

codecs.register_error(ASCII_FALLBACK, ascii_fallback)

CELL_MARKS = "↓▼▲↺✓✗—·•"
"""Marks that stand alone in table cells: one character each, so columns stay aligned."""


@given(st.text())
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_any_text_is_written_and_what_the_encoding_has_is_kept(encoding: str, text: str) -> None:
    written = text.encode(encoding, ASCII_FALLBACK)
    if encoding == "ascii":
        assert written.isascii()
    kept = [char for char in text if char.encode(encoding, "ignore")]
    assert all(char in written.decode(encoding) for char in kept)


@given(st.text(alphabet="".join(ASCII_SYMBOLS)))
def test_every_symbol_has_its_ascii_spelling(text: str) -> None:
    assert text.encode("ascii", ASCII_FALLBACK).decode() == "".join(ASCII_SYMBOLS[char] for char in text)


def test_cell_marks_are_one_character_and_other_characters_are_spelled_out() -> None:
    assert all(len(ASCII_SYMBOLS[mark]) == 1 for mark in CELL_MARKS)
    assert "café ①\U0001f600".encode("ascii", ASCII_FALLBACK) == b"caf\\xe9 \\u2460\\U0001f600"

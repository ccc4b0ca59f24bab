"""`too_deep` (the depth guard every file reader runs before a parser) gives what the careful scan
gives: the fast path (strings cut out, levels counted in C) never changes the answer."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from lobrec.core.judge.jsonvalue import _first_too_deep, too_deep

# Texts made of what the scan cares about: brackets, quotes, escapes, and other bytes.
pieces = st.sampled_from(
    [b"[", b"]", b"{", b"}", b'"', b"\\", b'\\"', b"\\\\", b"a", b",", b"\xc3\xa9", b"\n"]
)
texts = st.lists(pieces, max_size=60).map(b"".join)


@given(text=texts, limit=st.integers(min_value=0, max_value=6))
@example(text=b'["\\"[[["]', limit=1)  # brackets inside a string with an escaped quote
@example(text=b'[[["x\\"]]]"]]]', limit=2)
@example(text=b'["a\\', limit=0)  # a string that never closes, ending in a lone backslash
def test_the_fast_depth_guard_agrees_with_the_scan(text: bytes, limit: int) -> None:
    assert too_deep(text, limit) == _first_too_deep(text, limit)

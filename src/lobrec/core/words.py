"""Counts in words, so every message agrees in number: `1 case`, `2 cases`, `0 cases`."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, plural unless the count is one (`plural` for irregular nouns)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"

"""The exit codes, for the commands: they live in `lobrec.exits` (a leaf the errors use too)."""

from __future__ import annotations

from lobrec.exits import Exit

__all__ = ["Exit"]

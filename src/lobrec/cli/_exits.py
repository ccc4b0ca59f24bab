"""The exit codes of every `lobrec` command (documented in the README), and which one wins."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    """Exit codes (documented in the README)."""

    OK = 0
    BELOW_THRESHOLD = 1
    BAD_INPUT = 2
    GATEWAY = 3
    INCOMPLETE = 4
    ERRORED = 5
    INTERRUPTED = 130


GATE_ORDER = (Exit.GATEWAY, Exit.ERRORED, Exit.INCOMPLETE, Exit.BELOW_THRESHOLD)
"""When several gates fail, the first of these wins: the less of a model was judged, the more its
code says (no score at all, then cases that errored, then cases out of date, then a low score)."""

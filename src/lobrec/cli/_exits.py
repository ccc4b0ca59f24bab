"""The exit codes of every `lobrec` command (documented in the README)."""

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

"""The exit codes of every `lobrec` command (documented in the README).

A leaf (it imports nothing of lobrec): `lobrec.errors` gives each error type its code from here
without importing the CLI; `lobrec.cli` re-exports `Exit`."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    """Exit codes (documented in the README)."""

    OK = 0
    BELOW_THRESHOLD = 1
    BAD_INPUT = 2
    GATEWAY = 3
    """A model with not one judged case (the gateway could not be used, or nothing could be read)."""
    INCOMPLETE = 4
    """Stale or unrecorded cases (`--allow-stale`), or a folder a record is still writing."""
    ERRORED = 5
    UNREADABLE = 6
    """Cassettes or manifests that cannot be read (`--allow-unreadable`)."""
    OTHER_MAJOR = 7
    """Recordings of another major suite version than the judging one (`--allow-other-major`)."""
    NOT_STARTED = 8
    """Cases a `record` did not start: `--max-cost` reached, a model failed fast (`--allow-unstarted`)."""
    INTERRUPTED = 130

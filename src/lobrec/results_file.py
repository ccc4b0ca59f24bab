"""Reading a results file from disk, for the commands that compare them (`diff`, `history`).

The one rule for how much is read and what a file that is not results says: a results file is
refused unread over `MAX_RESULTS_BYTES`, read only if it is a regular file (a FIFO or device could
hang the command), and decoded strictly; every error is one line naming the file.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from lobrec.core.results import RunResult, decode_results
from lobrec.errors import LobrecError
from lobrec.files import read_capped

MAX_RESULTS_BYTES = 64 * 1024 * 1024
"""A results file larger than this is refused unread: a case keeps at most `MAX_CASE_BYTES` in it."""


def read_results(path: Path) -> RunResult:
    """The results file at `path`; LobrecError (one line naming it) when it cannot be read or is
    not a lobrec results file."""
    data = read_capped(path, MAX_RESULTS_BYTES, "results file", LobrecError, follow=True)
    try:
        return decode_results(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise LobrecError(f"{path}: not a lobrec results file: {exc}") from None

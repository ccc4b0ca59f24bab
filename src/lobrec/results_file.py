"""Reading a results file written by `--json` (`diff` compares two, a program may read one): capped
in size, and every failure one LobrecError line naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.errors import LobrecError

if TYPE_CHECKING:
    from lobrec.core.results import RunResult

MAX_RESULTS_BYTES = 64 * 1024 * 1024
"""A results file larger than this is refused unread: a case keeps at most `MAX_CASE_BYTES` in it."""


def read_results(path: Path) -> RunResult:
    """A results file; raises LobrecError in one line naming it when it cannot be read or is not a
    lobrec results file."""
    import msgspec

    from lobrec.core.results import decode_results
    from lobrec.files import read_capped

    data = read_capped(path, MAX_RESULTS_BYTES, "results file", LobrecError, follow=True)
    try:
        return decode_results(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise LobrecError(f"{path}: not a lobrec results file: {exc}") from None

"""Reading a results file written by `--json` (`diff` compares two, a program may read one): capped
in size, and every failure one LobrecError line naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.errors import LobrecError

if TYPE_CHECKING:
    from lobrec.core.metrics.results import RunResult

MAX_RESULTS_BYTES = 64 * 1024 * 1024
"""A results file larger than this is refused unread: a case keeps at most `MAX_CASE_BYTES` in it."""


def read_results(path: Path) -> RunResult:
    """A results file; raises LobrecError in one line naming it when it cannot be read or is not a
    lobrec results file."""
    import msgspec

    from lobrec.core.metrics.results import decode_results
    from lobrec.files import read_capped

    data = read_capped(path, MAX_RESULTS_BYTES, "results file", LobrecError, follow=True)
    try:
        run = decode_results(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        _refuse_newer(path, _written_format(data))
        raise LobrecError(f"{path}: not a lobrec results file: {exc}") from None
    _refuse_newer(path, run.results_format)
    return run


def _written_format(data: bytes) -> int | None:
    """The `results_format` a file that does not decode says it has, if it says one."""
    import msgspec

    from lobrec.core.judge.jsonvalue import too_deep
    from lobrec.core.metrics.results import MAX_RESULTS_DEPTH

    class Format(msgspec.Struct):
        results_format: int | None = None

    if too_deep(data, MAX_RESULTS_DEPTH) is not None:
        return None
    try:
        return msgspec.json.decode(data, type=Format).results_format
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


def _refuse_newer(path: Path, found: int | None) -> None:
    """A file of a newer results format may mean what this lobrec cannot know: refused, neither
    read as ours nor called "not a results file"."""
    from lobrec.core.metrics.results import RESULTS_FORMAT

    if found is not None and found > RESULTS_FORMAT:
        raise LobrecError(
            f"{path}: results format {found}, written by a newer lobrec; this one reads format "
            f"{RESULTS_FORMAT}: upgrade lobrec to read it"
        )

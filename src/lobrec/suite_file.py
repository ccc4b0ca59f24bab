"""Reading the suite from disk: the one place the suite touches the file system."""

from __future__ import annotations

from pathlib import Path

from lobrec.core.suite import Suite, decode_suite
from lobrec.errors import SuiteError
from lobrec.files import read_capped

DEFAULT_SUITE = Path("suite/suite.json")
MAX_SUITE_BYTES = 16 * 1024 * 1024
"""A suite file larger than this is refused unread (the 80-case suite is under 0.5 MB)."""


def default_suite_path() -> Path:
    """`suite/suite.json` in the working directory, else the copy inside the source checkout."""
    if DEFAULT_SUITE.is_file():
        return DEFAULT_SUITE
    return Path(__file__).resolve().parents[2] / "suite" / "suite.json"


def load_suite(path: str | Path | None = None) -> Suite:
    """Load and strictly decode a suite file; every error names the file.

    Only a regular file is read (through a symlink the user named, but never a FIFO or device, which
    could hang the command), and never one over `MAX_SUITE_BYTES`.
    """
    suite_path = Path(path) if path is not None else default_suite_path()
    data = read_capped(suite_path, MAX_SUITE_BYTES, "suite file", SuiteError, follow=True)
    return decode_suite(data, str(suite_path))

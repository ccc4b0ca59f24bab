"""Reading the suite from disk: the one place the suite touches the file system."""

from __future__ import annotations

from pathlib import Path

from lobrec.core.suite import Suite, decode_suite
from lobrec.errors import SuiteError

DEFAULT_SUITE = Path("suite/suite.json")


def default_suite_path() -> Path:
    """`suite/suite.json` in the working directory, else the copy inside the source checkout."""
    if DEFAULT_SUITE.is_file():
        return DEFAULT_SUITE
    return Path(__file__).resolve().parents[2] / "suite" / "suite.json"


def load_suite(path: str | Path | None = None) -> Suite:
    """Load and strictly decode a suite file; every error names the file."""
    suite_path = Path(path) if path is not None else default_suite_path()
    try:
        data = suite_path.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{suite_path}: cannot read the suite file: {exc.strerror or exc}") from None
    return decode_suite(data, str(suite_path))

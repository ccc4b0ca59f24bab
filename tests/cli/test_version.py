"""`lobrec --version` names lobrec's version and the bundled suite's, or says why it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec import __version__
from lobrec.cli import app
from lobrec.suite_file import default_suite_path, read_suite


def test_version_names_the_bundled_suite() -> None:
    suite = read_suite()
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0
    assert done.output == (
        f"lobrec {__version__}, suite {suite.name} {suite.version} (bundled: {default_suite_path()})\n"
    )


def test_version_without_a_bundled_suite_says_to_pass_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("lobrec.suite_file.default_suite_path", lambda: tmp_path / "suite.json")
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code != 0
    assert done.output.startswith(f"lobrec {__version__}\n")
    assert "installed without its suite, pass --suite FILE" in done.output

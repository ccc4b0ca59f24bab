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


@pytest.mark.process
@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_start_up_loads_neither_the_suite_code_nor_the_judge(args: list[str]) -> None:
    """`--version` and `--help` name things; they need not import the suite's Structs, the schema
    validator, the regex translation or msgspec (bench/ measures the time; this keeps the imports
    out)."""
    import subprocess
    import sys

    code = (
        "import sys; from lobrec.cli import main; sys.argv = ['lobrec', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in sys.modules if m in "
        "('lobrec.core.suite.format', 'lobrec.core.suite.jsonschema', 'lobrec.core.suite.ecma',"
        " 'lobrec.core.judge.step', 'httpx', 'msgspec'))\n"
        "print('HEAVY', heavy, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    assert "HEAVY []" in done.stderr, done.stderr

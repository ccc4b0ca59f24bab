"""A terminal-only rescore loads no template engine: jinja2 is for the files that need it (HTML,
the job summary), and loading it costs a rescore as much as judging a model (bench/ measures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"


def _loaded(args: list[str]) -> str:
    code = (
        "import sys; from lobrec.cli import main; sys.argv = ['lobrec', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('JINJA', 'jinja2' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    return done.stderr


@pytest.mark.process
def test_a_terminal_rescore_does_not_load_jinja2() -> None:
    assert "JINJA False" in _loaded(["rescore", str(FIXTURES), "--allow-stale", "--jobs", "1"])


@pytest.mark.process
def test_a_rescore_writing_a_summary_loads_it(tmp_path: Path) -> None:
    """The test above can fail: the same run with `--summary` does load jinja2."""
    args = ["rescore", str(FIXTURES), "--allow-stale", "--jobs", "1", "--summary", str(tmp_path / "s.md")]
    assert "JINJA True" in _loaded(args)

"""Every percentage option takes `80` and `80%` alike; anything else is one line naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "fixtures" / "cassettes"


def rescore(*extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["rescore", str(ORACLE), "--jobs", "1", *extra])
    return result.exit_code, result.stderr


@pytest.mark.parametrize("value", ["80", "80%", " 80 % ", "80.0%"])
def test_fail_under_takes_a_number_with_or_without_a_percent_sign(value: str) -> None:
    code, stderr = rescore("--fail-under", value)
    assert code == 1, stderr  # four fixture models score under 80%
    (line,) = [line for line in stderr.splitlines() if "gate failed" in line]
    assert line.startswith("lobrec: gate failed: overall score below 80%: ")


@pytest.mark.parametrize("value", ["101", "-1", "abc", "%", "nan", "inf%"])
def test_a_bad_percentage_is_one_line_naming_the_option(value: str) -> None:
    code, stderr = rescore("--fail-under", value)
    assert code == 2
    assert stderr == f"lobrec: --fail-under {value!r}: expected a percentage from 0 to 100 (80 or 80%)\n"


def test_max_errored_takes_a_percent_sign_too() -> None:
    code, stderr = rescore("--max-errored", "5%")
    assert code == 0, stderr


@pytest.mark.parametrize("value", ['"80%"', '"80"', "80", "80.0"])
def test_fail_under_in_the_config_file_takes_a_percent_sign_too(tmp_path: Path, value: str) -> None:
    """`fail-under = "80%"` in `[tool.lobrec]` means what `--fail-under 80%` means."""
    (tmp_path / ".git").mkdir()  # the project's root: the search for settings stops here
    (tmp_path / "pyproject.toml").write_text(f"[tool.lobrec]\nfail-under = {value}\n", encoding="utf-8")
    result = run_lobrec(["rescore", ORACLE, "--jobs", "1"], cwd=tmp_path, text=True)
    assert result.returncode == 1, result.stderr
    assert "lobrec: gate failed: overall score below 80%: " in result.stderr


def test_a_bad_fail_under_in_the_config_file_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.lobrec]\nfail-under = "8x0%"\n', encoding="utf-8")
    result = run_lobrec(["rescore", ORACLE, "--jobs", "1"], cwd=tmp_path, text=True)
    assert (result.returncode, result.stderr) == (
        2,
        f"lobrec: {config}: [tool.lobrec]: fail-under: '8x0%': "
        "expected a percentage from 0 to 100 (80 or 80%)\n",
    )

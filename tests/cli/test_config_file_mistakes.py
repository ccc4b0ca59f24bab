"""The configuration file (`[tool.lobrec]`, `lobrec.toml`) against the mistakes a project makes:
an empty base URL, a `tool` key that is not a table, a report sent to stdout by the file and by the
command line at once, a folder removed under the shell. Each runs the real command.

No test sends anything anywhere: the gateway URLs are loopback ports nothing listens on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import cli_env, run_lobrec

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "fixtures" / "cassettes"
NOWHERE = "http://127.0.0.1:9/v1"
"""The discard port on loopback: nothing answers, nothing leaves the machine."""

BAD_URL_MESSAGE = "base URL '' is not an http(s) URL with a valid host and port"


def test_an_empty_base_url_in_the_file_is_refused_not_replaced_by_the_default(tmp_path: Path) -> None:
    """`base-url = ""` used to be reported by `lobrec config` as in force while `record` sent the
    key to the built-in remote API: refused by both in one line naming the file and key."""
    config = tmp_path / "lobrec.toml"
    config.write_text('base-url = ""\nmodels = ["m"]\n', encoding="utf-8")
    expected = f"lobrec: {config}: base-url: {BAD_URL_MESSAGE}\n"
    shown = run_lobrec(["config"], cwd=tmp_path)
    assert (shown.returncode, shown.stderr.decode()) == (2, expected)
    key = "sk-test-0123456789abcdef"
    done = run_lobrec(["record"], cwd=tmp_path, env=cli_env(LOBSTACK_API_KEY=key, LOBSTACK_BASE_URL=NOWHERE))
    assert (done.returncode, done.stderr.decode()) == (2, expected)
    assert not (tmp_path / "cassettes").exists()


def test_an_empty_base_url_option_is_refused_not_replaced(tmp_path: Path) -> None:
    """`--base-url ""` (an unset shell variable) used to fall through to LOBSTACK_BASE_URL or the
    remote default; the option given is the option used, so it is refused in one line."""
    env = cli_env(LOBSTACK_BASE_URL=NOWHERE)
    args = ["record", "--model", "m", "--base-url", "", "--retry-delays", "0"]
    done = run_lobrec(args, cwd=tmp_path, env=env)
    assert (done.returncode, done.stderr.decode()) == (2, f"lobrec: {BAD_URL_MESSAGE}\n")
    assert not (tmp_path / "cassettes").exists()


@pytest.mark.parametrize(
    "text",
    ['tool = "lobrec"\n', "tool = 5\n", 'tool = ["lobrec"]\n'],
    ids=["tool is a string holding lobrec", "tool is a number", "tool is a list holding lobrec"],
)
def test_a_pyproject_whose_tool_is_not_a_table_is_passed_over(tmp_path: Path, text: str) -> None:
    """Such a pyproject holds no `[tool.lobrec]`: passed over like any other (it was a traceback)."""
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    done = run_lobrec(["config", "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert json.loads(done.stdout)["file"] is None


def test_two_reports_to_stdout_name_the_file_that_set_one(tmp_path: Path) -> None:
    """`json = "-"` in the file and `--markdown -` given: the error says the file set --json (the
    user never typed it)."""
    config = tmp_path / "lobrec.toml"
    config.write_text('json = "-"\ncassettes = "cassettes"\n', encoding="utf-8")
    done = run_lobrec(["rescore", "--markdown", "-"], cwd=tmp_path)
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: --json (set in {config}) and --markdown all write to stdout (-); "
        "give all but one of them a file name\n",
    )


def test_a_report_folder_set_in_the_file_names_the_file(tmp_path: Path) -> None:
    """`html = "out"` where out is a folder: refused before recording, naming the file that set it."""
    (tmp_path / "out").mkdir()
    config = tmp_path / "lobrec.toml"
    config.write_text(f'html = "out"\nmodels = ["m"]\nbase-url = "{NOWHERE}"\n', encoding="utf-8")
    done = run_lobrec(["record"], cwd=tmp_path)
    out = tmp_path / "out"
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: --html {out} (set in {config}): is a folder; give the report a file name "
        f"(e.g. {out / 'report.html'})\n",
    )


@pytest.fixture
def removed_folder(tmp_path: Path) -> Iterator[Path]:
    gone = tmp_path / "gone"
    gone.mkdir()
    yield gone
    if gone.exists():
        os.rmdir(gone)


@pytest.mark.process
@pytest.mark.parametrize("command", ["config", "rescore"], ids=["config", "rescore"])
def test_a_removed_current_folder_is_one_line(removed_folder: Path, command: str) -> None:
    """The shell's folder deleted under it: the configuration search cannot start, so one line
    says so, exit 2 (it was a FileNotFoundError traceback in every command that reads the file)."""
    script = f"import os, sys; os.chdir({str(removed_folder)!r}); os.rmdir({str(removed_folder)!r}); "
    script += "from lobrec.cli import main; sys.argv = ['lobrec', *sys.argv[1:]]; main()"
    args = [command] if command == "config" else [command, str(CASSETTES)]
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, env=cli_env(), timeout=120, check=False
    )
    assert (done.returncode, done.stderr.decode()) == (
        2,
        "lobrec: the current folder no longer exists (removed while the shell was in it); "
        "cd to a folder that exists\n",
    )


def test_rescore_names_the_file_that_set_a_report_it_cannot_write(tmp_path: Path) -> None:
    """rescore writes the reports it can and names the file that set the one it cannot."""
    (tmp_path / "out").mkdir()
    shutil.copytree(CASSETTES, tmp_path / "cassettes")  # a path in the file stays inside its folder
    config = tmp_path / "lobrec.toml"
    config.write_text('html = "out"\njson = "results.json"\ncassettes = "cassettes"\n', encoding="utf-8")
    done = run_lobrec(["rescore"], cwd=tmp_path)
    out = tmp_path / "out"
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[0] == (
        f"lobrec: --html {out} (set in {config}): is a folder; give the report a file name "
        f"(e.g. {out / 'report.html'})"
    )
    assert (tmp_path / "results.json").is_file()


@pytest.mark.parametrize("command", ["history", "diff", "audit"], ids=["history", "diff", "audit"])
def test_commands_that_read_no_file_run_beside_a_broken_one(tmp_path: Path, command: str) -> None:
    """docs/config.md: audit, diff and history read no configuration file, so a broken one in the
    folder does not stop them (while `lobrec config` refuses it)."""
    (tmp_path / "lobrec.toml").write_text("concurency = 3\n", encoding="utf-8")
    expected = str(ROOT / "fixtures" / "expected-results.json")
    args = {
        "history": ["history", expected, expected],
        "diff": ["diff", expected, expected, "--model", "auto"],
        "audit": ["audit", str(CASSETTES)],
    }[command]
    done = run_lobrec(args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert run_lobrec(["config"], cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_config_never_prints_credentials_in_the_base_url(tmp_path: Path, as_json: bool) -> None:
    """LOBSTACK_BASE_URL holding a user, password or query (which `record` refuses): `lobrec config`
    shows it masked as every message does, so a CI log of it leaks nothing."""
    url = "https://someone:hunter2-secret@gw.example.test/v1?api_key=sk-abcdef0123456789"
    args = ["config", "--json"] if as_json else ["config"]
    done = run_lobrec(args, cwd=tmp_path, env=cli_env(LOBSTACK_BASE_URL=url))
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    for secret in ("someone", "hunter2", "sk-abcdef"):
        assert secret not in out
    masked = "https://<credentials>@gw.example.test/v1?<query>"
    if as_json:
        row = next(row for row in json.loads(out)["settings"] if row["key"] == "base-url")
        assert (row["value"], row["source"]) == (masked, "environment")
    else:
        assert masked in out


def test_a_dash_is_stdout_for_reports_only(tmp_path: Path) -> None:
    """`-` means stdout for a report; for the suite or the cassettes folder it is a name like any
    other, so it is relative to the file's folder, not to the folder the command runs in."""
    (tmp_path / "lobrec.toml").write_text('suite = "-"\ncassettes = "-"\njson = "-"\n', encoding="utf-8")
    (tmp_path / "sub").mkdir()
    done = run_lobrec(["config", "--json"], cwd=tmp_path / "sub")
    assert done.returncode == 0, done.stderr.decode()
    values = {row["key"]: row["value"] for row in json.loads(done.stdout)["settings"]}
    beside = str(tmp_path / "-")
    assert (values["suite"], values["cassettes"], values["json"]) == (beside, beside, "-")

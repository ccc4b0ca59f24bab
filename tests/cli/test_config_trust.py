"""A configuration file is trusted as far as a pull request that edits it should be: the search for
it stays inside the project (the repository's root, else the home folder), a file another user owns
is passed over with one line, a path in it stays inside its folder, and it is read only up to a cap
(docs/config.md, "What a file may not do")."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.errors import ConfigError
from lobrec.settings import MAX_FILE_BYTES, resolve

ROOT = Path(__file__).resolve().parents[2]


def _config(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    """`lobrec ARGS` (default `config --json`) run in-process in `cwd`."""
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("LOBSTACK_BASE_URL", raising=False)
    return CliRunner().invoke(app, list(args) or ["config", "--json"], env={"COLUMNS": "200"})


@pytest.mark.parametrize("git", ["folder", "file"], ids=["a repository", "a worktree (.git is a file)"])
def test_the_search_stops_at_the_repository_root(tmp_path: Path, git: str) -> None:
    """A `lobrec.toml` above the repository (anyone's `/tmp/lobrec.toml`) is not the project's."""
    (tmp_path / "lobrec.toml").write_text("concurrency = 3\n", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    if git == "folder":
        (repo / ".git").mkdir()
    else:
        (repo / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")
    resolved = resolve({}, cwd=repo / "sub", environ={})
    assert (resolved.file, resolved["concurrency"]) == (None, 8)
    (repo / "pyproject.toml").write_text("[tool.lobrec]\nconcurrency = 5\n", encoding="utf-8")
    resolved = resolve({}, cwd=repo / "sub", environ={})  # the root itself is searched
    assert (resolved.file, resolved["concurrency"]) == (str(repo / "pyproject.toml"), 5)


def test_the_search_stops_at_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lobrec.toml").write_text("concurrency = 3\n", encoding="utf-8")
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert resolve({}, cwd=home / "project", environ={}).file is None


def test_a_file_another_user_owns_is_passed_over_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As git refuses a repository another user owns: a stranger's file decides nothing, and one
    line (not one per file) says it was passed over."""
    (tmp_path / "lobrec.toml").write_text('base-url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.lobrec]\nconcurrency = 2\n", encoding="utf-8")
    someone_else = os.stat(tmp_path).st_uid + 1
    monkeypatch.setattr(os, "geteuid", lambda: someone_else)
    done = _config(inner, monkeypatch)
    assert done.exit_code == 0, done.output
    assert '"file": null' in done.stdout
    assert done.stderr == (
        f"lobrec: passed over {inner / 'pyproject.toml'}, {tmp_path / 'lobrec.toml'}: owned by another "
        "user; lobrec reads only settings files you own\n"
    )


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [
        ("json", "~/.bashrc", "starts with ~"),
        ("html", "../report.html", "leads out of the file's folder"),
        ("cassettes", "recorded/../../elsewhere", "leads out of the file's folder"),
        ("markdown", "/etc/motd", "is absolute"),
        ("suite", "C:\\\\suites\\\\suite.json", "is absolute"),
    ],
)
def test_a_path_in_the_file_that_leaves_its_folder_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, value: str, why: str
) -> None:
    config = tmp_path / "lobrec.toml"
    config.write_text(f'{key} = "{value}"\n', encoding="utf-8")
    done = _config(tmp_path, monkeypatch)
    shown = value.replace("\\\\", "\\")
    assert (done.exit_code, done.stderr) == (
        2,
        f"lobrec: {config}: {key}: {shown!r} {why}; a path in a settings file stays inside the file's "
        "folder (give the option on the command line for a path outside it)\n",
    )


def test_a_plain_rescore_cannot_write_the_results_into_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`json = "~/.bashrc"` in a checkout replaced the user's ~/.bashrc with the results JSON."""
    home = tmp_path / "home"
    checkout = home / "checkout"
    checkout.mkdir(parents=True)
    (home / ".bashrc").write_text("alias ll='ls -l'\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    oracle = "fixture%2Foracle"
    shutil.copytree(ROOT / "fixtures" / "cassettes" / oracle, checkout / "cassettes" / oracle)
    (checkout / "lobrec.toml").write_text('cassettes = "cassettes"\njson = "~/.bashrc"\n', encoding="utf-8")
    done = _config(checkout, monkeypatch, "rescore")
    assert done.exit_code == 2
    assert (home / ".bashrc").read_text(encoding="utf-8") == "alias ll='ls -l'\n"


def test_a_path_through_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A link committed in the repository (`out -> ~`) must not carry a report out of it."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "out").symlink_to(outside, target_is_directory=True)
    (project / "lobrec.toml").write_text('json = "out/results.json"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"lobrec\.toml: json: .* leads through a link to .*outside"):
        resolve({}, cwd=project, environ={})


def test_a_path_on_the_command_line_may_go_anywhere(tmp_path: Path) -> None:
    resolved = resolve({"json": "/elsewhere/results.json", "cassettes": "../c"}, cwd=tmp_path, environ={})
    assert (resolved["json"], resolved["cassettes"]) == ("/elsewhere/results.json", "../c")


@pytest.mark.parametrize("name", ["lobrec.toml", "pyproject.toml"])
def test_a_settings_file_over_the_cap_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Every parent pyproject.toml was read whole: a huge one stalled the run or ran out of memory.
    Now at most MAX_FILE_BYTES is read, and a larger file is named in one line."""
    table = "[tool.lobrec]\n" if name == "pyproject.toml" else ""
    path = tmp_path / name
    path.write_text(table + "concurrency = 2\n" + "#" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    done = _config(tmp_path, monkeypatch)
    assert done.exit_code == 2
    assert done.stderr.startswith(f"lobrec: {path}: ")
    assert "settings file limit" in done.stderr and done.stderr.count("\n") == 1


def test_a_settings_file_that_is_not_utf8_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lobrec.toml"
    path.write_bytes(b"# caf\xe9\nconcurrency = 2\n")
    done = _config(tmp_path, monkeypatch)
    assert (done.exit_code, done.stderr) == (2, f"lobrec: {path}: not UTF-8 text; TOML files are UTF-8\n")

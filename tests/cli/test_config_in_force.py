"""`lobrec config` shows the value in force for every setting (a default as the default), and report
paths from the file are written only by runs on the file's own cassettes folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.settings import resolve

ROOT = Path(__file__).resolve().parents[2]
ORACLE = "fixture%2Foracle"


def _lobrec(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("LOBSTACK_BASE_URL", raising=False)
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_config_shows_the_default_in_force_and_says_it_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`max-errored (not set)` was shown while 0 errored cases were allowed."""
    done = _lobrec(tmp_path, monkeypatch, "config", "--json")
    rows = {row["key"]: row for row in json.loads(done.stdout)["settings"]}
    assert (rows["max-errored"]["value"], rows["max-errored"]["source"]) == ("0", "default")
    table = _lobrec(tmp_path, monkeypatch, "config").stdout
    cells = {
        parts[0]: (parts[2], parts[3])
        for line in table.splitlines()
        if len(parts := [part.strip() for part in line.strip("│ ").split("│")]) == 4
    }
    assert cells["max-errored"] == ("0", "default")
    assert cells["fail-under"] == ("(none: no score gate)", "default")
    assert cells["html"] == ("(none: not written)", "default")
    assert "(not set)" not in table


def _project(tmp_path: Path) -> Path:
    """A project whose file writes reports for its `recorded` folder; `scratch` is another folder."""
    for folder in ("recorded", "scratch"):
        shutil.copytree(ROOT / "fixtures" / "cassettes" / ORACLE, tmp_path / folder / ORACLE)
    (tmp_path / "lobrec.toml").write_text(
        'cassettes = "recorded"\nhtml = "out/report.html"\njson = "out/results.json"\n', encoding="utf-8"
    )
    return tmp_path


def test_an_ad_hoc_folder_does_not_overwrite_the_project_s_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    done = _lobrec(project, monkeypatch, "rescore", "scratch")
    assert done.exit_code == 0, done.output
    assert not (project / "out").exists()
    assert done.stderr.splitlines()[0] == (
        f"lobrec: not writing the reports {project / 'lobrec.toml'} sets (--json, --html): they are for "
        f"its cassettes folder {project / 'recorded'}, and this run's is {project / 'scratch'}; give "
        "--json, --html to write them"
    )


@pytest.mark.parametrize("args", [[], ["recorded/"], ["./recorded"]], ids=["from the file", "given", "spelt"])
def test_the_configured_folder_writes_the_file_s_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    project = _project(tmp_path)
    done = _lobrec(project, monkeypatch, "rescore", *args)
    assert done.exit_code == 0, done.output
    assert (project / "out" / "report.html").is_file() and (project / "out" / "results.json").is_file()
    assert "not writing" not in done.stderr


def test_a_report_given_on_the_command_line_is_written_for_any_folder(tmp_path: Path) -> None:
    project = _project(tmp_path)
    resolved = resolve({"cassettes": "scratch", "json": "mine.json"}, cwd=project, environ={})
    assert (resolved["json"], resolved["html"]) == ("mine.json", None)
    assert [note.split(":")[0] for note in resolved.notes] == [
        f"not writing the reports {project / 'lobrec.toml'} sets (--html)"
    ]


def test_a_file_without_cassettes_configures_the_default_folder(tmp_path: Path) -> None:
    (tmp_path / "lobrec.toml").write_text('html = "out/report.html"\n', encoding="utf-8")
    assert resolve({"cassettes": "cassettes"}, cwd=tmp_path, environ={})["html"] == str(
        tmp_path / "out/report.html"
    )
    assert resolve({"cassettes": "elsewhere"}, cwd=tmp_path, environ={})["html"] is None

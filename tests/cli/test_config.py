"""Configuration files end to end (issue 26 item 6): `lobrec record` and `rescore` with no options
take their settings from `[tool.lobrec]` or `lobrec.toml`, a command-line option or
LOBSTACK_BASE_URL overrides the file, and `lobrec config` says where each value came from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lobrec.cassette.layout import MANIFEST, model_dir_name
from tests.support.cli import cli_env, run_lobrec
from tests.support.gateway import FakeGatewayProcess

MODELS = ["fixture/oracle", "fixture/sloppy"]


def _project(tmp_path: Path, gateway: FakeGatewayProcess, suite: Path, extra: str = "") -> Path:
    """A project folder whose pyproject.toml sets everything a run needs, paths relative to it."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    shutil.copyfile(suite, project / "suite.json")  # a path in the file stays inside its folder
    (project / "pyproject.toml").write_text(
        f"""[project]
name = "someone-elses"

[tool.lobrec]
models = {json.dumps(MODELS)}
base-url = "{gateway.url}"
cassettes = "recorded"
suite = "suite.json"
concurrency = 4
retry-delays = [0.01, 0.01, 0.01]
json = "out/results.json"
markdown = "out/report.md"
junit = "out/junit.xml"
fail-under = 99
{extra}""",
        encoding="utf-8",
    )
    (project / "out").mkdir()
    return project


def _config(cwd: Path, **env: str) -> dict[str, dict[str, object]]:
    done = run_lobrec(["config", "--json"], cwd=cwd, env=cli_env(**env))
    assert done.returncode == 0, done.stderr
    return {row["key"]: row for row in json.loads(done.stdout)["settings"]}


def test_record_with_no_options_reads_the_pyproject_and_rescore_agrees(
    fake_gateway: FakeGatewayProcess, small_suite_path: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path, fake_gateway, small_suite_path)
    done = run_lobrec(["record"], cwd=project / "src")  # from a subfolder: the nearest parent's file
    # fail-under from the file: fixture/sloppy scores below 99 %, the oracle does not
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode() == "lobrec: gate failed: overall score below 99%: fixture/sloppy (40.0%)\n"
    recorded = project / "recorded"  # relative to the file's folder, not to the current one
    for model in MODELS:
        manifest = json.loads((recorded / model_dir_name(model) / MANIFEST).read_bytes())
        assert manifest["model"] == model
    assert not (project / "src" / "recorded").exists()
    results = json.loads((project / "out" / "results.json").read_bytes())
    assert [entry["model"] for entry in results["models"]] == MODELS
    assert (project / "out" / "report.md").read_text(encoding="utf-8").count("fixture/") >= 2
    assert "<testsuite" in (project / "out" / "junit.xml").read_text(encoding="utf-8")
    models_asked = {entry["model"] for entry in fake_gateway.log()}
    assert models_asked == set(MODELS)

    rescored = run_lobrec(["rescore", "--json", "-"], cwd=project)  # DIR from the file too
    assert json.loads(rescored.stdout)["models"] == results["models"]


def test_a_command_line_option_and_the_environment_override_the_file(
    fake_gateway: FakeGatewayProcess, small_suite_path: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path, fake_gateway, small_suite_path)
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml")
        .read_text(encoding="utf-8")
        .replace(f'base-url = "{fake_gateway.url}"', 'base-url = "http://127.0.0.1:9/v1"'),
        encoding="utf-8",
    )
    args = ["record", "--model", "fixture/oracle", "--cassettes", "elsewhere", "--fail-under", "0"]
    done = run_lobrec(args, cwd=project, env=cli_env(LOBSTACK_BASE_URL=fake_gateway.url))
    assert done.returncode == 0, done.stderr  # the file's dead port was never asked
    assert (project / "elsewhere" / model_dir_name("fixture/oracle") / MANIFEST).is_file()
    assert not (project / "recorded").exists()
    assert {entry["model"] for entry in fake_gateway.log()} == {"fixture/oracle"}
    # the file's reports describe its own cassettes folder: an ad-hoc folder writes none of them
    assert list((project / "out").iterdir()) == []
    assert done.stderr.decode().startswith(
        f"lobrec: not writing the reports {project / 'pyproject.toml'} sets"
    )

    shown = _config(project, LOBSTACK_BASE_URL=fake_gateway.url)
    assert (shown["base-url"]["value"], shown["base-url"]["source"]) == (fake_gateway.url, "environment")
    assert shown["base-url"]["where"] == "LOBSTACK_BASE_URL"


def test_config_shows_each_value_and_where_it_came_from(
    fake_gateway: FakeGatewayProcess, small_suite_path: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path, fake_gateway, small_suite_path)
    pyproject = str(project / "pyproject.toml")
    shown = _config(project / "src")
    assert shown["models"] == {
        "key": "models", "option": "--model", "value": MODELS, "source": "file", "where": pyproject
    }  # fmt: skip
    assert shown["cassettes"]["value"] == str(project / "recorded")
    assert shown["retry-delays"]["value"] == "0.01,0.01,0.01"
    assert (shown["timeout"]["value"], shown["timeout"]["source"]) == (120.0, "default")
    assert (shown["html"]["value"], shown["html"]["source"]) == (None, "default")
    table = run_lobrec(["config"], cwd=project)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.decode().splitlines()
    assert f"file: {pyproject}" in lines[0]
    concurrency = next(line for line in lines if " concurrency " in line)
    assert " 4 " in concurrency and "file (pyproject.toml)" in concurrency
    timeout = next(line for line in lines if " timeout " in line)
    assert " 120 " in timeout and "default" in timeout


def test_lobrec_toml_wins_over_the_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lobrec]\nconcurrency = 3\n", encoding="utf-8")
    (tmp_path / "lobrec.toml").write_text("concurrency = 5\n", encoding="utf-8")
    shown = _config(tmp_path)
    assert (shown["concurrency"]["value"], shown["concurrency"]["where"]) == (
        5,
        str(tmp_path / "lobrec.toml"),
    )


def test_a_bad_file_stops_record_with_one_line_naming_the_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lobrec]\nconcurency = 3\n", encoding="utf-8")
    done = run_lobrec(["record", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"lobrec: {tmp_path / 'pyproject.toml'}: [tool.lobrec]:")
    assert "'concurency'" in lines[0]
    assert not (tmp_path / "cassettes").exists()


def test_record_with_no_model_anywhere_says_how_to_give_one(tmp_path: Path) -> None:
    done = run_lobrec(["record", "--base-url", "http://127.0.0.1:9/v1"], cwd=tmp_path)
    assert done.returncode == 2
    assert "give --model" in done.stderr.decode() and "configuration file" in done.stderr.decode()


def test_rescore_without_dir_or_file_still_asks_for_dir(tmp_path: Path) -> None:
    done = run_lobrec(["rescore"], cwd=tmp_path)
    assert done.returncode == 2
    assert "Missing argument 'DIR'" in done.stderr.decode()


def test_a_file_setting_that_cannot_be_used_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "recorded").write_text("", encoding="utf-8")
    (tmp_path / "lobrec.toml").write_text('cassettes = "recorded"\nmodels = ["m"]\n', encoding="utf-8")
    done = run_lobrec(["record", "--base-url", "http://127.0.0.1:9/v1"], cwd=tmp_path)
    named = f"cassettes {tmp_path / 'recorded'} (set in {tmp_path / 'lobrec.toml'})"
    assert (done.returncode, done.stderr.decode()) == (2, f"lobrec: {named}: is a file, not a folder\n")


def test_the_table_says_what_no_value_means_and_that_a_dash_is_stdout(tmp_path: Path) -> None:
    """`-` for "not set" read as stdout beside `json = "-"`; the suite's default is the bundled one."""
    (tmp_path / "lobrec.toml").write_text('json = "-"\n', encoding="utf-8")
    done = run_lobrec(["config"], cwd=tmp_path, env=cli_env(COLUMNS="200"))
    assert done.returncode == 0, done.stderr
    rows = {
        cells[0]: cells[2]
        for line in done.stdout.decode().splitlines()
        if len(cells := [cell.strip() for cell in line.strip("│ ").split("│")]) == 4
    }
    assert rows["json"] == "- (stdout)"
    assert rows["markdown"] == "(none: not written)"
    assert rows["suite"] == "(the bundled suite)"
    assert rows["models"] == "(none: record asks for one)"

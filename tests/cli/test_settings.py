"""The settings merge and the configuration file's errors (issue 26 item 6, `lobrec.settings`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cli._options import REPORT_HELP
from lobrec.errors import ConfigError
from lobrec.running.gateway import DEFAULT_BASE_URL, URL_ENV
from lobrec.running.runner import DEFAULT_RETRY_DELAYS_S, RetryPolicy
from lobrec.settings import (
    DEFAULTS,
    REPORT_KEYS,
    FileSettings,
    find_config,
    load_file,
    merge,
    resolve,
    settings_from_table,
)

FILE = "/project/pyproject.toml"


def test_nothing_set_gives_the_built_in_defaults_which_the_runner_shares() -> None:
    resolved = merge({}, {}, None)
    assert {name: setting.source for name, setting in resolved.settings.items()} == dict.fromkeys(
        DEFAULTS, "default"
    )
    assert (resolved["concurrency"], resolved["timeout"], resolved["retry_delays"]) == (8, 120.0, "1,2,4")
    assert resolved["base_url"] == DEFAULT_BASE_URL
    assert RetryPolicy().delays_s == DEFAULT_RETRY_DELAYS_S == (1.0, 2.0, 4.0)
    assert RetryPolicy().timeout_s == resolved["timeout"]


@given(
    cli=st.one_of(st.none(), st.just("http://cli/v1")),
    env=st.one_of(st.none(), st.just("http://env/v1")),
    file=st.one_of(st.none(), st.just("http://file/v1")),
)
def test_base_url_is_command_line_then_environment_then_file_then_default(
    cli: str | None, env: str | None, file: str | None
) -> None:
    resolved = merge({"base_url": cli}, {URL_ENV: env} if env else {}, FileSettings(base_url=file), FILE)
    expected = next(
        (value, source)
        for value, source in ((cli, "command line"), (env, "environment"), (file, "file"))
        if value is not None
    ) if (cli or env or file) else (DEFAULT_BASE_URL, "default")  # fmt: skip
    assert (resolved["base_url"], resolved.settings["base_url"].source) == expected


@given(cli=st.one_of(st.none(), st.integers(1, 256)), file=st.one_of(st.none(), st.integers(1, 256)))
def test_the_environment_never_touches_a_setting_without_a_variable(
    cli: int | None, file: int | None
) -> None:
    resolved = merge({"concurrency": cli}, {URL_ENV: "http://env/v1"}, FileSettings(concurrency=file), FILE)
    want = cli if cli is not None else file if file is not None else 8
    assert resolved["concurrency"] == want
    assert resolved.settings["concurrency"].where == (FILE if cli is None and file is not None else None)


def test_an_empty_model_list_on_the_command_line_is_not_given() -> None:
    resolved = merge({"models": []}, {}, FileSettings(models=["a", "b"]), FILE)
    assert (resolved["models"], resolved.settings["models"].source) == (["a", "b"], "file")
    assert merge({"models": ["c"]}, {}, FileSettings(models=["a"]), FILE)["models"] == ["c"]


def test_paths_are_relative_to_the_files_folder_and_stdout_stays_stdout(tmp_path: Path) -> None:
    table = {
        "cassettes": "rec",
        "suite": "suites/../suite.json",
        "json": "-",
        "html": "out/r.html",
        "summary": "./s.md",
    }
    found = settings_from_table(table, "x", tmp_path)
    assert found.cassettes == str(tmp_path / "rec")
    assert found.suite == str(tmp_path / "suites" / ".." / "suite.json")
    assert (found.json, found.html, found.summary) == (
        "-",
        str(tmp_path / "out" / "r.html"),
        str(tmp_path / "s.md"),
    )


def test_retry_delays_may_be_a_list_and_max_errored_a_count() -> None:
    found = settings_from_table({"retry-delays": [0.5, 1, 2], "max-errored": 3}, "x", Path("/p"))
    assert found.retry_delays == "0.5,1,2"
    assert merge({}, {}, found, FILE)["max_errored"] == "3"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"modles": ["a"]}, "x: unknown key 'modles' (keys: models, base-url,"),
        ({"base_url": "http://h/v1"}, "x: unknown key 'base_url'"),
        ({"concurrency": "8"}, "x: concurrency: Expected `int`, got `str`"),
        ({"concurrency": 0}, "x: concurrency: Expected `int` >= 1"),
        ({"concurrency": 257}, "x: concurrency: Expected `int` <= 256"),
        ({"timeout": 0}, "x: timeout: Expected `float` >= 0.01"),
        ({"fail-under": 101}, "x: fail-under: Expected `float` <= 100"),
        ({"models": "a"}, "x: models: Expected `array`, got `str`"),
        ({"models": [""]}, "x: models: a model name is empty"),
        (
            {"retry-delays": "1,,2"},
            "x: retry-delays: '1,,2': expected seconds separated by commas, e.g. 1,2,4",
        ),
        ({"retry-delays": [-1]}, "x: retry-delays: '-1': expected seconds separated by commas"),
        (
            {"max-errored": "lots"},
            "x: max-errored: 'lots': expected a count of cases (3) or a percentage (5%)",
        ),
        ({"cassettes": ""}, "x: cassettes: an empty path"),
        ({"api-key": "sk-123"}, "x: api-key: the API key is never read from a file; set LOBSTACK_API_KEY"),
        ({"LOBSTACK_API_KEY": "sk"}, "x: LOBSTACK_API_KEY: the API key is never read from a file"),
        ({"token": "t"}, "x: token: the API key is never read from a file"),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_file_and_key(table: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from_table(table, "x", Path("/p"))
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_nearest_file_wins_and_a_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[tool.lobrec]\nconcurrency = 2\n", encoding="utf-8")
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 1\n", encoding="utf-8")
    assert find_config(inner).found == (tmp_path / "pyproject.toml", True)
    assert resolve({}, cwd=inner, environ={})["concurrency"] == 2
    (tmp_path / "a" / "lobrec.toml").write_text("concurrency = 3\n", encoding="utf-8")
    assert find_config(inner).found == (tmp_path / "a" / "lobrec.toml", False)
    assert resolve({}, cwd=inner, environ={})["concurrency"] == 3


def test_lobrec_toml_wins_in_the_same_folder_and_files_are_never_merged(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.lobrec]\nconcurrency = 2\ntimeout = 5\n", encoding="utf-8"
    )
    (tmp_path / "lobrec.toml").write_text("concurrency = 3\n", encoding="utf-8")
    resolved = resolve({}, cwd=tmp_path, environ={})
    assert (resolved["concurrency"], resolved["timeout"]) == (3, 120.0)
    assert resolved.file == str(tmp_path / "lobrec.toml")


def test_broken_toml_and_a_non_table_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "lobrec.toml").write_text("concurrency = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"lobrec\.toml: not valid TOML: "):
        resolve({}, cwd=tmp_path, environ={})
    (tmp_path / "lobrec.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool]\nlobrec = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: \[tool\.lobrec\]: expected a table"):
        load_file(tmp_path / "pyproject.toml", True)


def test_every_report_setting_is_a_report_option_of_the_same_name_and_order() -> None:
    """`json = "out/results.json"` in a file means `--json out/results.json`: the CLI's report
    options (declared once, for record and rescore) are the report settings, in their order."""
    assert tuple(REPORT_HELP) == REPORT_KEYS

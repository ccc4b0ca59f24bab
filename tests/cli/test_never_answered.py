"""A model that never answered costs one line: why, what is left on disk, and the one command that
fixes it; a misspelt name leaves no folder; a missing key names the variable to set; after Ctrl-C
the resume line comes last, after one short line per model."""

from __future__ import annotations

import shlex
import signal
import subprocess
import time
from pathlib import Path

import msgspec
import pytest

from lobrec.cli._unanswered import Folders, unanswered_line
from lobrec.core.metrics.results import ModelResult
from lobrec.core.suite.format import encode_suite
from lobrec.fakegateway.process import start_fake_gateway_process, stop_fake_gateway_process
from tests.support.cli import LOBREC, cli_env
from tests.support.gateway import build_small_suite
from tests.support.sample_results import sample_run

URL = "http://127.0.0.1:9/v1"
GATEWAY_SAYS = (
    "step 1: the gateway answered 404: The model `acme/tool-llm-7d` does not exist. "
    "Known models: acme/tool-llm-7b, auto"
)


def never_answered(
    status: int | None, reason: str = GATEWAY_SAYS, name: str = "acme/tool-llm-7d"
) -> ModelResult:
    """The sample's model whose every case errored, each last attempt answered with `status`."""
    (model,) = [model for model in sample_run().models if model.model == "acme/tool-llm-7b"]
    cases = [
        msgspec.structs.replace(
            case,
            reason=reason,
            api_calls=[msgspec.structs.replace(call, status=status) for call in case.api_calls],
        )
        for case in model.cases
    ]
    return msgspec.structs.replace(model, model="acme/tool-llm-7d", cases=cases)


def command(name: str, again: bool) -> str:
    words = ["lobrec", "record", "--model", name, "--cassettes", "c"]
    return shlex.join(words + (["--missing", "--retry-errored"] if again else []))


def test_a_misspelt_name_gets_the_close_name_and_its_new_folder_goes(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    folders = Folders.before(root, ["acme/tool-llm-7d"])
    (root / "acme%2Ftool-llm-7d").mkdir(parents=True)
    line = unanswered_line(never_answered(404), command, URL, folders, environ={})
    assert line == (
        f"acme/tool-llm-7d: never answered: the gateway knows no model acme/tool-llm-7d at {URL} (404); "
        "nothing was kept. To fix: did you mean acme/tool-llm-7b? "
        "Run: lobrec record --model acme/tool-llm-7b --cassettes c"
    )
    assert not root.exists(), "the folder (and the cassettes folder) this run made are removed"


def test_a_folder_with_earlier_recordings_is_kept_and_named(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    (root / "acme%2Ftool-llm-7d").mkdir(parents=True)
    folders = Folders.before(root, ["acme/tool-llm-7d"])
    line = unanswered_line(never_answered(404, reason="no"), command, URL, folders, environ={})
    assert f"{root / 'acme%2Ftool-llm-7d'} held earlier recordings, kept" in line
    assert line.endswith(
        "check the name (and --base-url), then run: lobrec record --model MODEL --cassettes c"
    )
    assert (root / "acme%2Ftool-llm-7d").is_dir()


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({}, "LOBSTACK_API_KEY is not set and this gateway checks keys: set LOBSTACK_API_KEY to a key"),
        ({"LOBSTACK_API_KEY": "k" * 20}, "To fix: set LOBSTACK_API_KEY to a key this gateway accepts"),
    ],
)
@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_or_missing_key_names_the_variable(
    tmp_path: Path, environ: dict[str, str], says: str, status: int
) -> None:
    folders = Folders.before(tmp_path, ["acme/tool-llm-7d"])
    line = unanswered_line(never_answered(status), command, URL, folders, environ=environ)
    assert f"the gateway refused the key ({status})" in line and says in line
    assert f"kept in {tmp_path / 'acme%2Ftool-llm-7d'}" in line
    assert line.endswith("--missing --retry-errored") and "\n" not in line


def test_an_unreachable_gateway_says_to_start_it_or_fix_the_url(tmp_path: Path) -> None:
    folders = Folders.before(tmp_path, ["acme/tool-llm-7d"])
    line = unanswered_line(never_answered(None), command, URL, folders, environ={})
    assert f"the gateway at {URL} cannot be reached or does not answer" in line
    assert "start it or correct --base-url, then run: lobrec record --model acme/tool-llm-7d" in line


@pytest.mark.process
def test_after_ctrl_c_the_resume_line_is_last_after_one_line_per_model(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_bytes(encode_suite(build_small_suite()))
    gateway, url = start_fake_gateway_process(suite, latency_ms=400)
    try:
        process = subprocess.Popen(
            [str(LOBREC), "record", "-m", "fixture/oracle", "-m", "fixture/sloppy", "--base-url", url,
             "--suite", str(suite), "--cassettes", str(tmp_path / "c"), "--concurrency", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(),
        )  # fmt: skip
        time.sleep(2.5)  # the process has started and is inside its first cases (400 ms each)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        stop_fake_gateway_process(gateway)
    lines = [line for line in err.decode().splitlines() if not line.startswith("recording")]
    assert process.returncode == 130, err.decode()
    assert out == b"", "no leaderboard after Ctrl-C"
    assert lines[-1].startswith("lobrec: interrupted; ") and " --missing" in lines[-1]
    assert len(lines) <= 3
    assert all(" cases recorded" in line or " case recorded" in line for line in lines[:-1])


@pytest.mark.process
def test_beside_a_model_that_answered_the_other_is_one_line_and_the_run_fails(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lobrec.cli import app

    suite = tmp_path / "suite.json"
    suite.write_bytes(encode_suite(build_small_suite()))
    gateway, url = start_fake_gateway_process(suite)
    cassettes = tmp_path / "c"
    try:
        result = CliRunner().invoke(
            app,
            ["record", "-m", "fixture/oracle", "-m", "fixture/oracel", "--base-url", url,
             "--suite", str(suite), "--cassettes", str(cassettes), "--concurrency", "1"],
        )  # fmt: skip
    finally:
        stop_fake_gateway_process(gateway)
    assert result.exit_code == 3, result.stderr
    lines = [line for line in result.stderr.splitlines() if "fixture/oracel" in line]
    assert any("never answered" in line and "did you mean fixture/oracle?" in line for line in lines)
    assert lines[-1] == "lobrec: gate failed: fixture/oracel: never answered (above)"
    assert "fixture/oracle" in result.stdout and "fixture/oracel" not in result.stdout  # the leaderboard
    assert sorted(path.name for path in cassettes.iterdir()) == ["fixture%2Foracle"]


@pytest.mark.parametrize(
    ("key", "starts"), [(None, "(LOBSTACK_API_KEY is not set and"), ("k" * 20, "(set LOBSTACK_API_KEY")]
)
def test_cases_errored_on_a_refused_key_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, key: str | None, starts: str
) -> None:
    from lobrec.cli._advice import errored_summary

    if key is None:
        monkeypatch.delenv("LOBSTACK_API_KEY", raising=False)
    else:
        monkeypatch.setenv("LOBSTACK_API_KEY", key)
    refused = never_answered(401, reason="step 1: the gateway answered 401: Incorrect API key provided.")
    (line,) = errored_summary(msgspec.structs.replace(sample_run(), models=[refused]))
    assert f"Incorrect API key provided. {starts}" in line
    assert line.endswith("set LOBSTACK_API_KEY to a key this gateway accepts)")
    (other,) = errored_summary(msgspec.structs.replace(sample_run(), models=[never_answered(404)]))
    assert "LOBSTACK_API_KEY" not in other

"""Every `lobrec` command in the README's shell blocks runs as printed (issue 13).

The blocks are read from README.md itself, so an example that drifts from the CLI fails here. Each
runs in a scratch folder holding a copy of the committed cassettes, as on a fresh clone. The one
that records needs a gateway: it runs against the fake gateway process (LOBSTACK_BASE_URL, a dummy
key of credential length), which knows `auto` and not `openai/gpt-4o`, so the run must score the
first and say why every case of the second errored. The `make` lines are CI itself (`.ci/run`).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import LOBREC, cli_env
from tests.support.gateway import FakeGatewayProcess, running_gateway

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_commands() -> list[str]:
    lines = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        for line in block.splitlines():
            command = line.split("  #", 1)[0].strip()
            if command.startswith("lobrec "):
                lines.append(command)
    return lines


def test_the_readme_shows_each_kind_of_command() -> None:
    kinds = {shlex.split(command)[1] for command in readme_commands()}
    assert {"record", "rescore", "diff"} <= kinds


@pytest.fixture(scope="module")
def gateway(_clean_proxy_environment: None) -> Iterator[FakeGatewayProcess]:
    with running_gateway(ROOT / "suite" / "suite.json") as running:
        yield running


@pytest.mark.parametrize("command", readme_commands())
def test_a_readme_command_runs_as_printed(command: str, tmp_path: Path, gateway: FakeGatewayProcess) -> None:
    shutil.copytree(ROOT / "fixtures" / "cassettes", tmp_path / "cassettes")
    shutil.copytree(ROOT / "fixtures" / "cassettes", tmp_path / "fixtures" / "cassettes")
    shutil.copytree(ROOT / "suite", tmp_path / "suite")
    words = shlex.split(command)
    env = cli_env()
    if words[1] == "record":
        env = {**env, "LOBSTACK_BASE_URL": gateway.url, "LOBSTACK_API_KEY": "lsk-readme-example-0000"}
    done = subprocess.run(
        [str(LOBREC), *words[1:]], cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False
    )
    err = done.stderr.decode()
    if words[1] == "record":
        assert done.returncode == 3, err  # a model with no scores
        assert "openai/gpt-4o" in err and "does not exist" in err, "stderr says why its cases errored"
        assert (tmp_path / "out" / "results.json").exists() and (tmp_path / "out" / "report.html").exists()
        assert "auto" in done.stdout.decode()
    else:
        assert done.returncode == 0, err
    for word in words:
        if word.startswith("out/"):
            assert (tmp_path / word).stat().st_size > 0, f"{word} was written"

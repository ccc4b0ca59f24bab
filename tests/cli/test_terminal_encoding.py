"""Any terminal encoding: with stdout and stderr in ASCII or Latin-1 (`LC_ALL=C PYTHONUTF8=0`,
`PYTHONIOENCODING=ascii` or `latin-1`), every command prints its report with the symbols in ASCII
(`↓` as `v`, `→` as `->`) and exits with the code it has on a UTF-8 terminal; it used to die on the
first `↓` with a traceback and exit 1, the code of a failed score.

These run real processes: the encoding is the process's own stdout's, which no in-process runner
reproduces. They read the committed fixtures and record through the fake gateway on loopback.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lobrec.core.suite.format import encode_suite
from tests.support.cli import cli_env, run_lobrec
from tests.support.gateway import FakeGatewayProcess, build_small_suite, running_gateway

pytestmark = pytest.mark.process  # the encoding of a real process's stdout is the point

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"
RESULTS = str(ROOT / "fixtures" / "expected-results.json")
MODELS = ("auto", "fake%2Falpha", "fixture%2Fflaky")
"""Committed cassettes enough for every mark: `↓`, `±` (flaky's repeats), the flips of a diff."""

ENCODINGS = {
    "C locale": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""},
    "ascii": {"PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"},
    "latin-1": {"PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"},
}
"""Terminal encodings without `↓`, `→` or `↺`, as a CI runner or an old server sets them."""

COMMANDS = {
    "rescore": ["rescore", "cassettes", "--by-group"],
    "diff": ["diff", "cassettes/auto", "cassettes/fake%2Falpha"],
    "history": ["history", RESULTS, RESULTS],
    "config": ["config"],
    "audit": ["audit", "cassettes"],
    "suite show": ["suite", "show", "chain-01"],
}
"""A command of each kind that prints a report or a table to the terminal."""


def _env(name: str) -> dict[str, str]:
    """The environment of a run in the encoding `name` (`utf-8`: the usual one)."""
    env = cli_env(COLUMNS="100", PYTHONIOENCODING="utf-8")
    if name in ENCODINGS:
        env.pop("PYTHONIOENCODING")
        env.update({key: value for key, value in ENCODINGS[name].items() if value})
    return env


class Runs:
    """Each command run once per encoding (and once in UTF-8) in a folder holding the cassettes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.done: dict[tuple[str, str], subprocess.CompletedProcess[bytes]] = {}

    def __call__(self, command: str, name: str) -> subprocess.CompletedProcess[bytes]:
        if (command, name) not in self.done:
            self.done[command, name] = run_lobrec(
                COMMANDS[command], env=_env(name), cwd=self.folder, process=True
            )
        return self.done[command, name]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    folder = tmp_path_factory.mktemp("terminal")
    for model in MODELS:
        shutil.copytree(FIXTURES / model, folder / "cassettes" / model)
    return Runs(folder)


def _check(
    done: subprocess.CompletedProcess[bytes], utf8: subprocess.CompletedProcess[bytes], name: str
) -> None:
    """No traceback, the UTF-8 run's exit code, and text the terminal can show."""
    assert b"Traceback" not in done.stderr, done.stderr.decode("latin-1")
    assert done.returncode == utf8.returncode, done.stderr.decode("latin-1")
    assert done.stdout.strip(), "nothing printed"
    if name != "latin-1":  # an ASCII terminal receives ASCII only
        assert done.stdout.isascii() and done.stderr.isascii()
    for symbol in "↓→↺✓✗—…":  # never written as UTF-8, which such a terminal shows as garbage
        assert symbol.encode() not in done.stdout + done.stderr


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", ENCODINGS)
def test_every_report_prints_on_a_terminal_without_unicode(runs: Runs, command: str, name: str) -> None:
    _check(runs(command, name), runs(command, "utf-8"), name)


def test_the_symbols_fall_back_to_ascii_in_the_leaderboard_and_the_diff(runs: Runs) -> None:
    """The marks keep their meaning: `↓ lower is better` reads `v lower is better`, a flip `->`."""
    rescored = runs("rescore", "ascii").stdout.decode("ascii")
    assert "v lower is better" in rescored
    assert "tool v" in rescored  # the column heading `Made-up tool ↓`
    assert "+/- sample sd" in rescored
    compared = runs("diff", "C locale").stdout.decode("ascii")
    assert "A: auto  ->  B: fake/alpha" in compared
    assert "Pass -> fail (10):" in compared
    history = runs("history", "latin-1").stdout.decode("latin-1")
    assert "r rescored" in history  # `↺ rescored`; Latin-1 has `·`, which stays


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeGatewayProcess]:
    path = tmp_path_factory.mktemp("suite") / "suite.json"
    path.write_bytes(encode_suite(build_small_suite()))
    with running_gateway(path) as running:
        yield running


@pytest.mark.parametrize("name", ENCODINGS)
def test_record_prints_its_leaderboard_and_gate_on_any_terminal(
    tmp_path: Path, gateway: FakeGatewayProcess, name: str
) -> None:
    """A gate that fails exits 1 whatever the encoding; a traceback exited 1 too, so the gate's own
    line is checked."""
    args = [
        "record",
        "--model",
        "fixture/sloppy",
        "--base-url",
        gateway.url,
        "--suite",
        str(gateway.suite_path),
    ]
    args += ["--retry-delays", "0", "--fail-under", "99"]
    utf8 = run_lobrec(
        [*args, "--cassettes", str(tmp_path / "utf8")], env=_env("utf-8"), cwd=tmp_path, process=True
    )
    done = run_lobrec(
        [*args, "--cassettes", str(tmp_path / name)], env=_env(name), cwd=tmp_path, process=True
    )
    _check(done, utf8, name)
    assert utf8.returncode == 1
    assert b"lobrec: gate failed: overall score below 99%: fixture/sloppy" in done.stderr

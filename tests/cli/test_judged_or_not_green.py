"""Judged or not green: `rescore` exits 0 only when every model has a judged case and every gate was
evaluated. Each kind of case not judged has its own code and its own allowance (stale 4
`--allow-stale`, unreadable 6 `--allow-unreadable`, another major suite version 7
`--allow-other-major`), no allowance passes another kind, and a model with nothing judged exits 3
whatever is allowed. Run in-process on copies of the committed fixture cassettes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app

REPO = Path(__file__).resolve().parents[2]
ORACLE = "fixture%2Foracle"
EVERY_ALLOWANCE = ["--allow-stale", "--allow-unreadable", "--allow-other-major"]


def copy(tmp_path: Path, *names: str) -> Path:
    cassettes = tmp_path / "cassettes"
    for name in names:
        shutil.copytree(REPO / "fixtures" / "cassettes" / name, cassettes / name)
    return cassettes


def rescore(*args: str | Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["rescore", *map(str, args)])
    return result.exit_code, result.stderr.splitlines()


def gates(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("lobrec: gate failed: ")]


@pytest.fixture
def suite_2(tmp_path: Path) -> Path:
    """The bundled suite as version 2.0.0: another major version than the recordings (1.x)."""
    data = json.loads((REPO / "suite" / "suite.json").read_text())
    data["version"] = "2.0.0"
    path = tmp_path / "suite-2.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "allowances",
    [[], ["--allow-stale"], ["--allow-other-major"], EVERY_ALLOWANCE],
    ids=["none", "--allow-stale", "--allow-other-major", "all of them"],
)
def test_recordings_of_another_major_version_are_never_green(
    tmp_path: Path, suite_2: Path, allowances: list[str]
) -> None:
    cassettes = copy(tmp_path, ORACLE)
    code, lines = rescore(
        cassettes, "--suite", suite_2, "--fail-under", "80", "--max-errored", "0", *allowances
    )
    assert code == 3  # nothing judged: no option passes it
    assert (
        "lobrec: gate failed: no case judged: fixture/oracle (80 errored of 80); "
        "no option passes a model with none" in lines
    )
    # The advice names the suite to judge them with, and never a deletion or a new recording.
    (advice,) = [line for line in lines if "Nothing needs recording" in line]
    assert "--suite FILE" in advice and "lobrec --version" in advice and "suite 1.0.0" in advice
    assert not any("Remove" in line or "record again" in line or "lobrec record" in line for line in lines)
    own = "80 cases recorded on another major suite version in 1 model"
    assert any(own in line for line in gates(lines)) == ("--allow-other-major" not in allowances)


def test_a_run_mixing_runs_of_two_major_versions_fails_the_other_major_gate_alone(tmp_path: Path) -> None:
    """Run 2 of a repeated model recorded on 2.0.0: run 1 is judged, so the code is 7, and only
    `--allow-other-major` accepts it."""
    cassettes = copy(tmp_path, ORACLE)
    run_2 = cassettes / ORACLE / "runs" / "2"
    shutil.copytree(REPO / "fixtures" / "cassettes" / ORACLE, run_2)
    manifest = json.loads((run_2 / "manifest.json").read_text())
    manifest["suite"]["version"] = "2.0.0"
    (run_2 / "manifest.json").write_text(json.dumps(manifest))
    assert rescore(cassettes)[0] == 7
    assert rescore(cassettes, "--allow-stale", "--allow-unreadable")[0] == 7
    code, lines = rescore(cassettes, "--allow-other-major")
    assert code == 0, lines


def test_each_allowance_passes_its_own_kind_only(tmp_path: Path) -> None:
    """One cassette unreadable, one removed (unrecorded): 6 wins over 4; each flag clears its gate."""
    cassettes = copy(tmp_path, ORACLE)
    (cassettes / ORACLE / "sel-01.json").write_text("{not json")
    (cassettes / ORACLE / "sel-02.json").unlink()
    code, lines = rescore(cassettes)
    assert code == 6
    assert [line.split(" (--")[1] for line in gates(lines)] == [
        "allow-unreadable accepts them)",
        "allow-stale accepts them)",
    ]
    assert rescore(cassettes, "--allow-stale")[0] == 6
    assert rescore(cassettes, "--allow-unreadable")[0] == 4
    assert rescore(cassettes, "--allow-other-major")[0] == 6
    assert rescore(cassettes, "--allow-stale", "--allow-unreadable")[0] == 0


def test_a_model_whose_every_case_is_unreadable_is_never_green(tmp_path: Path) -> None:
    cassettes = copy(tmp_path, ORACLE, "fixture%2Fsloppy")
    (cassettes / ORACLE / "manifest.json").write_text("{not json")
    code, lines = rescore(cassettes, *EVERY_ALLOWANCE, "--max-errored", "100%")
    assert code == 3, lines
    assert any(
        line.startswith("lobrec: gate failed: no case judged: fixture/oracle (80 errored") for line in lines
    )

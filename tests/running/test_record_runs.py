"""The write side of repeats and budgets (issues 14 and 15), against a real fake gateway process.

`record --repeat K` lays runs out as `runs/<n>/` beside run 1, adds runs without rewriting recorded
ones, `--missing` fills every run, `--retry-errored` records again only what ended errored;
`--max-cost` stops starting cases and prints the command that resumes; `--dry-run` sends nothing.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from lobrec.cassette.layout import MANIFEST, model_dir_name
from tests.support.cli import run_lobrec
from tests.support.gateway import FakeGatewayProcess, running_gateway

pytestmark = pytest.mark.process  # a fake gateway process serves the module

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suite" / "suite.json"
FLAKY = "fixture/flaky"


@pytest.fixture(scope="module")
def gateway(_clean_proxy_environment: None) -> Iterator[FakeGatewayProcess]:
    with running_gateway(SUITE) as running:
        yield running


def _record(gateway: FakeGatewayProcess, cassettes: Path, *extra: str) -> tuple[int, str, str]:
    args = ["record", "--model", FLAKY, "--base-url", gateway.url, "--cassettes", str(cassettes)]
    done = run_lobrec([*args, "--suite", str(SUITE), "--retry-delays", "0.01,0.01,0.01", *extra])
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _files(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.glob("*.json"))}


def test_repeat_lays_out_runs_and_adding_runs_never_rewrites_recorded_ones(
    gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    gateway.reset()
    model_dir = tmp_path / model_dir_name(FLAKY)
    code, _, err = _record(gateway, tmp_path, "--repeat", "2")
    assert code == 0, err
    runs = [model_dir, model_dir / "runs" / "2"]
    for run in runs:
        manifest = json.loads((run / MANIFEST).read_bytes())
        assert manifest["model"] == FLAKY and len(manifest["cases"]) == 80 and manifest["finished_at"]
        assert len(_files(run)) == 81
    before = [_files(run) for run in runs]
    code, _, err = _record(gateway, tmp_path, "--repeat", "3")
    assert code == 0, err
    assert [_files(run) for run in runs] == before, "runs 1 and 2 are kept byte for byte"
    assert len(_files(model_dir / "runs" / "3")) == 81
    assert not (model_dir / "runs" / "4").exists()


def test_missing_fills_every_run_and_only_what_is_missing(
    gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    gateway.reset()
    model_dir = tmp_path / model_dir_name(FLAKY)
    assert _record(gateway, tmp_path, "--repeat", "2")[0] == 0
    (model_dir / "runs" / "2" / "sel-01.json").unlink()
    kept = _files(model_dir)
    code, _, err = _record(gateway, tmp_path, "--missing")
    assert code == 0, err
    assert (model_dir / "runs" / "2" / "sel-01.json").exists()
    assert _files(model_dir) == kept
    code, _, err = _record(gateway, tmp_path, "--missing")
    assert code == 0, err
    assert "lobrec: nothing to record: every case of fixture/flaky has a fresh cassette\n" in err


def test_retry_errored_records_again_only_the_errored_cases(
    gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    gateway.reset()
    gateway.faults([{"model": FLAKY, "case": "arg-01", "faults": ["500"]}])
    code, _, err = _record(gateway, tmp_path)
    assert code == 5, err  # an errored case fails the errored gate
    assert "--retry-errored" in err, "the errored summary names the option that records them again"
    model_dir = tmp_path / model_dir_name(FLAKY)
    before = _files(model_dir)
    gateway.reset()
    code, _, err = _record(gateway, tmp_path, "--retry-errored")
    assert code == 0, err
    after = _files(model_dir)
    changed = {name for name in after if after[name] != before[name]}
    assert changed - {MANIFEST} == {"arg-01.json"}, "the manifest's times may change, no other file"
    statuses = [i["response"]["status"]["code"] for i in json.loads(after["arg-01.json"])["interactions"]]
    assert statuses == [200]


def test_max_cost_stops_starting_cases_and_the_printed_command_resumes(
    gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    gateway.reset()
    code, _, err = _record(gateway, tmp_path, "--max-cost", "0.0001", "--concurrency", "2")
    assert code == 8, err  # cases not started: their own code
    line = next(line for line in err.splitlines() if "--max-cost reached" in line)
    assert "cases were not started (--allow-unstarted accepts them). Resume with: " in line
    model_dir = tmp_path / model_dir_name(FLAKY)
    recorded = len(_files(model_dir)) - 1
    assert 1 <= recorded < 80
    command = shlex.split(line.split("Resume with: ", 1)[1])
    assert command[:2] == ["lobrec", "record"] and "--missing" in command and "--max-cost" in command
    budget = command.index("--max-cost")
    command[budget + 1] = "1000"  # the user raises the budget and runs the printed command
    done = run_lobrec([*command[1:], "--retry-delays", "0.01,0.01,0.01"])
    assert done.returncode == 0, done.stderr.decode()
    assert len(_files(model_dir)) - 1 == 80


def test_dry_run_counts_requests_and_sends_nothing(gateway: FakeGatewayProcess, tmp_path: Path) -> None:
    gateway.reset()
    code, out, err = _record(gateway, tmp_path, "--repeat", "3", "--dry-run")
    assert code == 0, err
    assert gateway.log() == []
    assert not (tmp_path / model_dir_name(FLAKY)).exists()
    suite = json.loads(SUITE.read_bytes())
    first = 3 * len(suite["cases"])
    every = 3 * sum(len(case["steps"]) for case in suite["cases"])
    assert f"{FLAKY}: {first} cases in 3 runs, {first}-{every} requests" in out
    assert "nothing was sent" in out
    # With an earlier recording, the expected cost comes from it.
    assert _record(gateway, tmp_path)[0] == 0
    gateway.reset()
    code, out, _ = _record(gateway, tmp_path, "--dry-run")
    assert code == 0 and gateway.log() == []
    assert "expected cost $" in out


def test_group_records_that_group_only(gateway: FakeGatewayProcess, tmp_path: Path) -> None:
    gateway.reset()
    code, _, err = _record(gateway, tmp_path, "--group", "parallel")
    assert code == 0, err
    suite = json.loads(SUITE.read_bytes())
    parallel = {f"{case['id']}.json" for case in suite["cases"] if case["group"] == "parallel"}
    assert set(_files(tmp_path / model_dir_name(FLAKY))) == parallel | {MANIFEST}


def test_retry_errored_with_nothing_errored_says_so(gateway: FakeGatewayProcess, tmp_path: Path) -> None:
    gateway.reset()
    assert _record(gateway, tmp_path, "--case", "sel-01")[0] == 0
    code, _, err = _record(gateway, tmp_path, "--retry-errored")
    assert code == 0, err
    assert "lobrec: nothing to record: no case of fixture/flaky ended errored\n" in err
    code, _, err = _record(gateway, tmp_path, "--missing", "--retry-errored", "--case", "sel-01")
    assert (
        "nothing to record: every chosen case of fixture/flaky has a fresh cassette and none ended errored"
        in err
    )


def test_a_stopped_run_with_errored_cases_prints_one_command_for_both(
    gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    """Stopped early with errored cases: no second command; the one printed records the rest and
    the errored cases again (`--missing --retry-errored`), and running it completes the run."""
    gateway.reset()
    cases = json.loads(SUITE.read_bytes())["cases"]
    first = max(cases, key=lambda case: len(case["steps"]))["id"]  # the run starts the longest chain first
    gateway.faults([{"model": FLAKY, "case": first, "faults": [], "then": "500"}])
    code, _, err = _record(
        gateway, tmp_path, "--max-cost", "0.0001", "--concurrency", "1", "--max-errored", "1"
    )
    assert code == 8, err  # the errored case is allowed: cases were not started, nothing failed
    assert "Record the errored cases again with" not in err
    (line,) = [line for line in err.splitlines() if "Resume" in line]
    assert (
        "not started (--allow-unstarted accepts them). Resume, recording the errored cases again too, "
        in line
    )
    command = shlex.split(line.split("with: ", 1)[1])
    assert command[-2:] == ["--missing", "--retry-errored"]
    command[command.index("--max-cost") + 1] = "1000"
    gateway.reset()
    done = run_lobrec(command[1:])
    assert done.returncode == 0, done.stderr.decode()
    assert "errored" not in done.stderr.decode()
    assert len(_files(tmp_path / model_dir_name(FLAKY))) - 1 == 80

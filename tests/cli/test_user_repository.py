"""A repository that does not fight its users: repair advice that keeps healthy data, `audit` on the
wrong folder in one line, and `diff --model` across two multi-model results files.

Every test runs the real `lobrec` command; the repair is followed as printed, against the fake
gateway process serving the real suite.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from lobrec.cli import Exit
from tests.support.cli import run_lobrec
from tests.support.gateway import running_gateway

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"


def lobrec(*args: str) -> subprocess.CompletedProcess[str]:
    return run_lobrec(args, env=dict(os.environ), text=True)


def digest(folder: Path) -> str:
    """Every file under `folder` and its bytes."""
    hashed = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            hashed.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()


@pytest.mark.process
def test_the_advice_for_a_corrupt_manifest_keeps_every_healthy_run(
    tmp_path: Path, _clean_proxy_environment: None
) -> None:
    cassettes = tmp_path / "cassettes"
    for model in ("fixture%2Fflaky", "fixture%2Foracle"):
        shutil.copytree(FIXTURES / model, cassettes / model)
        (cassettes / model / "manifest.json").write_text("{not json")
    flaky = cassettes / "fixture%2Fflaky"
    runs_before = digest(flaky / "runs")
    found = lobrec("rescore", str(cassettes), "--jobs", "1")
    assert found.returncode == Exit.GATEWAY  # fixture/oracle has nothing judged at all
    advice = [line for line in found.stderr.splitlines() if "Remove " in line]
    assert len(advice) == 2
    for line in advice:
        removed = re.search(r"Remove (\S+), then record", line)
        assert removed is not None and removed.group(1).endswith("/manifest.json"), line
    with running_gateway(ROOT / "suite" / "suite.json") as gateway:
        for line in advice:
            removed = re.search(r"Remove (\S+), then record", line)
            assert removed is not None
            Path(removed.group(1)).unlink()
            command = shlex.split(line.rpartition(" with: ")[2])
            assert command[:2] == ["lobrec", "record"]
            done = lobrec(*command[1:], "--base-url", gateway.url)
            assert done.returncode == Exit.OK, done.stderr
    assert digest(flaky / "runs") == runs_before  # runs 2 and 3 untouched
    assert lobrec("rescore", str(cassettes), "--jobs", "1").returncode == Exit.OK


@pytest.mark.parametrize("kind", ["model folder", "empty folder"])
def test_audit_of_the_wrong_folder_says_so_in_one_line(tmp_path: Path, kind: str) -> None:
    folder = FIXTURES / "fixture%2Foracle" if kind == "model folder" else tmp_path
    done = lobrec("audit", str(folder))
    assert done.returncode == Exit.BAD_INPUT
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    if kind == "model folder":
        assert line == (
            f"lobrec: {folder}: this is one model's folder (it holds manifest.json); "
            f"give the folder that holds the model folders: {FIXTURES}"
        )
        # as rescore says it
        assert lobrec("rescore", str(folder)).stderr.strip() == line
    else:
        assert line == f"lobrec: {folder}: an empty folder; nothing to audit"


def test_diff_picks_one_model_out_of_two_multi_model_results_files(tmp_path: Path) -> None:
    """Two CI runs' results: the same cassettes judged under suite 1.0.0 and 1.1.0."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    lobrec(
        "rescore",
        str(FIXTURES),
        "--suite",
        str(ROOT / "suite/history/1.0.0.json"),
        "--allow-newer-suite",
        "--json",
        str(old),
    )
    assert lobrec("rescore", str(FIXTURES), "--json", str(new)).returncode == Exit.OK
    done = lobrec("diff", str(old), str(new), "--model", "fixture/plausible")
    assert done.returncode == Exit.OK, done.stderr
    assert "A: fixture/plausible" in done.stdout and "B: fixture/plausible" in done.stdout
    assert "Pass → fail (11)" in done.stdout  # the cases 1.1.0's checks catch (docs/fake-gateway.md)

    several = lobrec("diff", str(old), str(new))
    assert several.returncode == Exit.BAD_INPUT
    assert "pick one with --model" in several.stderr
    missing = lobrec("diff", str(old), str(new), "--model", "no/such")
    assert missing.returncode == Exit.BAD_INPUT
    assert missing.stderr.startswith(f"lobrec: {old}: no model no/such in it (it holds auto, fake/alpha, ")
    # a cassette root with --model is that model's folder
    folder = lobrec("diff", str(FIXTURES), str(new), "-m", "fixture/sloppy")
    assert folder.returncode == Exit.OK
    assert "p=1)" in folder.stdout

"""Provenance: the results file says what judged it and what recorded it, from the inputs only, and
cassettes recorded with a newer suite than the judging one are refused unless asked for.

Driven through the real `lobrec` command on copies of the committed fixture cassettes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lobrec import __version__
from lobrec.cassette.manifest import suite_fingerprint
from lobrec.core.metrics.results import decode_results
from lobrec.reports._format import provenance
from lobrec.suite_file import load_suite
from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"
SUITE = ROOT / "suite" / "suite.json"
ORACLE = "fixture%2Foracle"
FLAKY = "fixture%2Fflaky"
CURRENT = load_suite(SUITE).version
_major, _minor, _patch = (int(part) for part in CURRENT.split("."))
NEWER = f"{_major}.{_minor + 1}.0"
NEWER_PATCH = f"{_major}.{_minor}.{_patch + 1}"
REFUSED = f"recorded with suite lobstack-tools {NEWER}, newer than the judging suite {CURRENT}"

pytestmark = pytest.mark.process


def _copy(tmp_path: Path, *models: str) -> Path:
    root = tmp_path / "cassettes"
    for model in models:
        shutil.copytree(FIXTURES / model, root / model)
    return root


def _set_recorded_version(model_dir: Path, version: str) -> None:
    manifest = model_dir / "manifest.json"
    data = json.loads(manifest.read_text())
    data["suite"]["version"] = version
    manifest.write_text(json.dumps(data, indent=2))


def test_results_name_the_judge_and_every_recording(tmp_path: Path) -> None:
    root = _copy(tmp_path, ORACLE, FLAKY)
    out = tmp_path / "results.json"
    done = run_lobrec(["rescore", str(root), "--json", str(out)])
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["lobrec_version"] == __version__
    assert data["suite"] == {
        "name": "lobstack-tools",
        "version": CURRENT,
        "sha256": suite_fingerprint(load_suite(SUITE)),
        "source": "bundled",
    }
    flaky, oracle = data["models"]
    manifest = json.loads((root / FLAKY / "manifest.json").read_text())
    assert [r["run"] for r in flaky["recorded"]] == [1, 2, 3]
    assert flaky["recorded"][0] == {
        "run": 1,
        "suite": manifest["suite"],
        "lobrec_version": manifest["lobrec_version"],
        "started_at": manifest["started_at"],
        "finished_at": manifest["finished_at"],
    }
    assert [r["suite"]["version"] for r in oracle["recorded"]] == ["1.0.0"]
    # Only the top-level suite carries its hash and origin.
    assert flaky["suite"] == {"name": "lobstack-tools", "version": CURRENT}
    line = f"Judged with suite lobstack-tools {CURRENT} (bundled) by lobrec {__version__}; "
    assert line + "cassettes recorded with suite 1.0.0, 1.1.0." in done.stdout.decode()


def test_a_suite_given_is_named_by_its_path_and_rescoring_again_is_byte_identical(tmp_path: Path) -> None:
    root = _copy(tmp_path, ORACLE)
    given = tmp_path / "my-suite.json"
    shutil.copy(SUITE, given)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        done = run_lobrec(["rescore", str(root), "--suite", str(given), "--json", str(out)])
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()
    assert json.loads(first.read_text())["suite"]["source"] == str(given)


def test_cassettes_from_a_newer_suite_are_refused_in_one_line(tmp_path: Path) -> None:
    root = _copy(tmp_path, ORACLE)
    _set_recorded_version(root / ORACLE, NEWER)
    done = run_lobrec(["rescore", str(root), "--json", str(tmp_path / "r.json")])
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"lobrec: {root / ORACLE}: recorded with suite lobstack-tools {NEWER}, "
        f"newer than the judging suite {CURRENT}; "
        "judge it with that suite (--suite FILE) or pass --allow-newer-suite\n"
    )
    assert not (tmp_path / "r.json").exists()

    done = run_lobrec(["rescore", str(root), "--allow-newer-suite", "--json", str(tmp_path / "r.json")])
    assert done.returncode == 0, done.stderr
    (model,) = json.loads((tmp_path / "r.json").read_text())["models"]
    assert model["recorded"][0]["suite"]["version"] == NEWER
    assert f"cassettes recorded with suite {NEWER}" in done.stdout.decode()


def test_a_newer_run_folder_is_refused_too(tmp_path: Path) -> None:
    root = _copy(tmp_path, FLAKY)
    _set_recorded_version(root / FLAKY / "runs" / "3", NEWER_PATCH)
    done = run_lobrec(["rescore", str(root)])
    assert done.returncode == 2
    assert (
        f"runs/3: recorded with suite lobstack-tools {NEWER_PATCH}, newer than the judging suite {CURRENT}"
        in (done.stderr.decode())
    )


def test_rescore_against_an_older_suite_is_not_refused(tmp_path: Path) -> None:
    """`--against` judges with an older suite on purpose: only the judging suite is held to the rule."""
    root = _copy(tmp_path, FLAKY)
    done = run_lobrec(["rescore", str(root), "--against", str(ROOT / "suite" / "history" / "1.0.0.json")])
    assert done.returncode == 0, done.stderr


def test_diff_refuses_a_newer_recording_unless_asked(tmp_path: Path) -> None:
    root = _copy(tmp_path, ORACLE, FLAKY)
    _set_recorded_version(root / ORACLE, NEWER)
    done = run_lobrec(["diff", str(root / ORACLE), str(root / FLAKY)])
    assert done.returncode == 2
    assert (
        f"recorded with suite lobstack-tools {NEWER}, newer than the judging suite {CURRENT}"
        in done.stderr.decode()
    )
    done = run_lobrec(["diff", str(root / ORACLE), str(root / FLAKY), "--allow-newer-suite"])
    assert done.returncode == 0, done.stderr


def test_diff_refuses_a_results_file_judged_on_an_older_suite_than_its_recording(tmp_path: Path) -> None:
    root = _copy(tmp_path, ORACLE)
    _set_recorded_version(root / ORACLE, NEWER)
    results = tmp_path / "r.json"
    assert run_lobrec(["rescore", str(root), "--allow-newer-suite", "--json", str(results)]).returncode == 0
    done = run_lobrec(["diff", str(results), str(results)])
    assert done.returncode == 2
    assert "(model fixture/oracle, run 1)" in done.stderr.decode()


def test_record_refuses_to_add_to_a_newer_recording(tmp_path: Path) -> None:
    """Refused before any request: the base URL is a closed loopback port."""
    root = _copy(tmp_path, ORACLE)
    _set_recorded_version(root / ORACLE, NEWER)
    before = (root / ORACLE / "manifest.json").read_bytes()
    done = run_lobrec(
        [
            *["record", "--model", "fixture/oracle", "--cassettes", str(root), "--missing"],
            *["--base-url", "http://127.0.0.1:9/v1"],
        ]
    )
    assert done.returncode == 2
    assert (
        f"recorded with suite lobstack-tools {NEWER}, newer than the judging suite {CURRENT}"
        in done.stderr.decode()
    )
    assert (root / ORACLE / "manifest.json").read_bytes() == before


def test_an_old_results_file_is_still_read() -> None:
    """Files written before lobrec 0.3.0 have none of the provenance keys; their reports leave them out."""
    data = json.loads((ROOT / "fixtures" / "expected-results.json").read_text())
    del data["lobrec_version"]
    del data["suite"]["sha256"], data["suite"]["source"]
    for model in data["models"]:
        del model["recorded"]
    run = decode_results(json.dumps(data).encode())
    assert run.lobrec_version is None and run.models[0].recorded == []
    assert provenance(run) == f"Judged with suite lobstack-tools {CURRENT}."

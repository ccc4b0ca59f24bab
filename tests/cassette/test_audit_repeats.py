"""`lobrec audit` on repeated runs: `runs/<n>/` folders are audited like their model folder, and
anything else under `runs/` is a finding."""

from __future__ import annotations

import shutil
from pathlib import Path

from lobrec.cassette.audit import audit
from tests.support.repeated import COMMITTED, ORACLE, SLOPPY, repeated_model


def _lines(root: Path) -> list[str]:
    return [str(finding) for finding in audit(root, suite_version="1.1.0")]


def test_a_repeated_recording_is_clean(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    repeated_model(root, ORACLE, runs=(2, 3), broken={2: ["sel-01"]})
    assert _lines(root) == []


def test_run_folders_get_the_model_folders_checks(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    model = repeated_model(root, ORACLE, runs=(2, 3))
    runs = model / "runs"
    shutil.copy(COMMITTED / SLOPPY / "manifest.json", runs / "2" / "manifest.json")
    (runs / "3" / "sel-04.json").write_text("{not json")
    (runs / "3" / "notes.txt").write_text("x")
    assert _lines(root) == [
        f"{runs / '2' / 'manifest.json'}: model 'fixture/sloppy' does not belong in directory "
        f"'{ORACLE}' (expected '{SLOPPY}')",
        f"{runs / '3' / 'notes.txt'}: not a cassette file name (<case-id>.json)",
        f"{runs / '3' / 'sel-04.json'}: not valid JSON: JSON is malformed: object keys must be strings "
        "(byte 1)",
    ]


def test_anything_else_under_runs_is_a_finding(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    model = repeated_model(root, ORACLE, runs=(2, 4))
    runs = model / "runs"
    for name in ("1", "01", "x"):
        (runs / name).mkdir()
    (runs / "5").write_text("a file")
    (runs / "9").symlink_to(runs / "2")
    (runs / "2" / "runs").mkdir()  # runs do not nest
    kinds = (
        "not a run folder (runs 2 to 1000 live in runs/<n>/, n in decimal without leading zeros; "
        "run 1 is the model folder itself)"
    )
    assert _lines(root) == [
        f"{runs / '01'}: {kinds}",
        f"{runs / '1'}: {kinds}",
        f"{runs / '2' / 'runs'}: not a regular file",
        f"{runs / '3'}: missing: the highest run is 4, so run 3 counts as unrecorded",
        f"{runs / '5'}: {kinds}",
        f"{runs / '9'}: is a symlink (to {runs / '2'}); model directories must be real directories",
        f"{runs / 'x'}: {kinds}",
    ]


def test_runs_as_a_file_is_a_finding(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    shutil.copytree(COMMITTED / ORACLE, root / ORACLE)
    (root / ORACLE / "runs").write_text("x")
    assert _lines(root) == [f"{root / ORACLE / 'runs'}: not a folder (runs/ holds the run folders runs/<n>/)"]

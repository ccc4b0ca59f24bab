"""The cassettes folder given to `lobrec rescore DIR` and `lobrec audit DIR`: one rule for both.

The root itself may be a symlink to a folder (`cassettes -> /mnt/shared/cassettes`): both commands
follow it, as `ls DIR` and `find -H DIR` do, since the user named it. Nothing inside it is
followed: a symlinked model folder is skipped by rescore and a finding of audit, a symlinked
cassette is an errored case and a finding. A root that is not a folder gets the same one line from
both (`lobrec.cassette.layout.cassettes_root`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cassette.layout import model_dir_name
from lobrec.cli import app
from lobrec.core.suite.format import Suite

MODEL = "fixture/oracle"
OTHER = "auto"


def _rescore(root: Path, suite: Path, out: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["rescore", str(root), "--suite", str(suite), "--json", str(out)])
    return result.exit_code, json.loads(out.read_bytes()) if out.exists() else {}


def _audit(root: Path, suite: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["audit", str(root), "--suite", str(suite)])
    return result.exit_code, result.stdout, result.stderr


def _statuses(results: dict) -> dict[str, dict[str, str]]:
    return {m["model"]: {c["id"]: c["status"] for c in m["cases"]} for m in results["models"]}


def _linked(good: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the good recording in `real/`, and `link`, a symlink to it."""
    real = tmp_path / "real"
    shutil.copytree(good, real)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    return real, link


def test_a_symlinked_root_is_followed_by_rescore_and_audit_alike(
    recorded: tuple[Suite, Path], small_suite_path: Path, tmp_path: Path
) -> None:
    _, good = recorded
    real, link = _linked(good, tmp_path)

    through_link = _rescore(link, small_suite_path, tmp_path / "link.json")
    direct = _rescore(real, small_suite_path, tmp_path / "real.json")

    assert through_link[0] == direct[0] == 0
    assert _statuses(through_link[1]) == _statuses(direct[1])
    assert set(_statuses(direct[1])) == {MODEL, OTHER}
    assert _audit(link, small_suite_path) == (0, f"{link}: no findings\n", "")
    assert _audit(real, small_suite_path) == (0, f"{real}: no findings\n", "")


def test_symlinks_inside_a_symlinked_root_stay_refused_by_both(
    recorded: tuple[Suite, Path], small_suite_path: Path, tmp_path: Path
) -> None:
    _, good = recorded
    real, link = _linked(good, tmp_path)
    model_dir = real / model_dir_name(MODEL)
    cassette = model_dir / "sel-01.json"
    outside = tmp_path / "outside.json"
    cassette.rename(outside)
    cassette.symlink_to(outside)
    mirror = real / "mirror"
    mirror.symlink_to(real / model_dir_name(OTHER), target_is_directory=True)

    code, results = _rescore(link, small_suite_path, tmp_path / "r.json")

    statuses = _statuses(results)
    assert code == 6  # a case could not be read (unreadable)
    assert set(statuses) == {MODEL, OTHER}  # the symlinked model folder is never read
    assert statuses[MODEL].pop("sel-01") == "errored"
    assert set(statuses[MODEL].values()) == set(statuses[OTHER].values()) == {"scored"}
    reasons = {c["id"]: c.get("reason") for c in results["models"][1]["cases"]}
    assert (
        reasons["sel-01"]
        == f"{link / model_dir_name(MODEL) / 'sel-01.json'}: is a symlink; cassettes must be regular files"
    )

    code, stdout, stderr = _audit(link, small_suite_path)
    assert (code, stderr) == (1, f"lobrec: 2 finding(s) in {link}\n")
    assert stdout.splitlines() == [
        f"{link / model_dir_name(MODEL) / 'sel-01.json'}: is a symlink (to {outside}); "
        "cassettes must be regular files",
        f"{link / 'mirror'}: is a symlink (to {real / model_dir_name(OTHER)}); "
        "model directories must be real directories",
    ]


NOT_FOLDERS = [
    ("missing", None, "no such cassette directory"),
    ("a file", "file", "not a folder (give the folder that holds the model folders)"),
    ("a symlink to a file", "link-to-file", "a symlink to {target}, which is not a folder"),
    ("a dangling symlink", "dangling", "a symlink to {target}, which is not a folder"),
]


@pytest.mark.parametrize(
    ("kind", "message"), [row[1:] for row in NOT_FOLDERS], ids=[row[0] for row in NOT_FOLDERS]
)
def test_a_root_that_is_not_a_folder_gets_the_same_line_from_both(
    small_suite_path: Path, tmp_path: Path, kind: str | None, message: str
) -> None:
    root = tmp_path / "cassettes"
    target = tmp_path / "elsewhere"
    if kind == "file":
        root.write_text("not a folder\n")
    elif kind == "link-to-file":
        target.write_text("not a folder\n")
        root.symlink_to(target)
    elif kind == "dangling":
        root.symlink_to(target)
    line = f"lobrec: {root}: {message.format(target=target)}\n"

    rescored = CliRunner().invoke(app, ["rescore", str(root), "--suite", str(small_suite_path)])
    audited = CliRunner().invoke(app, ["audit", str(root), "--suite", str(small_suite_path)])

    assert (rescored.exit_code, rescored.stdout, rescored.stderr) == (2, "", line)
    assert (audited.exit_code, audited.stdout, audited.stderr) == (2, "", line)

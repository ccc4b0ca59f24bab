"""`suite diff` and `suite check --against`: each kind of change is classified and needs its bump.

Built on the small suite of the build-check tests: each row changes one thing and names the kind of
change and the bump it needs; a NEW version that is not that bump is refused with one line.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cli.suite import suite_app
from lobrec.core.suite.format import encode_suite
from lobrec.core.suite.versioning import diff_suites, version_bump
from tests.suite.test_suitecheck import BASE, _sample, _suite

ROOT = Path(__file__).resolve().parents[2]

Edit = Callable[[dict[str, Any]], object]


def _case(data: dict[str, Any], case_id: str) -> dict[str, Any]:
    return next(case for case in data["cases"] if case["id"] == case_id)


def _first_call(data: dict[str, Any], case_id: str) -> dict[str, Any]:
    return _case(data, case_id)["steps"][0]["calls"][0]


def _add_case(data: dict[str, Any]) -> None:
    extra = copy.deepcopy(_case(data, "sel-01"))
    extra["id"] = "sel-02"
    data["cases"].insert(1, extra)


EDITS: list[tuple[str, Edit, str, str]] = [
    ("case added", _add_case, "added", "minor"),
    ("case removed", lambda d: d["cases"].pop(0), "removed", "major"),
    (
        "user message",
        lambda d: _case(d, "sel-01")["messages"][1].update(content="Read a.py now."),
        "request",
        "minor",
    ),
    ("tools offered", lambda d: _case(d, "sel-01")["tools"].reverse(), "request", "minor"),
    (
        "tool description",
        lambda d: d["tools"][0]["function"].update(description="Reads a file."),
        "request",
        "minor",
    ),
    (
        "scripted result",
        lambda d: _first_call(d, "chain-01").update(result='{"path": "d.py"}'),
        "request",
        "minor",
    ),
    (
        "check",
        lambda d: _first_call(d, "sel-01")["checks"].append({"kind": "absent", "arg": "start_line"}),
        "checks",
        "minor",
    ),
    ("note", lambda d: _case(d, "sel-01").update(note="Another note."), "notes", "patch"),
    ("reference answer", lambda d: _case(d, "none-01")["steps"][0].update(answer="Hi!"), "notes", "patch"),
    (
        "wrong answer",
        lambda d: _case(d, "sel-01")["steps"][0].update(wrong=[_sample("text", [])]),
        "notes",
        "patch",
    ),
    (
        "alternate",
        lambda d: _case(d, "sel-01")["steps"][0].update(
            alternates=[_sample("from line 1", [("read_file", {"path": "a.py", "start_line": 1})])]
        ),
        "notes",
        "patch",
    ),
]


@pytest.mark.parametrize(("edit", "kind", "bump"), [e[1:] for e in EDITS], ids=[e[0] for e in EDITS])
def test_each_change_is_classified_with_its_bump(edit: Edit, kind: str, bump: str) -> None:
    new = copy.deepcopy(BASE)
    edit(new)
    result = diff_suites(_suite(BASE), _suite(new))
    assert {change.kind for change in result.changes} == {kind}
    assert result.required == bump


def test_the_largest_bump_wins_and_nothing_changed_needs_none() -> None:
    assert diff_suites(_suite(BASE), _suite(BASE)).changes == []
    assert diff_suites(_suite(BASE), _suite(BASE)).required == "none"
    new = copy.deepcopy(BASE)
    _case(new, "sel-01").update(note="Another note.")
    new["cases"].pop()
    result = diff_suites(_suite(BASE), _suite(new))
    assert result.required == "major"
    assert result.cases("removed") == ["chain-01"] and result.cases("notes") == ["sel-01"]


def test_a_system_prompt_change_is_a_request_change_of_every_case() -> None:
    new = copy.deepcopy(BASE)
    new["system_prompt"] = "Another prompt."
    for case in new["cases"]:
        case["messages"][0]["content"] = "Another prompt."
    result = diff_suites(_suite(BASE), _suite(new))
    assert len(result.cases("request")) == len(BASE["cases"])
    assert result.required == "minor"


@pytest.mark.parametrize(
    ("old", "new", "bump"),
    [
        ("1.0.0", "1.0.0", "none"),
        ("1.0.0", "1.0.1", "patch"),
        ("1.0.3", "1.1.0", "minor"),
        ("1.2.3", "2.0.0", "major"),
        ("1.1.0", "1.0.9", "backwards"),
        ("1.0.0", "1.1.1", "invalid"),
        ("1.0.0", "2.1.0", "invalid"),
        ("1.0.0", "1.2.0", "invalid"),
        ("1.0.0", "1.0.2", "invalid"),
        ("1.0.0", "one", "invalid"),
    ],
)
def test_version_bump(old: str, new: str, bump: str) -> None:
    assert version_bump(old, new) == bump


# --- the CLI -------------------------------------------------------------------------------------

runner = CliRunner()


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_bytes(encode_suite(_suite(data)))
    return path


def _with_check_change(version: str) -> dict[str, Any]:
    new = copy.deepcopy(BASE)
    new["version"] = version
    _first_call(new, "sel-01")["checks"].append({"kind": "absent", "arg": "start_line"})
    return new


@pytest.mark.parametrize("version", ["1.0.0", "1.0.1", "2.0.0", "1.2.0"])
def test_check_against_refuses_a_wrong_bump_in_one_line(tmp_path: Path, version: str) -> None:
    old = _write(tmp_path / "old.json", BASE)
    new = _write(tmp_path / "new.json", _with_check_change(version))
    result = runner.invoke(suite_app, ["check", str(new), "--against", str(old)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "need a minor bump (sel-01: steps[0] expected calls or checks)" in result.stderr


def test_check_against_accepts_the_required_bump(tmp_path: Path) -> None:
    """On the kept 1.0.0 suite (which passes every build rule): a note change as 1.0.1 is right."""
    kept = ROOT / "suite" / "history" / "1.0.0.json"
    data = json.loads(kept.read_text(encoding="utf-8"))
    data["version"] = "1.0.1"
    data["cases"][0]["note"] += " Reworded."
    new = _write(tmp_path / "new.json", data)
    result = runner.invoke(suite_app, ["check", str(new), "--against", str(kept)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("suite lobstack-tools 1.0.1: 80 cases")
    data["version"] = "1.1.0"
    result = runner.invoke(suite_app, ["check", str(_write(new, data)), "--against", str(kept)])
    assert result.exit_code != 0


def test_diff_prints_each_kind_and_the_bump(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.json", BASE)
    new = _write(tmp_path / "new.json", _with_check_change("1.0.1"))
    result = runner.invoke(suite_app, ["diff", str(old), str(new)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "suite 1.0.0 -> 1.0.1: 1 change; required bump: minor, actual: patch",
        "",
        "checks changed: a rescore is enough (minor): 1 case",
        "  sel-01: steps[0] expected calls or checks",
        "bump: version 1.0.1 is a patch bump from 1.0.0, but the changes need a minor bump "
        "(sel-01: steps[0] expected calls or checks): make it 1.1.0",
    ]


@pytest.mark.parametrize(
    ("version", "said"),
    [
        ("1.0.0", "version 1.0.0 is the same as the old suite's"),
        ("0.9.0", "version 0.9.0 is lower than 1.0.0"),
        ("1.3.0", "version 1.3.0 is not one major, minor or patch step from 1.0.0"),
        ("2.0.0", "version 2.0.0 is a major bump from 1.0.0"),
    ],
)
def test_check_against_says_plainly_what_the_version_is_and_what_it_should_be(
    tmp_path: Path, version: str, said: str
) -> None:
    old = _write(tmp_path / "old.json", BASE)
    new = _write(tmp_path / "new.json", _with_check_change(version))
    result = runner.invoke(suite_app, ["check", str(new), "--against", str(old)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"lobrec: {said}, but the changes need a minor bump "
        "(sel-01: steps[0] expected calls or checks): make it 1.1.0\n"
    )


def test_a_bump_with_nothing_changed_says_to_keep_the_version(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.json", BASE)
    new = _write(tmp_path / "new.json", {**BASE, "version": "1.0.1"})
    result = runner.invoke(suite_app, ["diff", str(old), str(new)])
    assert result.stdout.splitlines() == [
        "suite 1.0.0 -> 1.0.1: 0 changes; required bump: none, actual: patch",
        "bump: version 1.0.1 is a patch bump from 1.0.0, but nothing changed: no bump is needed (keep 1.0.0)",
    ]


def test_the_published_suite_is_the_bump_its_changes_from_the_last_kept_version_need() -> None:
    """The release gate: red until suite/src/meta.json carries the version the changes require.

    The base is the newest version kept in suite/history/ (1.2.0 for 1.3.0): each release is one
    bump from the one before it, so an older base is two bumps away and refused."""
    history = sorted(
        (ROOT / "suite" / "history").glob("*.json"),
        key=lambda path: tuple(int(part) for part in path.stem.split(".")),
    )
    published = ROOT / "suite" / "suite.json"
    kept = history[-1]
    assert kept.stem != json.loads(published.read_bytes())["version"], "the current version is kept too early"
    result = runner.invoke(suite_app, ["check", str(published), "--against", str(kept)])
    assert "need a" not in result.stderr, result.stderr
    assert result.exit_code == 0, result.stderr

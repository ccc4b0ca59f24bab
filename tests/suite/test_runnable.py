"""The rules a run needs of a suite (`lobrec.core.suite.run_rules`): every committed suite keeps them, each
broken rule is one line in file order, and `read_suite` (for `suite check` and `suite show`) still
reads a suite that `load_suite` (for runs and the Python API) refuses."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from lobrec.core.suite.build_rules import check_suite
from lobrec.core.suite.format import CASE_ID_RULE, decode_suite, encode_suite
from lobrec.core.suite.run_rules import runnable_problems
from lobrec.errors import SuiteError
from lobrec.suite_file import load_suite, read_suite
from tests.support.gateway import build_small_suite

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = [ROOT / "suite" / "suite.json", *sorted((ROOT / "suite" / "history").glob("*.json"))]


@pytest.mark.parametrize("path", COMMITTED, ids=[path.name for path in COMMITTED])
def test_every_committed_suite_is_runnable(path: Path) -> None:
    assert list(runnable_problems(read_suite(path))) == []


def _broken() -> dict:
    """The small suite with a made-up argument in its first case and a bad id in its second."""
    suite = json.loads(encode_suite(build_small_suite()))
    suite["cases"][0]["steps"][0]["calls"][0]["checks"][0]["arg"] = "pth"
    suite["cases"][1]["id"] = "a b"
    return suite


def test_every_broken_rule_is_one_line_ids_before_the_cases_content() -> None:
    suite = decode_suite(json.dumps(_broken()))
    tool = suite.cases[0].steps[0].calls[0].name  # type: ignore[union-attr]

    assert list(runnable_problems(suite)) == [
        f"cases[1]: id 'a b' cannot name a cassette file (<id>.json): it holds a space; {CASE_ID_RULE}",
        f"case {suite.cases[0].id}: steps[0].calls[0].checks[0]: argument 'pth' is not a parameter of {tool}",
    ]


def test_read_suite_reads_what_load_suite_refuses(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(_broken()), encoding="utf-8")

    with pytest.raises(SuiteError) as refused:
        load_suite(path)

    assert str(refused.value) == f"{path}: {next(runnable_problems(read_suite(path)))}"
    assert read_suite(path).cases[1].id == "a b"


@pytest.mark.parametrize("version", ["draft", "1.2", "", "v1.2.0"])
def test_a_suite_whose_version_is_not_semver_is_not_runnable(version: str) -> None:
    """Replay compares versions: a "draft" suite errored every case as "another major version" and
    advised removing the manifests; the run now refuses the suite itself, in one line."""
    suite = json.loads(encode_suite(build_small_suite()))
    suite["version"] = version

    assert list(runnable_problems(decode_suite(json.dumps(suite)))) == [
        f"version: {version!r} is not a semantic version (MAJOR.MINOR.PATCH)"
    ]


def test_suite_check_reports_every_run_rule_in_the_same_words() -> None:
    """One rule set: each line a run would refuse a suite with is a line of `suite check` too."""
    from tests.suite.test_suitecheck import BASE, COUNTS, MUTATIONS, _suite

    broken = 0
    for name, mutate, _ in MUTATIONS:
        data = copy.deepcopy(BASE)
        mutate(data)
        suite = _suite(data)
        run_lines = list(runnable_problems(suite))
        broken += bool(run_lines)
        assert set(run_lines) <= set(check_suite(suite, COUNTS)), name
    assert broken >= 5  # the mutations do reach the run rules

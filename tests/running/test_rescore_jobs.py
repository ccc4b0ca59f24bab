"""`rescore --jobs N` (issue 11): model folders spread over processes, results byte-identical to one."""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
from pathlib import Path

import pytest

from lobrec.core.metrics.results import CaseResult, encode_results
from lobrec.running.replay import rescore
from lobrec.running.runner import Progress
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite(ROOT / "suite" / "suite.json")


def _rescore(root: Path, jobs: int) -> tuple[bytes, dict[str, list[str]]]:
    outcome = asyncio.run(rescore(SUITE, root, jobs=jobs))
    return encode_results(outcome.run), {m.model: sorted(m.unreadable) for m in outcome.models}


@pytest.mark.parametrize("jobs", [2, 3, 64])
def test_the_committed_cassettes_give_the_same_file_with_any_number_of_jobs(jobs: int) -> None:
    assert _rescore(ROOT / "fixtures" / "cassettes", jobs) == _rescore(ROOT / "fixtures" / "cassettes", 1)


def test_unreadable_cases_and_broken_folders_come_back_from_the_workers(tmp_path: Path) -> None:
    root = tmp_path / "cassettes"
    shutil.copytree(ROOT / "fixtures" / "cassettes", root)
    (root / "fixture%2Foracle" / "sel-01.json").write_text("{not json")
    (root / "fixture%2Fsloppy" / "manifest.json").write_text("[]")
    one, many = _rescore(root, 1), _rescore(root, 2)
    assert one == many
    unreadable = many[1]
    assert unreadable["fixture/oracle"] == ["sel-01"]
    assert len(unreadable["fixture/sloppy"]) == len(SUITE.cases)


def test_two_folders_of_one_model_are_put_together_as_in_one_process(tmp_path: Path) -> None:
    """`fixture%2foracle` (lower-case escape, broken manifest) reads as model fixture/oracle too: its
    cases and the real folder's meet in one entry, whichever process replayed each folder."""
    root = tmp_path / "cassettes"
    shutil.copytree(ROOT / "fixtures" / "cassettes", root)
    shutil.copytree(root / "fixture%2Foracle", root / "fixture%2foracle")
    (root / "fixture%2foracle" / "manifest.json").write_text("[]")
    one, many = _rescore(root, 1), _rescore(root, 4)
    assert one == many
    models = [entry["model"] for entry in json.loads(many[0])["models"]]
    assert models.count("fixture/oracle") == 1
    assert len(models) == len([path for path in root.iterdir() if path.is_dir()]) - 1


def test_repeated_models_give_the_same_file_with_any_number_of_jobs(tmp_path: Path) -> None:
    """Each run folder is a unit of work: runs of one model spread over workers, a missing run, a
    broken run manifest, and two spellings of one model that both have runs are all put together
    as in one process."""
    from tests.support.repeated import ORACLE, SLOPPY, repeated_model

    root = tmp_path / "cassettes"
    shutil.copytree(ROOT / "fixtures" / "cassettes", root, ignore=shutil.ignore_patterns(ORACLE, SLOPPY))
    repeated_model(root, ORACLE, runs=(2, 3, 5), broken={2: ["sel-01", "sel-02"], 3: ["sel-01"]})
    repeated_model(root, SLOPPY, runs=(2,), broken={1: ["sel-02"]})
    (root / SLOPPY / "runs" / "2" / "manifest.json").write_text("[]")
    shutil.copytree(root / ORACLE, root / "fixture%2foracle")
    (root / "fixture%2foracle" / "manifest.json").write_text("[]")
    one = _rescore(root, 1)
    assert b'"repeats"' in one[0]
    for jobs in (2, 3, 64):
        assert _rescore(root, jobs) == one
    models = {entry["model"]: entry for entry in json.loads(one[0])["models"]}
    assert models["fixture/oracle"]["repeats"]["runs"] == 5
    assert models["fixture/sloppy"]["repeats"]["runs"] == 2
    assert "repeats" not in models["fixture/eager"]


class _FreezeWatch(Progress):
    """Notes how many objects the collector had set aside each time a case was reported."""

    def __init__(self) -> None:
        self.frozen: list[int] = []

    def finished(self, model: str, result: CaseResult) -> None:
        self.frozen.append(gc.get_freeze_count())


@pytest.mark.parametrize("jobs", [1, 2])
def test_judged_results_are_kept_from_the_collector_during_the_run_and_given_back_after(jobs: int) -> None:
    """A rescore keeps every model's cases alive to the end, so it sets them aside from the collector's
    full collections (`gc.freeze`) while it runs, and gives them back when it returns."""
    assert gc.get_freeze_count() == 0
    watch = _FreezeWatch()
    asyncio.run(rescore(SUITE, ROOT / "fixtures" / "cassettes", watch, jobs=jobs))
    assert watch.frozen and min(watch.frozen) > 0
    assert gc.get_freeze_count() == 0


def test_a_program_that_froze_objects_itself_keeps_its_collector_as_it_set_it() -> None:
    """`gc.unfreeze` at the end would hand back what the program froze (a server before it forks):
    a rescore then leaves the collector alone."""
    held = [object() for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        watch = _FreezeWatch()
        asyncio.run(rescore(SUITE, ROOT / "fixtures" / "cassettes", watch, jobs=1))
        assert watch.frozen and set(watch.frozen) == {frozen}
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    assert held

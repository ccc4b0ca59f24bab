"""A run folder's names are read once (`ReplayModel.present`), and answer as a stat per case would
(`cassette.manifest.file_present`): a dangling link is there, a missing name is not, and a name
the listing lacks (written since, or spelled in another case on a file system that ignores case) is
asked of the file system."""

from __future__ import annotations

from pathlib import Path

import pytest

from lobrec.cassette.manifest import file_present
from lobrec.running.replay import ReplayModel


def _folder(tmp_path: Path) -> tuple[ReplayModel, Path]:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "a.json").write_text("{}")
    (folder / "b.json").symlink_to(folder / "nowhere.json")
    return ReplayModel(model="m", directory=folder, manifest=None), folder


@pytest.mark.parametrize("name", ["a.json", "b.json", "c.json", "nowhere.json"])
def test_present_answers_as_a_stat_does(tmp_path: Path, name: str) -> None:
    replay, folder = _folder(tmp_path)
    assert replay.present(folder / name) == file_present(folder / name)


def test_the_folder_is_listed_once_and_a_name_written_since_is_still_seen(tmp_path: Path) -> None:
    replay, folder = _folder(tmp_path)
    assert not replay.present(folder / "c.json")
    assert replay.listed == frozenset({"a.json", "b.json"})
    (folder / "c.json").write_text("{}")
    assert replay.present(folder / "c.json")
    assert replay.listed == frozenset({"a.json", "b.json"})


def test_a_folder_that_cannot_be_listed_has_nothing(tmp_path: Path) -> None:
    replay = ReplayModel(model="m", directory=tmp_path / "gone", manifest=None)
    assert not replay.present(tmp_path / "gone" / "a.json")

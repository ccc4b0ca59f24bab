"""docs/architecture.md's rooms are the package's folders: every module it names exists, every
module of the package is in a room it names, and each pure room is one folder of the core."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "lobrec"
DOC = ROOT / "docs" / "architecture.md"


def _rooms() -> dict[str, list[str]]:
    """Each room's name and the module paths (relative to src/lobrec) its row names: files, folders
    (`running/`), the modules a folder's parentheses list (`cassette/` (`format`, ...)) and globs."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## The rooms") :].split("\n## ", 1)[0]
    rooms = {}
    for line in table.splitlines():
        match = re.match(r"\| \*\*(.+?)\*\* .*?\| (.+?) \| ", line)
        if match is None:
            continue
        name, cell = match.groups()
        paths = []
        for folder, inside in re.findall(r"`([\w/]+/)`(?: \(([^)]*)\))?", cell):
            paths.append(folder)
            paths.extend(f"{folder}{module}.py" for module in re.findall(r"`(\w+)`", inside or ""))
        paths.extend(re.findall(r"`([\w/*]+\.py)`", cell))
        rooms[name] = paths
    return rooms


def _modules() -> list[str]:
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


def test_every_module_the_rooms_name_exists() -> None:
    modules = set(_modules())
    missing = [
        path
        for paths in _rooms().values()
        for path in paths
        if not (
            path in modules
            or (path.endswith("/") and (PACKAGE / path).is_dir())
            or ("*" in path and fnmatch.filter(modules, path))
        )
    ]
    assert missing == []


def test_every_module_of_the_package_is_in_a_room() -> None:
    named = [path for paths in _rooms().values() for path in paths]
    homeless = [
        module
        for module in _modules()
        if not module.endswith("/__init__.py")
        and not any(
            module == path
            or (path.endswith("/") and module.startswith(path))
            or ("*" in path and fnmatch.fnmatch(module, path))
            for path in named
        )
    ]
    assert homeless == []


def test_each_pure_room_is_one_folder_of_the_core() -> None:
    rooms = _rooms()
    for room in ("Suite", "Judge", "Metrics"):
        folders = {path.rsplit("/", 1)[0] for path in rooms[room] if path.count("/") == 2}
        assert folders == {f"core/{room.lower()}"}, room
        assert {module for module in _modules() if module.startswith(f"core/{room.lower()}/")} == {
            *(path for path in rooms[room] if path.startswith(f"core/{room.lower()}/")),
            f"core/{room.lower()}/__init__.py",
        }, room

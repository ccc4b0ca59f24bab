"""lobrec's version is written once, in a leaf module every reader imports, and the build reads it
from there: no module reads it back from the package's `__init__` (which imports lazily)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import lobrec
from lobrec import _version

ROOT = Path(lobrec.__file__).parent
PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def test_the_version_module_is_a_leaf() -> None:
    tree = ast.parse(Path(_version.__file__).read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert lobrec.__version__ == _version.__version__


def test_no_module_reads_the_version_from_the_package() -> None:
    readers = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.module == "lobrec"
        and any(alias.name == "__version__" for alias in node.names)
    )
    assert readers == []


def test_the_build_reads_the_version_from_the_leaf() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert config["tool"]["hatch"]["version"]["path"] == "src/lobrec/_version.py"

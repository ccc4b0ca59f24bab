"""The `lobrec.cli` package has no import cycle: commands share code through the helper modules
(`_`-prefixed) only, and no helper imports a command.

Read from the source with `ast` (not by importing), so a cycle hidden behind a function-level
import counts too: those are the ones that used to go round in a circle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import lobrec.cli

PACKAGE = "lobrec.cli"
FOLDER = Path(lobrec.cli.__file__).parent


def module_name(path: Path) -> str:
    return PACKAGE if path.name == "__init__.py" else f"{PACKAGE}.{path.stem}"


MODULES = {module_name(path): path for path in sorted(FOLDER.glob("*.py"))}
HELPERS = sorted(name for name in MODULES if name.rpartition(".")[2].startswith("_"))
COMMANDS = sorted(set(MODULES) - {PACKAGE, *HELPERS})


def cli_imports(path: Path) -> set[str]:
    """Every `lobrec.cli` module the file imports, at any depth of the file (functions included)."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else PACKAGE
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the package
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base])
                base = base.rstrip(".")
            # `from lobrec import cli` and `from lobrec.cli import audit` name modules too
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                found.add(name if name in MODULES else _owner(name))
    found.discard(module_name(path))
    return found


def _owner(name: str) -> str:
    """The module a dotted name lives in: `lobrec.cli._output.say` -> `lobrec.cli._output`."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


GRAPH = {name: cli_imports(path) for name, path in MODULES.items()}


def test_the_package_has_every_command_module() -> None:
    expected = {"audit", "config", "diff", "fake", "history", "record", "rescore", "suite"}
    assert {name.rpartition(".")[2] for name in COMMANDS} == expected


def test_no_old_cli_modules_are_left_behind() -> None:
    assert not list(FOLDER.parent.glob("cli*.py"))


def test_the_package_has_helper_modules() -> None:
    assert len(HELPERS) > 1, HELPERS


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_module_imports_only_helpers(name: str) -> None:
    assert GRAPH[name] <= set(HELPERS), GRAPH[name]


@pytest.mark.parametrize("name", HELPERS)
def test_a_helper_imports_no_command(name: str) -> None:
    assert GRAPH[name] <= set(HELPERS), GRAPH[name]


def test_the_import_graph_is_acyclic() -> None:
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join([*path, name])
        if name in done:
            return
        for target in sorted(GRAPH[name]):
            visit(target, (*path, name))
        done.add(name)

    for name in sorted(GRAPH):
        visit(name, ())


@pytest.mark.process
@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_module_imports_first_in_a_fresh_interpreter(name: str) -> None:
    """Imported on its own first (as `python -m lobrec.fakegateway` imports `fake`), it works."""
    code = f"import {name}, lobrec.cli; assert lobrec.cli.app.registered_commands"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)

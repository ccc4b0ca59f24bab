"""The functional core never imports I/O libraries: a guard on `src/lobrec/core/`."""

from __future__ import annotations

import ast
from pathlib import Path

import lobrec.core

FORBIDDEN = {
    "httpx",
    "vcr",
    "rich",
    "typer",
    "socket",
    "subprocess",
    "asyncio",
    "urllib.request",
    "pathlib",
    "os",
}
CORE = Path(lobrec.core.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _core_modules() -> list[Path]:
    """Every module of the core, its rooms' folders included."""
    return sorted(CORE.rglob("*.py"))


def test_core_modules_exist_in_their_rooms() -> None:
    """The pure rooms of docs/architecture.md are folders of the core, so this guard covers them."""
    assert {
        "suite/format.py",
        "suite/jsonschema.py",
        "suite/checks.py",
        "suite/ecma.py",
        "judge/matching.py",
        "judge/step.py",
        "judge/wire.py",
        "metrics/rates.py",
        "metrics/results.py",
        "metrics/tiers.py",
        "memo.py",
    } <= {path.relative_to(CORE).as_posix() for path in _core_modules()}


def test_core_imports_no_io_library() -> None:
    offenders = {
        f"{path.relative_to(CORE)}: {name}"
        for path in _core_modules()
        for name in imported_modules(path)
        if name in FORBIDDEN or name.split(".")[0] in FORBIDDEN
    }
    assert offenders == set()


INPUT_ERRORS = {"SuiteError", "SchemaError"}
"""The shell's exception types the core may raise: those naming an input it was handed
(docs/architecture.md); network and disk failures are the shell's to name."""


def test_core_imports_only_itself_and_the_input_errors_of_lobrec() -> None:
    offenders = set()
    for path in _core_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lobrec"):
                if node.module == "lobrec.errors":
                    offenders.update(
                        f"{path.name}: {a.name}" for a in node.names if a.name not in INPUT_ERRORS
                    )
                elif not node.module.startswith("lobrec.core"):
                    offenders.add(f"{path.name}: {node.module}")
            elif isinstance(node, ast.Import):
                offenders.update(
                    f"{path.name}: {a.name}"
                    for a in node.names
                    if a.name.startswith("lobrec") and not a.name.startswith("lobrec.core")
                )
    assert offenders == set()

"""No import cycle among the modules of `lobrec`: each module can be imported first, on its own.

A cycle works until someone imports the modules in the other order, then fails with a half-built
module (`ImportError: cannot import name ... (most likely due to a circular import)`). The graph is
read from the source with `ast`, not by importing: an edge is every import that can run, at the
top level, in class bodies, `try` and `if` blocks, and inside functions too (an import moved into
a function hides a cycle from the loader, not from the reader: the two modules still need each
other). Only an import under `if TYPE_CHECKING:` (never run) is no edge.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import lobrec

ROOT = Path(lobrec.__file__).parent


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module under `root` by dotted name; a package by its own name (its `__init__.py`)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that can run, in order: at load time or when a function is called."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _run_imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []):
                    if isinstance(child, ast.stmt):
                        yield from _run_imports([child])
                    elif isinstance(child, ast.excepthandler | ast.match_case):
                        yield from _run_imports(child.body)


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module a dotted name lives in (`lobrec.core.suite.format.Suite` -> `lobrec.core.suite.format`)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules of the tree that `module` imports, at load time or in a function."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _run_imports(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            # `from pkg import name` loads `pkg.name` when that is a module, else `pkg`
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = _resolve(name, modules)
            if target is not None and target != module:
                found.add(target)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    modules = module_names(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component that has one, each as `[a, b, ..., a]`.

    Tarjan's algorithm finds the components; a path inside each names a concrete cycle, starting
    from the component's smallest name so that the message is stable.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(_cycle_in(graph, component) for component in components)


def _cycle_in(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's smallest name (breadth first, inside it)."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & component):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if target not in parents:
                    parents[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a component of two or more always has one


def test_lobrec_has_no_import_cycle() -> None:
    found = [" -> ".join(cycle) for cycle in cycles(import_graph(ROOT, "lobrec"))]
    assert found == []


def test_the_graph_sees_every_kind_of_import_that_can_run(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg.a import A\n")
    (package / "a.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import pkg.b\n"
        "try:\n    from . import c\nexcept ImportError:\n    from .sub import d\n"
        "if TYPE_CHECKING:\n    from pkg import e\n"
        "class A:\n    from pkg.f import F\n"
        "def later():\n    from pkg import g\n"
        "    if TYPE_CHECKING:\n        from pkg import e\n"
    )
    for name in ("b", "c", "e", "f", "g"):
        (package / f"{name}.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from ..b import *\n")
    (package / "sub" / "d.py").write_text("from . import thing\n")
    graph = import_graph(package, "pkg")
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b", "pkg.c", "pkg.sub.d", "pkg.f", "pkg.g"},
        "pkg.b": set(),
        "pkg.c": set(),
        "pkg.e": set(),
        "pkg.f": set(),
        "pkg.g": set(),
        "pkg.sub": {"pkg.b"},
        "pkg.sub.d": {"pkg.sub"},
    }


def test_a_cycle_is_named_from_its_smallest_module() -> None:
    graph = {
        "m.a": {"m.b"},
        "m.b": {"m.c", "m.x"},
        "m.c": {"m.a"},
        "m.x": set(),
        "m.p": {"m.q"},
        "m.q": {"m.p"},
    }
    assert cycles(graph) == [["m.a", "m.b", "m.c", "m.a"], ["m.p", "m.q", "m.p"]]
    assert cycles({"m.a": {"m.b"}, "m.b": set()}) == []

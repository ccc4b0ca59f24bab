"""The job summary, JUnit and the CSV/JSONL exports render a view (`reports/view.py` or its
sibling `reports/caseview.py`), never re-derive from the results: none of them finds a model's
runs, ranks the models, or decides whether a model was repeated on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lobrec

REPORTS = Path(lobrec.__file__).parent / "reports"
RENDERERS = ["summary.py", "junit.py", "export.py"]
DERIVING = {
    "lobrec.core.metrics.runs": {"runs_of"},
    "lobrec.reports._format": {"ranked", "provenance"},
    "lobrec.reports.repeats": {"any_repeats"},
}
"""What builds a view from the results: the views' job, not a renderer's."""


@pytest.mark.parametrize("name", RENDERERS)
def test_a_renderer_takes_its_facts_from_a_view(name: str) -> None:
    tree = ast.parse((REPORTS / name).read_text(encoding="utf-8"))
    imported = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    deriving = {(module, what) for module, what in imported if what in DERIVING.get(module or "", set())}
    repeated = [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "by_case"
    ]

    assert deriving == set() and repeated == []
    assert any(module in ("lobrec.reports.view", "lobrec.reports.caseview") for module, _ in imported)

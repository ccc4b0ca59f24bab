"""docs/results.md names every field of the repeats section, and docs/cassettes.md the layout."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from lobrec.core.metrics.results import CaseRuns, Repeats, RunMetrics, Spread

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("struct", [Repeats, RunMetrics, Spread, CaseRuns])
def test_every_repeats_field_is_documented(struct: type[msgspec.Struct]) -> None:
    text = (DOCS / "results.md").read_text()
    section = text[text.index("### Repeated runs") :]
    missing = [
        name for name in struct.__struct_fields__ if f"`{name}" not in section and f'"{name}"' not in section
    ]
    assert missing == []


def test_the_layout_is_in_the_cassettes_doc() -> None:
    text = (DOCS / "cassettes.md").read_text()
    assert "## Repeated runs" in text and "runs/<n>/" in text and "run_directories" in text

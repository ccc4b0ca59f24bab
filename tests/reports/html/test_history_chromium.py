"""The `lobrec history` and `lobrec diff --html` pages in headless Chromium: they render, the chart's
lines and marks reach the DOM, and hostile names stay text (tests/reports/html/test_html_chromium.py has the
browser's setup and says when these skip)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.core.metrics.results import decode_results
from tests.cli.test_history_cli import EXPECTED, _re_recorded_worse
from tests.reports.html.test_html_chromium import NON_TRIVIAL_PNG_BYTES, chromium, dump_dom, run_chromium

pytestmark = pytest.mark.process
__all__ = ["chromium"]  # the fixture, used by name

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def pages(tmp_path: Path) -> dict[str, Path]:
    out = {"history": tmp_path / "history.html", "diff": tmp_path / "diff.html"}
    later = _re_recorded_worse(tmp_path)
    done = CliRunner().invoke(app, ["history", str(EXPECTED), str(later), "--html", str(out["history"])])
    assert done.exit_code == 0, done.stderr
    cassettes = ROOT / "fixtures" / "cassettes"
    sides = [str(cassettes / "fixture%2Foracle"), str(cassettes / "fixture%2Fsloppy")]
    done = CliRunner().invoke(app, ["diff", *sides, "--html", str(out["diff"])])
    assert done.exit_code == 0, done.stderr
    return out


@pytest.mark.parametrize("page", ["history", "diff"])
def test_the_page_renders(chromium: str, pages: dict[str, Path], tmp_path: Path, page: str) -> None:
    shot = tmp_path / f"{page}.png"
    done = run_chromium(
        chromium, tmp_path, f"--screenshot={shot}", "--window-size=1400,1400", pages[page].as_uri()
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1400, 1400)
    assert len(data) > NON_TRIVIAL_PNG_BYTES


def test_the_history_chart_reaches_the_dom(chromium: str, pages: dict[str, Path], tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, pages["history"].as_uri())
    models = len(decode_results(EXPECTED.read_bytes()).models)
    assert dom.count('<g class="series"') == models
    assert dom.count('class="mark down"') == 1  # fixture/oracle's drop, the one real step
    assert dom.count('class="mark hollow"') == models - 1  # every other model rescored
    assert "<script" not in dom


def test_the_diff_page_lists_the_flipped_cases(chromium: str, pages: dict[str, Path], tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, pages["diff"].as_uri())
    run = decode_results(EXPECTED.read_bytes())
    passed = {m.model: {c.id for c in m.cases if c.passed} for m in run.models}
    flips = sorted(passed["fixture/oracle"] - passed["fixture/sloppy"])
    assert f"<h3>Pass → fail ({len(flips)})</h3>" in dom
    for case in flips:
        assert f"<code>{case}</code>" in dom

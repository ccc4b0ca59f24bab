"""`lobrec history` (and `lobrec diff`, which reads the same files) against inputs a long-kept
leaderboard produces: a results file of a newer format, a model name wider than the terminal,
model names longer than the chart leaves room for, and fifty files.

Each test drives the real command and reads what it printed or wrote.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from lobrec.core.metrics.results import RESULTS_FORMAT
from lobrec.reports._labels import LABEL_FONT_PX, text_width
from tests.support.cli import cli_env, run_lobrec

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "fixtures" / "expected-results.json"

LONG_NAMES = {
    "fixture/oracle": "openrouter/meta-llama/llama-3.1-405b-instruct:free",
    "fake/alpha": "anthropic/claude-3-5-sonnet-20241022-preview",
}
"""Real gateway model names, longer than the chart's 200 px right margin."""


def _variant(tmp_path: Path, name: str, **changes: object) -> Path:
    """The expected results with top-level `changes`, or with models renamed (`rename`)."""
    data = json.loads(EXPECTED.read_bytes())
    rename = changes.pop("rename", {})
    assert isinstance(rename, dict)
    for model in data["models"]:
        model["model"] = rename.get(model["model"], model["model"])
    data.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["history", "diff"], ids=["history", "diff"])
def test_a_results_file_of_a_newer_format_is_refused(tmp_path: Path, command: str) -> None:
    """A file whose `results_format` this lobrec does not know may mean anything: refused in one
    line naming the file and both formats, exit 2, rather than read as if it were ours."""
    newer = _variant(tmp_path, "newer.json", results_format=RESULTS_FORMAT + 1)
    args = ["history", str(EXPECTED), str(newer)]
    if command == "diff":
        args = ["diff", str(EXPECTED), str(newer), "--model", "auto"]
    done = run_lobrec(args)
    assert done.returncode == 2, done.stdout.decode()
    assert done.stderr.decode() == (
        f"lobrec: {newer}: results format {RESULTS_FORMAT + 1}, written by a newer lobrec; this one "
        f"reads format {RESULTS_FORMAT}: upgrade lobrec to read it\n"
    )


@pytest.mark.parametrize("columns", [80, 200], ids=["80 columns", "200 columns"])
def test_a_model_name_wider_than_the_terminal_cuts_no_rate(tmp_path: Path, columns: int) -> None:
    """A name longer than the terminal folds onto more lines; every rate stays whole."""
    huge = "m" * 400
    later = _variant(tmp_path, "later.json", rename={"fixture/oracle": huge})
    done = run_lobrec(["history", str(EXPECTED), str(later)], env=cli_env(COLUMNS=str(columns)))
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    assert "…" not in out
    assert all(len(line) <= columns for line in out.splitlines())
    rates = json.loads(EXPECTED.read_bytes())["models"]
    for model in rates:  # the first file's rates, in the part holding #1
        rate = model["metrics"]["overall"]["rate"]
        assert re.search(rf"{re.escape(model['model'])}\s+{rate:.1f}%", out), model["model"]
    assert out.count("m" * 20) >= 2  # the huge name is there, folded


def _labels(page: str) -> tuple[float, list[tuple[float, str]]]:
    svg = re.search(r'<svg class="plot history-chart" viewBox="0 0 (\d+) \d+"', page)
    assert svg is not None
    labels = re.findall(r'<text class="label" x="([\d.]+)"[^>]*>([^<]*)</text>', page)
    return float(svg.group(1)), [(float(x), name) for x, name in labels]


def test_long_model_names_fit_in_the_chart(tmp_path: Path) -> None:
    """Each line's name is drawn whole: the chart is as wide as its longest label needs."""
    later = _variant(tmp_path, "later.json", rename=LONG_NAMES)
    page = tmp_path / "history.html"
    done = run_lobrec(["history", str(EXPECTED), str(later), "--html", str(page)])
    assert done.returncode == 0, done.stderr.decode()
    width, labels = _labels(page.read_text(encoding="utf-8"))
    assert {name for _, name in labels} >= set(LONG_NAMES.values())
    for x, name in labels:
        assert x + text_width(name) <= width, name


def test_fifty_files_label_the_x_axis_without_overlap(tmp_path: Path) -> None:
    """Fifty files: the x axis names only as many files as fit apart (always the first and last)."""
    page = tmp_path / "history.html"
    done = run_lobrec(["history", *[str(EXPECTED)] * 50, "--html", str(page)])
    assert done.returncode == 0, done.stderr.decode()
    html = page.read_text(encoding="utf-8")
    x_tick = r'<text x="([\d.]+)" y="[\d.]+" class="tick" text-anchor="middle">([^<]*)</text>'
    ticks = [(float(x), text) for x, text in re.findall(x_tick, html)]
    assert ticks[0][1] == "#1" and ticks[-1][1] == "#50"
    for (x1, left), (x2, right) in itertools.pairwise(ticks):
        room = (text_width(left, LABEL_FONT_PX) + text_width(right, LABEL_FONT_PX)) / 2
        assert x2 - x1 >= room, (left, right)
    assert len(ticks) >= 5  # not just the ends


def test_the_out_of_order_note_lists_every_model_in_markdown_and_html(tmp_path: Path) -> None:
    """Files given newest first: the note names every model in the Markdown and the page (no list
    there is cut with "and N more", docs/reports.md); only the terminal shortens it."""
    data = json.loads(EXPECTED.read_bytes())
    for model in data["models"]:
        for recorded in model["recorded"]:
            recorded["started_at"] = "2099-01-01T00:00:00+00:00"
    newer = tmp_path / "newer-recordings.json"
    newer.write_text(json.dumps(data), encoding="utf-8")
    markdown, page = tmp_path / "history.md", tmp_path / "history.html"
    args = ["history", str(newer), str(EXPECTED), "--markdown", str(markdown), "--html", str(page)]
    done = run_lobrec(args)
    assert done.returncode == 0, done.stderr.decode()
    names = sorted(model["model"] for model in data["models"])
    whole = f"#2 holds older recordings of {', '.join(names)} than an earlier file does"
    assert whole.replace("#", "\\#&#8203;") in markdown.read_text(encoding="utf-8")
    assert f"<li>{whole}" in page.read_text(encoding="utf-8")
    assert "#2 holds older recordings of auto, fake/alpha, fake/beta and 7 more" in done.stdout.decode()


def test_a_suite_change_near_the_left_edge_keeps_its_label_in_the_chart(tmp_path: Path) -> None:
    """The suite changed at #2 of thirty files: its `§ suite 1.3.0` label turns to the right of the
    line instead of running off the chart's left edge."""
    data = json.loads(EXPECTED.read_bytes())
    data["suite"]["version"] = "1.1.0"
    older = tmp_path / "at-1.1.0.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    page = tmp_path / "history.html"
    done = run_lobrec(["history", str(older), *[str(EXPECTED)] * 29, "--html", str(page)])
    assert done.returncode == 0, done.stderr.decode()
    html = page.read_text(encoding="utf-8")
    width, _ = _labels(html)
    suite_line = r'<g class="suite-line">.*?<text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)">([^<]*)</text>'
    found = re.findall(suite_line, html)
    assert [text for _, _, text in found] == ["§ suite 1.3.0"]
    x, anchor, text = float(found[0][0]), found[0][1], found[0][2]
    left, right = (x - text_width(text), x) if anchor == "end" else (x, x + text_width(text))
    assert left >= 0 and right <= width

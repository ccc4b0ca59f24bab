"""`lobrec history` and `lobrec diff --html` show hostile model names and file names as text.

A results file is outside data: its model names can hold HTML, attribute breakers, terminal
escapes and rich markup, and so can the name of the file itself. The real command writes every
format; none holds a live tag or escape, and each shows the text spelled out.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from lobrec.core.metrics.results import RunResult, decode_results, encode_results
from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[3]
EXPECTED = ROOT / "fixtures" / "expected-results.json"

SCRIPT_NAME = "<script>alert(1)</script>\x1b[31m[bold]x"
ATTRIBUTE_NAME = '"><img src=x onerror=alert(2)>'
FILE_NAME = "<b>run<i>\x1b[2J.json"
"""A file name cannot hold `/`: its tags are left open."""
LIVE = ["<script>alert(", "<img src=x", "<b>run", "\x1b"]
SHOWN = [
    "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m[bold]x",
    "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;",
    "&lt;b&gt;run&lt;i&gt;\\x1b[2J.json",
]


def _hostile(tmp_path: Path) -> tuple[Path, RunResult]:
    """The expected results with two models renamed, in a file with a hostile name."""
    run = decode_results(EXPECTED.read_bytes())
    names = {0: SCRIPT_NAME, 1: ATTRIBUTE_NAME}
    models = [
        msgspec.structs.replace(model, model=names.get(index, model.model))
        for index, model in enumerate(run.models)
    ]
    run = msgspec.structs.replace(run, models=models)
    path = tmp_path / FILE_NAME
    path.write_bytes(encode_results(run))
    return path, run


def test_history_pages_show_hostile_names_as_text(tmp_path: Path) -> None:
    path, _ = _hostile(tmp_path)
    page, markdown = tmp_path / "history.html", tmp_path / "history.md"
    done = run_lobrec(["history", str(path), str(path), "--html", str(page), "--markdown", str(markdown)])
    assert done.returncode == 0, done.stderr.decode()
    html = page.read_text(encoding="utf-8")
    for live in LIVE:
        assert live not in html
    assert "\x1b" not in done.stdout.decode()  # markup is harmless in a terminal; an escape is not
    for shown in SHOWN:
        assert shown in html
    # the chart names each line in its label and its hover, both as text
    assert html.count("&lt;script&gt;alert(1)") >= 4
    text = markdown.read_text(encoding="utf-8")
    assert "\x1b" not in text
    assert re.search(r"(?<!\\)<", text) is None  # every `<` escaped: no tag can open
    assert "\\<script\\>alert(1)\\</script\\>\\\\x1b\\[31m\\[bold\\]x" in text
    assert "\\<b\\>run\\<i\\>\\\\x1b\\[2J.json" in text
    assert "\\x1b[31m[bold]x" in done.stdout.decode()


def test_the_diff_page_shows_hostile_names_as_text(tmp_path: Path) -> None:
    _, run = _hostile(tmp_path)
    sides = []
    for index in (0, 1):
        side = tmp_path / f"side{index}.json"
        side.write_bytes(encode_results(RunResult(suite=run.suite, models=[run.models[index]])))
        sides.append(str(side))
    page = tmp_path / "diff.html"
    done = run_lobrec(["diff", *sides, "--html", str(page)])
    assert done.returncode == 0, done.stderr.decode()
    html = page.read_text(encoding="utf-8")
    for live in LIVE:
        assert live not in html
    assert SHOWN[0] in html and SHOWN[1] in html
    assert "<title>lobrec · &lt;script&gt;alert(1)" in html

"""One rule for outside text (issue 23): whatever a model, a gateway or a results file holds, no
line lobrec prints to a terminal carries a control, format or line-separator character raw.

Each printer of terminal lines is fed outside text where it shows it (a model name, a case id, an
answering model, an errored reason, a flaky case): every character it prints is printable, line
breaks between lines aside.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import example, given
from rich.console import Console

import lobrec
from lobrec.cli._output import say
from lobrec.core.metrics.results import CaseResult, RunResult
from lobrec.reports._text import markup_escaped, printable
from lobrec.reports.terminal import render_leaderboard
from lobrec.running.progress import RunProgress
from tests.support.examples import costly
from tests.support.strategies import outside_texts

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = (ROOT / "fixtures" / "expected-results.json").read_bytes()
NAMES = ("model", "id", "name", "best", "reason")
"""The results keys whose strings come from outside (model names, case ids, reasons)."""
LISTS = ("candidates", "recorded", "unrecorded", "flaky", "unpriced_calls")


def _raw(output: str) -> list[str]:
    """The characters of `output` a terminal could obey (line breaks between lines allowed)."""
    return sorted({char for char in output if not char.isprintable() and char != "\n"})


def _tainted(value: Any, text: str) -> Any:
    """`value` (results as builtins) with `text` appended to every string that came from outside."""
    if isinstance(value, list):
        return [_tainted(item, text) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in NAMES and isinstance(item, str):
            out[key] = item + text
        elif key in LISTS and isinstance(item, list) and all(isinstance(x, str) for x in item):
            out[key] = [x + text for x in item]
        elif key == "answered_by" and isinstance(item, dict):
            out[key] = {name + text: count for name, count in item.items()}
        else:
            out[key] = _tainted(item, text)
    return out


def hostile_run(text: str) -> RunResult:
    """The committed cassettes' results with `text` in every outside string, and a stale and an
    unrecorded case in the first model (so the re-record list shows case ids too).

    Converted in memory, not through a file: a lone surrogate cannot be written as UTF-8 (and the
    results decoder refuses one), yet one reaches a report from an undecodable command-line byte."""
    data = _tainted(msgspec.json.decode(EXPECTED), text)
    cases = data["models"][0]["cases"]
    cases[0]["status"], cases[1]["status"] = "stale", "unrecorded"
    return msgspec.convert(data, RunResult)


@given(text=outside_texts)
def test_printable_leaves_nothing_a_terminal_obeys(text: str) -> None:
    shown = printable(text)
    assert _raw(shown) == [] and "\n" not in shown
    assert printable(shown) == shown  # cleaning twice changes nothing
    kept = printable(text, keep_newlines=True)
    assert {char for char in kept if not char.isprintable()} <= {"\n", "\t"}


@given(text=outside_texts)
def test_the_cli_says_outside_text_printably(text: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        say(f"model {text} failed: {text}")
        say(f"{text}\n  {text}", output=True)
    assert _raw(err.getvalue()) == []
    assert err.getvalue().count("\n") == 1  # one line on stderr
    assert _raw(out.getvalue()) == []


@costly(10)
@given(text=outside_texts)
@example(text="\ud800")  # a lone surrogate (an undecodable command-line byte)
@example(text="0000\x1f\x08\x1f0\U00018cd6\U0002ebe1\U00018e02\U00083f68\U000fa1e4\U000fb8c4")  # wraps at 80
@pytest.mark.parametrize("width", [80, 200])
def test_the_terminal_report_prints_outside_text_printably(text: str, width: int) -> None:
    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    render_leaderboard(hostile_run(text), console, by_group=True)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert _raw(output) == []
    # shown whole somewhere (the re-record list wraps a long id across lines rather than cutting it)
    assert printable(text) in output.replace("\n", "")


@given(text=outside_texts)
def test_progress_lines_print_outside_text_printably(text: str) -> None:
    console = Console(file=io.StringIO(), force_terminal=False, width=120)
    with RunProgress("recording", total=2, console=console, plain_every_s=0) as progress:
        progress.planned_models({text: 1, "b": 1})
        progress.started(text, text)
        progress.finished(text, CaseResult(id=text, group="selection", status="errored", reason=text))
        progress.note(f"{text} stopped early")
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert _raw(output) == []
    assert printable(text) in output


@given(text=outside_texts)
@example(text="\\[")  # rich.markup.escape's miss: a backslash before a bracket that opens no tag
@example(text="\\[b]")
def test_outside_text_in_markup_reads_back_as_itself(text: str) -> None:
    console = Console(file=io.StringIO(), force_terminal=False, width=200)
    console.print(f"[bold]x[/bold] {markup_escaped(text)}", soft_wrap=True)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert _raw(output) == []
    assert output == "x " + printable(text) + "\n"


def test_the_cleaning_rule_has_one_name() -> None:
    """Every module takes `printable` from `reports._text`: no alias, no re-export to drift from."""
    import ast

    source = Path(lobrec.__file__).parent
    for path in sorted(source.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name == "printable" for a in node.names):
                assert node.module == "lobrec.reports._text", path
                assert all(a.asname is None for a in node.names if a.name == "printable"), path
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                assert node.value.id != "printable", path

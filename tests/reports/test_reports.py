"""The terminal, Markdown, HTML and diff reports, on the sample run (`tests/support/sample_results.py`).

Terminal output is compared whole, at a fixed width, as rich's own tests/test_table.py does; the
only liberty is stripping trailing spaces from each line. The HTML report is checked for what
must hold of the whole file (nothing loaded from the network, one script, balanced tags, model
output escaped) and for whole fragments (a row, a mismatch table, the legend).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from html.parser import HTMLParser

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.results import RunResult, SuiteRef, decode_results, encode_results
from lobrec.core.suite.format import Absent, Check, Contains, Eq, OneOf, Present, Range, Regex, Subset
from lobrec.core.words import counted
from lobrec.reports._format import change, cost, latency, percent
from lobrec.reports._text import markup_escaped, printable
from lobrec.reports.html import CSP, check_text, render_html
from lobrec.reports.markdown import render_diff_markdown, render_markdown
from lobrec.reports.markdown_syntax import md
from lobrec.reports.terminal import leaderboard_table, render_diff, render_leaderboard
from tests.reports.html.test_html_report import drill_down_text
from tests.support.sample_results import EVIL_REPLY, model_result, sample_run, sample_suite, wrong_tool


def terminal(render: Callable[[Console], None], width: int) -> str:
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    render(console)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_sample_run_is_a_valid_results_file() -> None:
    run = sample_run()
    assert decode_results(encode_results(run)) == run
    assert [(m.model, m.has_scores) for m in run.models] == [
        ("openai/o4-mini", True),
        ("auto", True),
        ("acme/tool-llm-7b", False),
    ]


# --- shared formatting ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "value", "text"),
    [
        (percent, None, "—"),
        (percent, 0.0, "0.0%"),
        (percent, 100.0, "100.0%"),
        (percent, 200 / 3, "66.7%"),
        (cost, None, "—"),
        (cost, 0.0, "$0.00"),
        (cost, 12.3, "$12.30"),
        (cost, 0.132, "$0.13"),
        (cost, 0.0467, "$0.0467"),
        (cost, 0.00123456, "$0.00123"),
        (cost, 1e-9, "$0.000000"),
        (latency, None, "—"),
        (latency, 731.4, "731 ms"),
        (latency, 999.4, "999 ms"),
        (latency, 1010.5, "1.01 s"),
        (latency, 61_000.0, "61.00 s"),
    ],
)
def test_formatting(function: Callable[[float | None], str], value: float | None, text: str) -> None:
    assert function(value) == text


@pytest.mark.parametrize(
    ("a", "b", "unit", "texts"),
    [
        (None, 1.0, "pp", ("—", "1.0%", "—")),
        (70.0, 72.7272, "pp", ("70.0%", "72.7%", "+2.7 pp")),
        (100.0, 50.0, "pp", ("100.0%", "50.0%", "-50.0 pp")),
        (95.0, 95.0, "pp", ("95.0%", "95.0%", "0.0 pp")),
        (95.24, 95.26, "pp", ("95.24%", "95.26%", "+0.02 pp")),
        (95.0, 96.04, "pp", ("95.0%", "96.0%", "+1.0 pp")),
        (95.21, 95.24, "pp", ("95.21%", "95.24%", "+0.03 pp")),
        (23.3, 23.5, "ms", ("23.3 ms", "23.5 ms", "+0.2 ms")),
        (23.0, 24.4, "ms", ("23 ms", "24 ms", "+1 ms")),
        (1010.5, 731.0, "ms", ("1.01 s", "731 ms", "-279 ms")),
        (500.0, 2000.0, "ms", ("500 ms", "2.00 s", "+1500 ms")),
        (1234.0, 1236.0, "ms", ("1.234 s", "1.236 s", "+2 ms")),
        (884.0, 884.0, "ms", ("884 ms", "884 ms", "0 ms")),
        (0.0467, 0.0467, "usd", ("$0.0467", "$0.0467", "$0.00")),
        (0.013, 0.026, "usd", ("$0.0130", "$0.0260", "+$0.0130")),
        (1.0, 0.5, "usd", ("$1.00", "$0.50", "-$0.50")),
        (1.001, 1.002, "usd", ("$1.001", "$1.002", "+$0.001")),
        (5.0, 5.0000001, "usd", ("$5.00", "$5.00", "$0.00")),
    ],
)
def test_a_change_agrees_with_its_printed_values(
    a: float | None, b: float | None, unit: str, texts: tuple[str, str, str]
) -> None:
    """The difference is the one between the printed values; values that differ print differently
    (up to three more decimals); a printed zero has no sign."""
    result = change(a, b, unit)
    assert result[:3] == texts
    assert (result.shown is None) == (a is None or b is None)


def _number(text: str) -> float:
    """A printed value or difference back to a number in its unit (ms for seconds)."""
    body = text.replace("$", "").replace("%", "").replace(" pp", "").replace(" ms", "")
    return float(body[:-2]) * 1000 if body.endswith(" s") else float(body)


@given(
    st.sampled_from(["pp", "ms", "usd"]),
    st.floats(min_value=0, max_value=5000, allow_nan=False),
    st.floats(min_value=0, max_value=5000, allow_nan=False),
)
def test_a_printed_difference_is_the_difference_of_the_printed_values(unit: str, a: float, b: float) -> None:
    result = change(a, b, unit)
    assert result.shown is not None
    assert _number(result.delta) == pytest.approx(_number(result.b) - _number(result.a), abs=1e-6)
    assert result.delta.startswith(("+", "-")) == (result.shown != 0)
    assert (_number(result.a) == _number(result.b)) == (result.shown == 0)


def test_a_change_rejects_an_unknown_unit() -> None:
    with pytest.raises(ValueError) as info:
        change(1.0, 2.0, "kg")
    assert str(info.value) == "unknown unit 'kg'"


@pytest.mark.parametrize(
    ("text", "keep_newlines", "shown"),
    [
        ("plain ünïcode ✓", False, "plain ünïcode ✓"),
        ("\x1b[31mred\x1b[0m", False, "\\x1b[31mred\\x1b[0m"),
        ("a\nb\tc\rd", False, "a\\nb\\tc\\rd"),
        ("a\nb\tc\rd", True, "a\nb\tc\\rd"),
        ("bell\x07 del\x7f c1\x9b", False, "bell\\x07 del\\x7f c1\\x9b"),
        ("evil\u202egnp.exe", False, "evil\\u202egnp.exe"),
        ("[bold]markup[/bold]", False, "[bold]markup[/bold]"),
    ],
)
def test_printable(text: str, keep_newlines: bool, shown: str) -> None:
    assert printable(text, keep_newlines=keep_newlines) == shown


# --- terminal ------------------------------------------------------------------------------------

LEADERBOARD_120 = """\
                                             lobstack-tools 1.0.0
                                           Right   Valid  Made-up                    No call      p50  Cost/100
Model             Overall  Overall 95% CI   tool    args   tool ↓  Chains  Parallel   needed  latency     cases
───────────────────────────────────────────────────────────────────────────────────────────────────────────────
auto                72.7%       43.4–90.3  77.8%  100.0%     7.1%  100.0%     50.0%    50.0%   731 ms         —
openai/o4-mini      70.0%       39.7–89.2  87.5%   90.9%     0.0%   50.0%    100.0%   100.0%   1.01 s     $0.13
acme/tool-llm-7b        —               —      —       —        —       —         —        —        —         —
↓ lower is better · Stale counts stale and unrecorded cases · — nothing to rate · terms: docs/reports.md#glossary
auto: 11 of 12 cases scored; 0 errored, 0 stale, 1 unrecorded
openai/o4-mini: 10 of 12 cases scored; 1 errored, 1 stale, 0 unrecorded
acme/tool-llm-7b: 0 of 12 cases scored; 12 errored, 0 stale, 0 unrecorded
Judged with suite lobstack-tools 1.0.0.
• auto: calls answered by openai/gpt-4.1-mini (10), anthropic/claude-haiku-4.5 (3)
• auto: cost not shown: 13 unpriced calls (sel-readme step 1 attempt 1, sel-weather step 1 attempt 1, arg-line-range
step 1 attempt 1 and 10 more)
• openai/o4-mini: temperature ignored (the API dropped it for this model)
• acme/tool-llm-7b: no scores: every case errored
Failure kinds (docs/metrics.md):
• auto: 3 failed steps: needless call 1, made-up tool 1, parallel short 1
• openai/o4-mini: 3 failed steps: arg check 2, wrong tool 1

                           By group
Group                   auto  openai/o4-mini  acme/tool-llm-7b
──────────────────────────────────────────────────────────────
Selection        50.0% (1/2)    100.0% (1/1)                 —
Arguments       100.0% (1/1)     50.0% (1/2)                 —
Near misses     100.0% (2/2)     50.0% (1/2)                 —
No call needed   50.0% (1/2)    100.0% (2/2)                 —
Parallel         50.0% (1/2)    100.0% (1/1)                 —
Chains          100.0% (2/2)     50.0% (1/2)                 —

Needs re-recording:
  auto — unrecorded: arg-issue-labels
  openai/o4-mini — stale: sel-weather"""  # noqa: E501


def test_terminal_leaderboard_with_groups() -> None:
    run = sample_run()
    assert terminal(lambda console: render_leaderboard(run, console, by_group=True), 120) == LEADERBOARD_120


LEADERBOARD_100 = """\
                                    lobstack-tools 1.0.0
                                           Right   Valid  Made-up                    No call
Model             Overall  Overall 95% CI   tool    args   tool ↓  Chains  Parallel   needed
────────────────────────────────────────────────────────────────────────────────────────────
auto                72.7%       43.4–90.3  77.8%  100.0%     7.1%  100.0%     50.0%    50.0%
openai/o4-mini      70.0%       39.7–89.2  87.5%   90.9%     0.0%   50.0%    100.0%   100.0%
acme/tool-llm-7b        —               —      —       —        —       —         —        —

                      p50  Cost/100
Model             latency     cases
───────────────────────────────────
auto               731 ms         —
openai/o4-mini     1.01 s     $0.13
acme/tool-llm-7b        —         —
↓ lower is better · Stale counts stale and unrecorded cases · — nothing to rate ·
terms: docs/reports.md#glossary
auto: 11 of 12 cases scored; 0 errored, 0 stale, 1 unrecorded
openai/o4-mini: 10 of 12 cases scored; 1 errored, 1 stale, 0 unrecorded
acme/tool-llm-7b: 0 of 12 cases scored; 12 errored, 0 stale, 0 unrecorded
Judged with suite lobstack-tools 1.0.0.
• auto: calls answered by openai/gpt-4.1-mini (10), anthropic/claude-haiku-4.5 (3)
• auto: cost not shown: 13 unpriced calls (sel-readme step 1 attempt 1, sel-weather step 1 attempt
1, arg-line-range step 1 attempt 1 and 10 more)
• openai/o4-mini: temperature ignored (the API dropped it for this model)
• acme/tool-llm-7b: no scores: every case errored
Failure kinds (docs/metrics.md):
• auto: 3 failed steps: needless call 1, made-up tool 1, parallel short 1
• openai/o4-mini: 3 failed steps: arg check 2, wrong tool 1

Needs re-recording:
  auto — unrecorded: arg-issue-labels
  openai/o4-mini — stale: sel-weather"""


def test_terminal_leaderboard_moves_counts_below_when_narrow() -> None:
    run = sample_run()
    assert terminal(lambda console: render_leaderboard(run, console), 100) == LEADERBOARD_100


def test_leaderboard_table_has_every_column_and_one_row_per_model() -> None:
    table = leaderboard_table(sample_run())
    headings = [str(column.header).replace("\n", " ") for column in table.columns]
    assert headings == [
        "Model",
        "Overall",
        "Overall 95% CI",
        "Right tool",
        "Valid args",
        "Made-up tool ↓",
        "Chains",
        "Parallel",
        "No call needed",
        "p50 latency",
        "Cost/100 cases",
        "Scored",
        "Errored",
        "Stale",
    ]
    assert table.row_count == 3
    assert [str(cell) for cell in table.columns[0].cells] == ["auto", "openai/o4-mini", "acme/tool-llm-7b"]
    assert [str(cell) for cell in table.columns[1].cells] == ["72.7%", "70.0%", "—"]
    assert [str(cell) for cell in table.columns[2].cells] == ["43.4–90.3", "39.7–89.2", "—"]
    assert len(leaderboard_table(sample_run(), counts=False).columns) == 11


@pytest.mark.parametrize("width", [60, 80, 100, 132, 200])
def test_the_leaderboard_never_cuts_a_value_at_any_width(width: int) -> None:
    """A narrow terminal gets the leaderboard in parts, each led by the model names; no cell is
    cut (no ellipsis) and no model name wraps."""
    from lobrec.reports.terminal import leaderboard_tables, terminal_columns

    run = sample_run()
    text = terminal(lambda console: render_leaderboard(run, console), width)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines() if not line.startswith(("•", "step", "1,"))) <= width
    tables, _ = leaderboard_tables(run, width)
    shown = [str(column.header).replace("\n", " ") for table in tables for column in table.columns[1:]]
    expected = [column.label for column in terminal_columns(run) if not (column.count and len(tables) > 1)]
    assert shown == [label for label in expected if label != "Model" and label in shown]
    assert set(shown) >= {label for label in expected if label not in ("Model", "Scored", "Errored", "Stale")}
    for line in text.splitlines():
        for model in ("openai/o4-mini", "acme/tool-llm-7b"):
            if model[:6] in line and not line.startswith(("•", model + ":")):
                assert model in line, line


def _renamed(run: RunResult, index: int, **changes: object) -> RunResult:
    models = list(run.models)
    models[index] = msgspec.structs.replace(models[index], **changes)
    return msgspec.structs.replace(run, models=models)


def test_terminal_shows_markup_and_escape_sequences_as_text() -> None:
    run = _renamed(
        sample_run(),
        1,
        model="[bold red]evil[/] \x1b[31mred",
        answered_by={"x\x1b]0;pwned\x07": 2, "[link=file:///etc]y[/link]": 1},
    )
    output = terminal(lambda console: render_leaderboard(run, console, by_group=True), 140)
    assert "\x1b" not in output
    assert "\x07" not in output
    assert "[bold red]evil[/] \\x1b[31mred  " in output
    assert (
        "• [bold red]evil[/] \\x1b[31mred: calls answered by x\\x1b]0;pwned\\x07 (2), "
        "[link=file:///etc]y[/link] (1)" in (output)
    )
    assert "[bold red]evil[/] \\x1b[31mred — unrecorded: arg-issue-labels" in output


def test_terminal_with_colour_never_emits_the_models_escape() -> None:
    run = _renamed(sample_run(), 0, model="\x1b[31mred")
    console = Console(
        width=140, record=True, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    render_leaderboard(run, console)
    styled = console.export_text(styles=True)
    assert "\x1b[31mred" not in styled
    assert "\\x1b[31mred" in styled


def test_markup_escaped_escapes_for_rich_markup() -> None:
    assert markup_escaped("[bold]x\x1b[0m") == "\\[bold]x\\x1b[0m"
    console = Console(width=40, record=True, force_terminal=False, file=io.StringIO())
    console.print(f"model {markup_escaped('[bold]x[/bold]')} done")
    assert console.export_text() == "model [bold]x[/bold] done\n"


# --- Markdown ------------------------------------------------------------------------------------

MARKDOWN = """\
### Tool calling on lobstack-tools 1.0.0

Suite **lobstack-tools** version 1.0.0, 12 cases, 3 models. \
A score is comparable only to another score on the same suite version. Judged with suite lobstack-tools 1.0.0.

| Model | Overall | Right tool | Valid args | Made-up tool ↓ | Chains | Parallel | No call needed | \
p50 latency | Cost/100 cases | Scored | Errored | Stale |
| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| auto | 72.7% | 77.8% | 100.0% | 7.1% | 100.0% | 50.0% | 50.0% | 731 ms | — | 11/12 | 0 | 1 |
| openai/o4-mini | 70.0% | 87.5% | 90.9% | 0.0% | 50.0% | 100.0% | 100.0% | 1.01 s | \\$0.13 | 10/12 | 1 | 1 |
| acme/tool-llm-7b | — | — | — | — | — | — | — | — | — | 0/12 | 12 | 0 |

↓ lower is better · Stale counts stale and unrecorded cases · — nothing to rate · terms: `docs/reports.md#glossary`

- **auto**: 11 of 12 cases scored; 0 errored, 0 stale, 1 unrecorded; \
calls answered by openai/gpt-4.1-mini (10), anthropic/claude-haiku-4.5 (3); \
cost not shown: 13 unpriced calls, none of the scored cases' calls priced
- **openai/o4-mini**: 10 of 12 cases scored; 1 errored, 1 stale, 0 unrecorded; \
temperature ignored (the API dropped it for this model)
- **acme/tool-llm-7b**: 0 of 12 cases scored; 12 errored, 0 stale, 0 unrecorded; no scores: every case errored

#### 95% intervals

Each rate's Wilson 95% interval, with the cases or calls it counts.

| Model | Overall | Right tool | Valid args | Made-up tool ↓ | Chains | Parallel | No call needed |
| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| auto | 43.4–90.3% (8/11) | 45.3–93.7% (7/9) | 77.2–100.0% (13/13) | 1.3–31.5% (1/14) | \
34.2–100.0% (2/2) | 9.5–90.5% (1/2) | 9.5–90.5% (1/2) |
| openai/o4-mini | 39.7–89.2% (7/10) | 52.9–97.8% (7/8) | 62.3–98.4% (10/11) | 0.0–25.9% (0/11) | \
9.5–90.5% (1/2) | 20.7–100.0% (1/1) | 34.2–100.0% (2/2) |
| acme/tool-llm-7b | — | — | — | — | — | — | — |

#### By group

Overall rate per group, with the cases passed out of those scored.

| Group | auto | openai/o4-mini | acme/tool-llm-7b |
| :--- | ---: | ---: | ---: |
| Selection | 50.0% (1/2) | 100.0% (1/1) | — |
| Arguments | 100.0% (1/1) | 50.0% (1/2) | — |
| Near misses | 100.0% (2/2) | 50.0% (1/2) | — |
| No call needed | 50.0% (1/2) | 100.0% (2/2) | — |
| Parallel | 50.0% (1/2) | 100.0% (1/1) | — |
| Chains | 100.0% (2/2) | 50.0% (1/2) | — |

#### Failure kinds

Failed steps of scored cases by kind (docs/metrics.md, "Failure kinds"); repeats count every run.

| Model | needless call | made-up tool | parallel short | wrong tool | arg check | Failed steps |
| :--- | ---: | ---: | ---: | ---: | ---: | ---: |
| auto | 1 | 1 | 1 | 0 | 0 | 3 |
| openai/o4-mini | 0 | 0 | 0 | 1 | 2 | 3 |

#### Failing cases

- **auto**: failing (3): sel-readme, nocall-ask, par-two-cities
- **openai/o4-mini**: failing (3): arg-line-range, near-slack, chain-status-diff; errored (1): par-three-files
- **acme/tool-llm-7b**: errored (12): sel-readme, sel-weather, arg-line-range, arg-issue-labels, near-slack, \
near-diff, nocall-greeting, nocall-ask, par-two-cities, par-three-files, chain-search-read, chain-status-diff

#### Needs re-recording

- **auto**: unrecorded: arg-issue-labels
- **openai/o4-mini**: stale: sel-weather
"""  # noqa: E501


def test_markdown_report() -> None:
    assert render_markdown(sample_run()) == MARKDOWN


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("openai/gpt-4.1-mini", "openai/gpt-4.1-mini"),
        ("a|b", "a\\|b"),
        ("two\nlines", "two\\\\nlines"),
        ("*bold* _it_ `code`", "\\*bold\\* \\_it\\_ \\`code\\`"),
        ("<script>alert(1)</script>", "\\<script\\>alert(1)\\</script\\>"),
        ("[x](http://e.com) ![i](y)", "\\[x\\](http://e.com) \\!\\[i\\](y)"),
        ("$1 and $2", "\\$1 and \\$2"),
        ("&amp; #1 ~x~", "\\&amp; \\#&#8203;1 \\~x\\~"),
        ("cc @octocat, (@org/team) a@b.c pass@3", "cc @&#8203;octocat, (@&#8203;org/team) a@b.c pass@3"),
        ("owner/repo#12", "owner/repo\\#&#8203;12"),
        ("&#64;x", "\\&\\#&#8203;64;x"),
        ("back\\slash", "back\\\\slash"),
    ],
)
def test_markdown_escaping(text: str, escaped: str) -> None:
    assert md(text) == escaped


def test_markdown_escapes_model_names_in_every_table() -> None:
    run = _renamed(sample_run(), 0, model="pipe|model\nnext")
    report = render_markdown(run)
    assert "| pipe\\|model\\\\nnext | 70.0% |" in report
    assert "| Group | auto | pipe\\|model\\\\nnext | acme/tool-llm-7b |" in report
    assert "- **pipe\\|model\\\\nnext**: 10 of 12 cases scored;" in report
    assert "pipe|model" not in report


# --- HTML ----------------------------------------------------------------------------------------


class _Structure(HTMLParser):
    """Checks that every non-void element is closed in order, and collects tag names."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(sample_run(), sample_suite())


def test_html_is_well_formed(page: str) -> None:
    parser = _Structure()
    parser.feed(page)
    parser.close()
    assert (parser.errors, parser.stack) == ([], [])
    assert parser.tags.count("script") == 2  # the drill-downs' data (JSON, never run) and the script
    assert parser.tags.count("details") == 3 * 12 + 6  # a cell each, a fold per group


def test_html_loads_nothing_from_the_network(page: str) -> None:
    assert page.startswith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
    assert re.findall(r"\b(?:src|href|srcset|action)\s*=", page) == []
    assert re.findall(r"https?:|//[a-z]|@import|url\(", page) == []


def test_html_escapes_model_output(page: str) -> None:
    assert "<script>alert(1)" not in page
    assert "\x1b" not in page
    # the drill-down's data: the script sets it as text, control characters already spelled out
    assert "Hello! &lt;script&gt;alert(1)&lt;/script&gt; \\x1b[31mI am fine\\x1b[0m, thanks &amp; you?" in (
        drill_down_text(page)
    )
    assert EVIL_REPLY.startswith("Hello! <script>")


def test_html_escapes_attributes() -> None:
    run = _renamed(sample_run(), 0, model='x" onmouseover="alert(1)')
    page = render_html(run, sample_suite())
    assert 'onmouseover="' not in page
    assert '<summary title="sel-readme · x&quot; onmouseover=&quot;alert(1)">' in page


def test_html_title_and_leaderboard_rows(page: str) -> None:
    assert "<title>lobrec · lobstack-tools 1.0.0</title>" in page
    assert '<h1>Tool calling on lobstack-tools <span class="version">1.0.0</span></h1>' in page
    # each cell: its text, its 95% interval under a rate, and the number it sorts by (data-sort)
    assert (
        '<tr data-rank="1"><th scope="row" class="text" data-sort="openai/o4-mini">openai/o4-mini</th>'
        '<td class="num" data-sort="70.0" title="7/10, 95% interval 39.7–89.2%">70.0%'
        '<span class="ci">39.7–89.2%</span></td>'
        '<td class="num" data-sort="87.5" title="7/8, 95% interval 52.9–97.8%">87.5%'
        '<span class="ci">52.9–97.8%</span></td>'
        '<td class="num" data-sort="90.9091" title="10/11, 95% interval 62.3–98.4%">90.9%'
        '<span class="ci">62.3–98.4%</span></td>'
        '<td class="num" data-sort="0.0" title="0/11, 95% interval 0.0–25.9%">0.0%'
        '<span class="ci">0.0–25.9%</span></td>'
        '<td class="num" data-sort="50.0" title="1/2, 95% interval 9.5–90.5%">50.0%'
        '<span class="ci">9.5–90.5%</span></td>'
        '<td class="num" data-sort="100.0" title="1/1, 95% interval 20.7–100.0%">100.0%'
        '<span class="ci">20.7–100.0%</span></td>'
        '<td class="num" data-sort="100.0" title="2/2, 95% interval 34.2–100.0%">100.0%'
        '<span class="ci">34.2–100.0%</span></td>'
        '<td class="num" data-sort="1010.5">1.01 s</td><td class="num" data-sort="0.132">$0.13</td>'
        '<td class="num" data-sort="0.8333333333333334">10/12</td>'
        '<td class="num" data-sort="1">1</td><td class="num" data-sort="1">1</td></tr>'
    ) in page
    assert (
        '<tr class="no-scores" data-rank="2"><th scope="row" class="text" data-sort="acme/tool-llm-7b">'
        "acme/tool-llm-7b</th>"
        + ('<td class="num" data-sort="">—</td>' * 7)
        + '<td class="num" data-sort="">—</td><td class="num" data-sort="">—</td>'
        '<td class="num" data-sort="0.0">0/12</td>'
        '<td class="num" data-sort="12">12</td><td class="num" data-sort="0">0</td></tr>'
    ) in page
    assert "<li><strong>acme/tool-llm-7b</strong>: 0 of 12 cases scored; 12 errored, 0 stale, " in page


def test_html_legend_has_a_symbol_and_a_word_for_each_status(page: str) -> None:
    assert (
        '<ul class="legend">'
        '<li><span class="badge pass">✓ pass</span> <span>every step passed</span></li>'
        '<li><span class="badge fail">✗ fail</span> <span>a step failed</span></li>'
        '<li><span class="badge errored">! errored</span> '
        "<span>the request failed or the API answered an error; left out of every rate</span></li>"
        '<li><span class="badge stale">↻ stale</span> '
        "<span>recorded for an older request; re-record</span></li>"
        '<li><span class="badge unrecorded">∅ unrecorded</span> '
        "<span>no recording; record it</span></li></ul>"
    ) in page


def test_html_cells_carry_status_and_open_on_their_id(page: str) -> None:
    cells = re.findall(r'<td class="cell (\w+)"><details class="cell" id="([^"]+)">', page)
    assert len(cells) == 36
    assert ("fail", "m0-arg-line-range") in cells
    assert ("stale", "m0-sel-weather") in cells
    assert ("errored", "m0-par-three-files") in cells
    assert ("unrecorded", "m1-arg-issue-labels") in cells
    assert ("errored", "m2-sel-readme") in cells
    assert "var CELL = /^[A-Za-z0-9_.-]+$/;" in page  # #open=<cell id>, alone or with other keys


# The drill-downs' markup (expected beside observed, a chain's steps, an errored or stale cell's
# reason) is built by the page's script when a cell opens: tests/reports/html/test_html_drilldown.py.


def test_html_plot_has_one_point_per_priced_model_and_names_the_rest(page: str) -> None:
    svg = re.search(r"<svg.*?</svg>", page, re.S)
    assert svg is not None
    assert re.findall(r"<circle [^>]*><title>([^<]*)</title>", svg.group(0)) == [
        "openai/o4-mini: 70.0%, $0.13"
    ]
    assert (
        '<text x="302.0" y="368" class="axis" text-anchor="middle">Cost per 100 cases (USD)</text>'
        in svg.group(0)
    )
    assert "Overall score (%)</text>" in svg.group(0)
    # the cost axis fits the costs plotted (one point at $0.13), not $0 to the next round number
    assert [label for label in re.findall(r'class="tick" text-anchor="middle">([^<]*)<', svg.group(0))] == [
        "$0.125",
        "$0.130",
        "$0.135",
        "$0.140",
    ]
    assert (
        '<p class="sub">Not plotted: auto (no cost: a call was unpriced); '
        "acme/tool-llm-7b (no scores: every case errored).</p>"
    ) in page


def test_html_plot_uses_a_log_axis_when_costs_span_decades() -> None:
    suite = sample_suite()
    models = [
        model_result(suite, "cheap", {}, cost=0.00002),
        model_result(suite, "dear", {"sel-readme": wrong_tool}, cost=0.02),
    ]
    page = render_html(
        RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=models), suite
    )
    assert "Cost per 100 cases (USD, log scale)</text>" in page
    ticks = re.findall(r'class="tick" text-anchor="middle">([^<]*)<', page)
    assert ticks == ["$0.001", "$0.01", "$0.1", "$1", "$10"]
    assert "Not plotted" not in page


def test_html_warns_when_the_suite_file_is_another_version() -> None:
    suite = msgspec.structs.replace(sample_suite(), version="1.1.0")
    page = render_html(sample_run(), suite)
    assert (
        '<p class="reason errored">These results are for lobstack-tools 1.0.0, but the suite file given is '
        "lobstack-tools 1.1.0: expected calls may not match.</p>"
    ) in page


@pytest.mark.parametrize(
    ("check", "text"),
    [
        (Eq(arg="path", value="README.md"), 'path = "README.md"'),
        (Eq(arg="n", value=1.5), "n = 1.5"),
        (Subset(arg="labels", value=["bug", "p1"]), 'labels includes ["bug", "p1"]'),
        (Subset(arg="opts", value={"deep": True}), 'opts includes {"deep": true}'),
        (Regex(arg="date", pattern=r"^2026-10-22$"), "date matches /^2026-10-22$/i"),
        (OneOf(arg="channel", values=["#ops", "ops"]), 'channel is one of ["#ops", "ops"]'),
        (OneOf(arg="limit", values=[10, None]), "limit is one of [10, null] (or left out)"),
        (Contains(arg="text", value="résolu"), 'text contains "résolu" (any case)'),
        (Present(arg="body"), "body is present"),
        (Absent(arg="cc"), "cc is absent"),
        (Range(arg="n", min=1, max=10), "1 ≤ n ≤ 10"),
        (Range(arg="n", min=0.5), "0.5 ≤ n"),
        (Range(arg="n", max=100), "n ≤ 100"),
    ],
)
def test_check_text(check: Check, text: str) -> None:
    assert check_text(check) == text


# --- diff ----------------------------------------------------------------------------------------

DIFF_TERMINAL = """\
         A: openai/o4-mini  →  B: auto
Metric               A       B     B − A
────────────────────────────────────────────────
Overall          70.0%   72.7%   +2.7 pp  better
Right tool       87.5%   77.8%   -9.7 pp  worse
Valid args       90.9%  100.0%   +9.1 pp  better
Made-up tool ↓    0.0%    7.1%   +7.1 pp  worse
Chains           50.0%  100.0%  +50.0 pp  better
Parallel        100.0%   50.0%  -50.0 pp  worse
No call needed  100.0%   50.0%  -50.0 pp  worse
p50 latency     1.01 s  731 ms   -279 ms  better
Cost/100 cases   $0.13       —         —
Exact McNemar test: no significant difference at 5% (p=1).
Discordant: b = 3 (A passed, B failed), c = 3 (A failed, B passed).
Paired: 9 cases scored in both (3 passed in both, 0 failed in both); 3 left out.
Failure kind    A  B  B − A
──────────────────────────────────
needless call   0  1     +1  more
made-up tool    0  1     +1  more
parallel short  0  1     +1  more
wrong tool      1  0     -1  fewer
arg check       2  0     -2  fewer
failed steps    3  3      0
Failure kinds count the failed steps of every scored case on each side, paired or not.
Pass → fail (3): sel-readme, nocall-ask, par-two-cities
Fail → pass (3): arg-line-range, near-slack, chain-status-diff
Left out, A stale (1): sel-weather
Left out, B unrecorded (1): arg-issue-labels
Left out, A errored (1): par-three-files"""


def test_diff_terminal() -> None:
    run = sample_run()
    result = compare(run.models[0], run.models[1])
    assert terminal(lambda console: render_diff(result, console), 100) == DIFF_TERMINAL


DIFF_MARKDOWN = """\
### Comparing model-a (A) with model-b (B)

| Metric | A: model-a | B: model-b | B − A |  |
| :--- | ---: | ---: | ---: | :--- |
| Overall | 33.3% | 100.0% | +66.7 pp | better |
| Right tool | 40.0% | 100.0% | +60.0 pp | better |
| Valid args | 100.0% | 100.0% | 0.0 pp |  |
| Made-up tool ↓ | 0.0% | 0.0% | 0.0 pp |  |
| Chains | 100.0% | 100.0% | 0.0 pp |  |
| Parallel | 100.0% | 100.0% | 0.0 pp |  |
| No call needed | 0.0% | 100.0% | +100.0 pp | better |
| p50 latency | 884 ms | 884 ms | 0 ms |  |
| Cost/100 cases | \\$0.0467 | \\$0.0467 | \\$0.00 |  |

Exact McNemar test: B is better, p=0.00781.

Discordant: b = 0 (A passed, B failed), c = 8 (A failed, B passed).

Paired: 12 cases scored in both (4 passed in both, 0 failed in both); 0 left out.

| Failure kind | A | B | B − A |  |
| :--- | ---: | ---: | ---: | :--- |
| needless call | 2 | 0 | -2 | fewer |
| wrong tool | 6 | 0 | -6 | fewer |
| failed steps | 8 | 0 | -8 | fewer |

Failure kinds count the failed steps of every scored case on each side, paired or not.

- **Fail → pass** (8): sel-readme, sel-weather, arg-line-range, arg-issue-labels, near-slack, near-diff, \
nocall-greeting, nocall-ask
"""


def test_diff_markdown_with_a_significant_difference() -> None:
    suite = sample_suite()
    ids = [case.id for case in suite.cases]
    a = model_result(suite, "model-a", {case_id: wrong_tool for case_id in ids[:8]})
    b = model_result(suite, "model-b", {})
    assert render_diff_markdown(compare(a, b)) == DIFF_MARKDOWN


def test_diff_warns_about_different_suites_and_escapes_names() -> None:
    run = sample_run()
    a = run.models[0]
    b = msgspec.structs.replace(
        run.models[1], model="b|\x1b[1m", suite=SuiteRef(name="lobstack-tools", version="2.0.0")
    )
    result = compare(a, b)
    text = terminal(lambda console: render_diff(result, console), 160)
    assert text.splitlines()[0].strip() == "A: openai/o4-mini  →  B: b|\\x1b[1m"
    assert (
        "Warning: A is on suite lobstack-tools 1.0.0 and B on lobstack-tools 2.0.0; "
        "scores on different suite versions are not comparable."
    ) in text
    markdown = render_diff_markdown(result)
    assert markdown.startswith("### Comparing openai/o4-mini (A) with b\\|\\\\x1b\\[1m (B)\n")
    assert "Warning: A is on suite lobstack-tools 1.0.0 and B on lobstack-tools 2.0.0;" in markdown


@pytest.mark.parametrize(
    ("count", "noun", "text"),
    [(0, "case", "0 cases"), (1, "case", "1 case"), (2, "change", "2 changes"), (1, "run", "1 run")],
)
def test_counts_agree_in_number(count: int, noun: str, text: str) -> None:
    assert counted(count, noun) == text

"""The key under every leaderboard says what a tier means and what the run can resolve, beside the
table in every format; a run with one model has no tier to explain; every key names the glossary."""

from __future__ import annotations

import io
from pathlib import Path

import msgspec
import pytest
from rich.console import Console

from lobrec.core.metrics.results import RunResult, decode_results
from lobrec.reports.html import render_html
from lobrec.reports.markdown import render_markdown
from lobrec.reports.terminal import render_leaderboard
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
TIER_SENTENCE = "Tier: models sharing a tier cannot be told apart by the paired test (Holm)"


def fixtures_run() -> RunResult:
    return decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())


def one_model_run() -> RunResult:
    run = fixtures_run()
    oracle = [model for model in run.models if model.model == "fixture/oracle"]
    return msgspec.structs.replace(run, models=oracle)


def terminal(run: RunResult, width: int, *, by_group: bool = False) -> list[str]:
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    render_leaderboard(run, console, by_group=by_group)
    return [line.rstrip() for line in console.export_text().splitlines()]


@pytest.mark.parametrize("width", [80, 200])
def test_the_terminal_key_says_what_a_tier_means_and_the_resolution(width: int) -> None:
    lines = terminal(fixtures_run(), width)
    text = " ".join(lines)
    assert TIER_SENTENCE in text
    assert "on 80 cases only overall differences of 14.3 pp or more can be resolved" in text
    assert "terms: docs/reports.md#glossary" in text
    key_at = next(index for index, line in enumerate(lines) if line.startswith("↓ lower is better"))
    tier_at = next(index for index, line in enumerate(lines) if line.startswith("Tier: "))
    assert key_at < tier_at <= key_at + 6, "the tier line belongs to the key under the leaderboard"
    assert all(len(line) <= width for line in lines)


@pytest.mark.parametrize("width", [80, 200])
def test_one_model_has_no_tier_column_and_no_tier_sentence(width: int) -> None:
    lines = terminal(one_model_run(), width)
    text = "\n".join(lines)
    assert "Tier" not in text
    assert "Resolution" not in text
    assert "terms: docs/reports.md#glossary" in text


def test_markdown_key_holds_the_tier_sentence_and_the_glossary() -> None:
    several = render_markdown(fixtures_run())
    assert TIER_SENTENCE in several
    assert "`docs/reports.md#glossary`" in several
    assert several.index(TIER_SENTENCE) < several.index("#### 95% intervals"), "the key is under the table"
    one = render_markdown(one_model_run())
    assert "tier" not in one.lower()
    assert "`docs/reports.md#glossary`" in one


def test_html_puts_the_tier_sentence_beside_the_table() -> None:
    page = render_html(fixtures_run(), load_suite(None))
    table_end = page.index("</tbody></table></div>")
    sentence = page.index('<p class="tier-key">Tier: models sharing a tier')
    assert table_end < sentence < page.index('<section id="plot"')
    assert "14.3 pp or more can be resolved" in page
    assert "docs/reports.md#glossary" in page
    one = render_html(one_model_run(), load_suite(None))
    assert 'class="tier-key"' not in one
    assert "Tiers and resolution" not in one

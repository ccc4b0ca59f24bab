"""The pages that restate one rule say the same thing (a reader who lands on any of them is told the
rule lobrec runs): a refused call is judged like any call, "unpriced" is any 2xx without a price,
checks ignore case as ECMA-262's `i` flag with `u`, and "errored" covers every answer that is not
a completion. Each statement is paired with the behaviour it describes."""

from __future__ import annotations

import re
from pathlib import Path

from lobrec.core.suite.checks import compile_pattern

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _page(name: str) -> str:
    """The page's text with its line breaks folded, so a phrase may wrap."""
    return re.sub(r"\s+", " ", (DOCS / name).read_text(encoding="utf-8"))


def test_no_page_says_a_refused_call_is_judged_as_an_invalid_call() -> None:
    for name in ("results.md", "metrics.md", "methodology.md"):
        assert "judged as an invalid call" not in _page(name), name
    assert "its calls are judged like any call" in _page("results.md")
    assert "judged like any call" in _page("metrics.md")


def test_unpriced_means_any_2xx_without_a_price_on_every_page() -> None:
    assert "The 200 answers without" not in _page("results.md")
    assert "The 2xx answers without `x-lobstack-cost-usd`" in _page("results.md")
    assert "a 2xx without the header (`cost_usd` null) is *unpriced*" in _page("metrics.md")


def test_every_page_names_the_i_and_u_flags_for_case_insensitive_checks() -> None:
    assert "ECMA-262's `i` flag does with the `u` flag (`iu`" in _page("suite-format.md")
    assert "ECMA's `i` flag does with the `u` flag (`iu`" in _page("methodology.md")
    assert "ECMA-262's `i` flag with the `u` flag" in _page("schema.md")
    # and `iu` is what runs: the Kelvin sign folds to k, which `i` alone does not do
    assert compile_pattern("^k$").search("\u212a")


def test_errored_covers_1xx_3xx_and_a_2xx_that_is_not_a_completion_on_both_pages() -> None:
    metrics = _page("metrics.md")
    methodology = _page("methodology.md")
    for words in ("1xx", "3xx", "not a chat completion"):
        assert words in metrics and words in methodology, words


def test_the_open_places_are_decided_in_writing() -> None:
    methodology = _page("methodology.md")
    assert "## One principle for the open places" in (DOCS / "methodology.md").read_text(encoding="utf-8")
    for decided in (
        "A refused call of only whitespace",
        "also carries an `error` object",
        "`\\b` in a case-insensitive",
    ):
        assert decided in methodology, decided

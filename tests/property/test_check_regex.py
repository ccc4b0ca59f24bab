"""A check's regex and a schema's `pattern` are one dialect (ECMA-262 onto `re`), the check's only
case-insensitive: `$` is the end of the string, never the place before a final newline."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lobrec.core.checks import compile_pattern, run_check
from lobrec.core.schema import validate
from lobrec.core.suite import Regex

# Patterns of ECMA syntax over a small alphabet (newlines included, which is where `$` differs).
_ATOMS = ("a", "b", "0", "\\d", "\\s", "\\S", ".", "[ab]", "[^a]", "\\n", "x", " ", "-")
_ALPHABET = "ab0x -\n\r\t"


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    atoms = draw(st.lists(st.sampled_from(_ATOMS), min_size=0, max_size=4))
    quantified = [atom + draw(st.sampled_from(("", "", "*", "+", "?"))) for atom in atoms]
    body = "".join(quantified)
    if draw(st.booleans()):
        body = f"{body}|{draw(st.sampled_from(_ATOMS))}"
    return body


_strings = st.text(alphabet=_ALPHABET, max_size=12)


@settings(max_examples=400, deadline=None)
@given(_patterns(), _strings, st.booleans())
def test_dollar_never_matches_before_a_trailing_newline(pattern: str, text: str, caret: bool) -> None:
    anchored = ("^" if caret else "") + f"(?:{pattern})$"
    subject = text + "\n"
    match = compile_pattern(anchored).search(subject)
    assert match is None or match.end() == len(subject)
    # the check itself says so: a `$`-anchored pattern never passes on the strength of a final "\n"
    if match is None:
        assert run_check(Regex(arg="s", pattern=anchored), {"s": subject}) is not None


@settings(max_examples=300, deadline=None)
@given(_strings)
def test_an_exact_pattern_refuses_the_string_with_a_newline_appended(text: str) -> None:
    pattern = "^" + re.escape(text) + "$"
    assert run_check(Regex(arg="s", pattern=pattern), {"s": text}) is None
    assert run_check(Regex(arg="s", pattern=pattern), {"s": text + "\n"}) is not None


@settings(max_examples=400, deadline=None)
@given(_patterns(), _strings, st.booleans(), st.booleans())
def test_a_check_agrees_with_the_schema_pattern(pattern: str, text: str, caret: bool, dollar: bool) -> None:
    """Same verdict as `{"pattern": ...}`, and upper case changes nothing (the check ignores case)."""
    source = ("^" if caret else "") + f"(?:{pattern})" + ("$" if dollar else "")
    by_schema = validate({"pattern": source}, text) == []
    assert (run_check(Regex(arg="s", pattern=source), {"s": text}) is None) == by_schema
    assert (run_check(Regex(arg="s", pattern=source), {"s": text.upper()}) is None) == by_schema

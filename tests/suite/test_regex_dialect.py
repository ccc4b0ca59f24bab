"""A check's regex and a schema's `pattern` are one dialect (ECMA-262, run by RE2 in linear time),
the check's only case-insensitive: `$` is the end of the string, never the place before a final
newline; Unicode letters fold as under ECMA-262's `i` flag."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.suite.checks import compile_pattern, run_check
from lobrec.core.suite.format import Regex
from lobrec.core.suite.jsonschema import validate

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


def _python(pattern: str) -> re.Pattern[str]:
    r"""The same pattern for Python's backtracking `re`, on this alphabet: `.` stops at `\r` too and
    `$` is the very end (`\Z`), as in ECMA-262; `\s`, `\d` agree on these characters."""
    return re.compile(pattern.replace(".", "[^\n\r]").replace("$", "\\Z"), re.ASCII | re.IGNORECASE)


@given(_patterns(), _strings, st.booleans(), st.booleans())
def test_the_linear_engine_agrees_with_backtracking_on_the_common_dialect(
    pattern: str, text: str, caret: bool, newline: bool
) -> None:
    anchored = ("^" if caret else "") + f"(?:{pattern})$"
    subject = text + ("\n" if newline else "")
    for source in (anchored, pattern):
        assert compile_pattern(source).search(subject) == (_python(source).search(subject) is not None)
    # a `$`-anchored pattern never passes on the strength of a final "\n"
    if not compile_pattern(anchored).search(subject):
        assert run_check(Regex(arg="s", pattern=anchored), {"s": subject}) is not None


@given(_strings)
def test_an_exact_pattern_refuses_the_string_with_a_newline_appended(text: str) -> None:
    pattern = "^" + re.escape(text) + "$"
    assert run_check(Regex(arg="s", pattern=pattern), {"s": text}) is None
    assert run_check(Regex(arg="s", pattern=pattern), {"s": text + "\n"}) is not None


@given(_patterns(), _strings, st.booleans(), st.booleans())
def test_a_check_agrees_with_the_schema_pattern(pattern: str, text: str, caret: bool, dollar: bool) -> None:
    """Same verdict as `{"pattern": ...}`, and upper case changes nothing (the check ignores case)."""
    source = ("^" if caret else "") + f"(?:{pattern})" + ("$" if dollar else "")
    by_schema = validate({"pattern": source}, text) == []
    assert (run_check(Regex(arg="s", pattern=source), {"s": text}) is None) == by_schema
    assert (run_check(Regex(arg="s", pattern=source), {"s": text.upper()}) is None) == by_schema


# Letters whose case folding is one character (so simple and full folding agree) in scripts whose
# case pairs are stable across Unicode versions: Latin-1, Latin Extended-A, Greek, Cyrillic.
_LETTERS = [
    chr(point)
    for block in (range(0xC0, 0x250), range(0x370, 0x400), range(0x400, 0x530))
    for point in block
    if chr(point).isalpha() and len(chr(point).casefold()) == 1
]


@given(st.sampled_from(_LETTERS), st.sampled_from(_LETTERS))
def test_case_folds_unicode_letters_as_ecma_i_does(wanted: str, got: str) -> None:
    """/é/ matches "É": two letters match case-insensitively exactly when they fold alike."""
    same = wanted.casefold() == got.casefold()
    assert (run_check(Regex(arg="s", pattern=wanted), {"s": got}) is None) == same
    assert (run_check(Regex(arg="s", pattern=f"^[{wanted}]+$"), {"s": got * 3}) is None) == same
    assert (validate({"pattern": wanted}, got) == []) == (wanted == got)  # a schema pattern keeps case


def test_the_issue_example_e_acute_matches_its_capital() -> None:
    assert run_check(Regex(arg="s", pattern="é"), {"s": "É"}) is None
    assert run_check(Regex(arg="s", pattern="^CAFÉ$"), {"s": "café"}) is None
    assert run_check(Regex(arg="s", pattern="(?-i:É)"), {"s": "é"}) is not None

"""The differences the JavaScript oracle found (`test_ecma_oracle.py`), pinned with node's answers so
that they hold without node: `\\b` and `\\B` are decided between characters, with the `iu` word set
in a check, and a quantified assertion or lookaround is a syntax error, as under the `u` flag."""

from __future__ import annotations

import pytest

from lobrec.core.suite.checks import compile_pattern, run_check
from lobrec.core.suite.ecma import PatternError, compile_ecma
from lobrec.core.suite.format import Regex
from lobrec.core.suite.jsonschema import validate

KELVIN = "\u212a"

# (pattern, flags, text, what `new RegExp(pattern, flags).test(text)` answers in node)
_JAVASCRIPT = [
    ("\\B", "u", "aéb", False),
    ("\\B", "u", "x①y", False),
    ("\\B", "u", "éé", True),
    ("é\\B", "u", "é①", True),
    ("\\b", "u", "é", False),
    ("a\\b", "u", "aé", True),
    ("^\\B$", "u", "", True),
    ("a?\\B", "u", "é", True),
    ("\\bs", "iu", "ſ", True),
    ("\\bs", "iu", "aſ", False),
    ("\\bs", "u", "ſ", False),
    ("k\\b", "iu", KELVIN, True),
    ("k\\B", "iu", KELVIN + "a", True),
    ("\\Bk", "iu", "a" + KELVIN, True),
    ("\\b", "iu", KELVIN, True),
    ("\\b", "u", KELVIN, False),
    ("\\w\\b", "iu", "ſ", True),
    ("(?<!a)\\bs", "iu", "ſ", True),
    ("^(?!.*\\bk)", "iu", "a" + KELVIN, True),
]


@pytest.mark.parametrize(("pattern", "flags", "text", "javascript"), _JAVASCRIPT)
def test_word_boundaries_are_decided_between_characters_as_javascript_does(
    pattern: str, flags: str, text: str, javascript: bool
) -> None:
    assert compile_ecma(pattern, ignore_case="i" in flags).search(text) is javascript


def test_a_schema_pattern_with_b_refuses_a_string_with_a_non_ascii_letter_between_word_characters() -> None:
    assert validate({"type": "string", "pattern": "\\B"}, "aéb") != []
    assert validate({"type": "string", "pattern": "\\B"}, "ab") == []


def test_a_check_counts_the_long_s_and_the_kelvin_sign_as_word_characters_at_a_boundary() -> None:
    check = Regex(arg="unit", pattern="^\\bk\\b$")
    assert run_check(check, {"unit": KELVIN}) is None
    assert run_check(Regex(arg="s", pattern="\\Bs"), {"s": "aſ"}) is None


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^(?=a)*b", "a lookaround cannot be quantified"),
        ("(?<=a)*b", "a lookaround cannot be quantified"),
        ("^(?!x)+y", "a lookaround cannot be quantified"),
        ("x(?<!a)?", "a lookaround cannot be quantified"),
        ("a(?=b){2}", "a lookaround cannot be quantified"),
        ("\\b+", "nothing to repeat"),
        ("^*a", "nothing to repeat"),
        ("a$?", "nothing to repeat"),
        ("a{2}*", "nothing to repeat"),
        ("(*a)", "nothing to repeat"),
        ("a|+", "nothing to repeat"),
    ],
)
def test_a_quantified_assertion_is_refused_in_one_line(pattern: str, reason: str) -> None:
    for ignore_case in (False, True):
        with pytest.raises(PatternError, match=reason) as raised:
            compile_ecma(pattern, ignore_case=ignore_case)
        assert "\n" not in str(raised.value)


def test_quantified_groups_and_lazy_quantifiers_still_compile() -> None:
    for pattern in ("(a)*b", "(?:a)+", "a*?", "a{2}?", "(?:^a)?b"):
        compile_ecma(pattern)


def test_a_case_sensitive_part_that_tells_the_long_s_from_s_is_refused_beside_a_case_insensitive_b() -> None:
    with pytest.raises(PatternError, match="tells ſ from s"):
        compile_pattern("(?-i:[a-z])\\b")
    with pytest.raises(PatternError, match="tells ſ from s"):
        compile_ecma("s(?i:\\bx)")
    # a case-sensitive part that cannot tell them apart is fine, as in the suite's time-zone checks
    assert compile_pattern("(?-i:[A-Z]{2})\\b").search("UT ſ")
    assert not compile_pattern("^(?-i:[A-Z]{2})\\b").search("UTC")


# (pattern, text): node's `/pattern/iu` matches, `/pattern/i` does not; a check runs `iu`
_IU_ONLY = [("s", "ſ"), ("k", KELVIN), ("ß", "ẞ"), ("ω", "\u2126"), ("å", "\u212b")]


@pytest.mark.parametrize(("pattern", "text"), _IU_ONLY)
def test_a_check_folds_case_as_the_i_and_u_flags_do(pattern: str, text: str) -> None:
    assert compile_pattern(pattern).search(text)
    assert not compile_ecma(pattern).search(text)  # a schema pattern keeps case

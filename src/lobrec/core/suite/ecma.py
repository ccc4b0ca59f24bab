"""ECMA-262 regular expressions, matched in linear time (RE2).

Suite checks' `regex` and tool schemas' `pattern` come from suite authors and run on what models
write, so a backtracking engine would let one pattern and one long argument (`^\\s*x\\s*$` on the
name plus 300,000 spaces) take minutes, during which no signal is handled. lobrec translates each
ECMA-262 pattern, token by token (`lobrec.core.suite.ecmasyntax` reads the tokens; this module turns
lookaround into what RE2 runs), into RE2's syntax (google-re2: time linear in the text, always)
and refuses, with one line, what RE2 cannot run as ECMA would:

- back-references (`\\1`, `\\k<name>`) and legacy octal escapes (`\\01`): no linear engine has them;
- repetition counts over 1,000, `\\p{...}`, `\\u{...}`, identity escapes of letters (`\\q`), inline
  flags other than `(?i:...)` and `(?-i:...)`, and lone surrogate escapes.

Lookaround compiles to a linear matcher in these forms only: at the start of an alternative
`^(?=R)` / `^(?!R)` (tested once, at position 0; R without lookaround) and `(?<=L)` / `(?<!L)`; at
its end `(?=L)` / `(?!L)`, where a negative `L` is one character class or a few short sequences of
plain characters and sets (`\\.?[0-9]`). Lookaround anywhere else (nested, mid-pattern) is refused
like the rest: there is no backtracking engine to fall back on, so every pattern lobrec runs on
outside text runs in linear time. Such a lookaround can be written out (`(?!0?21\\b)\\d\\d?\\b` is
`(?:\\d|[013-9]\\d|2[02-9])\\b`), as suite 1.2.0's checks are.

Case-insensitivity (the checks') is Unicode simple case folding, as ECMA-262's `i` flag with `u`:
`/é/` matches "É". `docs/schema.md` ("Regular expressions") spells out the dialect.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec
import re2

from lobrec.core.suite.ecmasyntax import (
    ANYTHING,
    MAX_REPEAT,
    NOTHING,
    PatternError,
    Token,
    char_set,
    closing,
    re2_text,
    read_tokens,
    split_alternatives,
)

__all__ = ["MAX_REPEAT", "EcmaPattern", "PatternError", "compile_ecma"]


# --- lookaround ----------------------------------------------------------------------------------


_BODY_END = Token("end of body", "")


def _plain_item(part: Sequence[Token], index: int) -> tuple[frozenset[int], bool]:
    """The characters of the atom at part[index], and whether a `?` follows it (any other quantifier
    or token is refused: it has no short list of strings)."""
    token = part[index]
    following = part[index + 1] if index + 1 < len(part) else _BODY_END
    quantified = following.kind == "quantifier"
    optional = quantified and following.text == "?"
    if (
        token.kind != "atom"
        or token.points is None
        or len(token.points) > 1000
        or (quantified and not optional)
    ):
        raise PatternError(
            "a negative lookaround longer than one character may hold only plain characters, "
            "small sets, ? and |"
        )
    return token.points, optional


def _sequences(tokens: Sequence[Token]) -> list[list[frozenset[int]]]:
    """The strings of a lookaround body made of plain characters and small sets, each optional or
    not, and alternatives: as sequences of character sets."""
    out: list[list[frozenset[int]]] = []
    for part in split_alternatives(tokens):
        sequences: list[list[frozenset[int]]] = [[]]
        index = 0
        while index < len(part):
            points, optional = _plain_item(part, index)
            grown = [[*sequence, points] for sequence in sequences]
            sequences = grown + (sequences if optional else [])
            if len(sequences) > 64:
                raise PatternError("a negative lookaround has too many alternatives (over 64)")
            index += 2 if optional else 1
        out.extend(sequences)
    return out


def _folded(points: frozenset[int], ignore_case: bool) -> frozenset[int]:
    if not ignore_case:
        return points
    out = set(points)
    for point in points:
        for variant in (chr(point).lower(), chr(point).upper(), chr(point).casefold()):
            if len(variant) == 1:
                out.add(ord(variant))
    return frozenset(out)


_Trie = dict[frozenset[int], "_Trie | None"]
"""A set of characters to the rest of the strings (None: a string of the body ends there)."""


def _refuse_overlap(node: _Trie, points: frozenset[int]) -> None:
    if points not in node and any(points & other for other in node):
        raise PatternError("a negative lookaround's alternatives overlap; write them as one set")


def _insert(root: _Trie, sequence: list[frozenset[int]]) -> None:
    """Add one string of the body; one a shorter string already ends is left as it is."""
    node = root
    for points in sequence[:-1]:
        _refuse_overlap(node, points)
        child = node.setdefault(points, {})
        if child is None:
            return  # a shorter string already ends here
        node = child
    _refuse_overlap(node, sequence[-1])
    node[sequence[-1]] = None


def _trie(sequences: list[list[frozenset[int]]], ignore_case: bool) -> _Trie | None:
    root: _Trie = {}
    for sequence in sequences:
        if not sequence:
            return None  # the body matches the empty string: the negative lookaround never holds
        _insert(root, [_folded(points, ignore_case) for points in sequence])
    return root


def _not_next(node: _Trie | None, ahead: bool) -> str:
    """What may follow (ahead) or precede the match so that no string of the trie does: the edge of
    the text, a character no string starts (ends) with, or one that does and then the same again."""
    if node is None:
        return NOTHING
    union = frozenset().union(*node) if node else frozenset()
    options = ["$" if ahead else "^", f"[^{char_set(sorted(union))}]" if union else ANYTHING]
    for points, child in node.items():
        if child:
            first, rest = f"[{char_set(sorted(points))}]", f"(?:{_not_next(child, ahead)})"
            options.append(first + rest if ahead else rest + first)
    return "|".join(options)


def _negated_atom(atom: Token, ahead: bool) -> str:
    if not atom.class_body:
        other = NOTHING if atom.negated else ANYTHING
    else:
        other = f"[{atom.class_body}]" if atom.negated else f"[^{atom.class_body}]"
    return f"{'$' if ahead else '^'}|{other}"


def _negated(body: Sequence[Token], ignore_case: bool, *, ahead: bool) -> str:
    """What may stand next to the match for `(?!body)` (ahead) or `(?<!body)`: the end of the text,
    or characters no string of the body starts (ends) with."""
    if len(body) == 1 and body[0].kind == "atom" and (body[0].class_body or body[0].negated):
        return _negated_atom(body[0], ahead)
    sequences = _sequences(body)
    if not ahead:
        sequences = [list(reversed(sequence)) for sequence in sequences]
    return _not_next(_trie(sequences, ignore_case), ahead)


def _around(opener: Token, body: Sequence[Token], ignore_case: bool, *, ahead: bool) -> str:
    """A lookaround at the edge of an alternative, as a group its neighbour must match."""
    positive = opener.look in ("=", "<=")
    return f"(?:{re2_text(body) if positive else _negated(body, ignore_case, ahead=ahead)})"


# --- compiling -----------------------------------------------------------------------------------


def _options(ignore_case: bool) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    return options


def _re2(source: str, ignore_case: bool) -> re2._Regexp:
    try:
        return re2.compile(source, _options(ignore_case))
    except re2.error as exc:
        message = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(message) from None


class AlternativeSource(msgspec.Struct, frozen=True, array_like=True):
    """One alternative of a pattern in RE2's syntax: the lookarounds tested at position 0 (whether
    each must hold, its source) and the rest, searched."""

    conditions: tuple[tuple[bool, str], ...]
    core: str


class Translation(msgspec.Struct, frozen=True, array_like=True):
    """A pattern translated into RE2's syntax, not yet compiled. Translating is the costly part (a
    built clock-time check runs to 30,000 characters), so the bundled suite's translations are made
    once, at build time (`lobrec.translations`), and a run only compiles them."""

    alternatives: tuple[AlternativeSource, ...]
    folds_words: bool


@dataclass(frozen=True)
class _Alternative:
    conditions: tuple[tuple[bool, re2._Regexp], ...]
    core: re2._Regexp

    def search(self, text: bytes) -> bool:
        return all(
            (condition.search(text) is not None) == positive for positive, condition in self.conditions
        ) and (self.core.search(text) is not None)


def _conditions(tokens: list[Token]) -> tuple[list[tuple[bool, str]], int]:
    """After a `^`, the lookarounds tested once at position 0, and where the rest begins."""
    conditions: list[tuple[bool, str]] = []
    start = 1
    while start < len(tokens) and tokens[start].look in ("=", "!"):
        close = closing(tokens, start)
        body = re2_text(tokens[start + 1 : close])
        conditions.append((tokens[start].look == "=", f"^(?:{body})"))
        start = close + 1
    return conditions, start


def _lookbehind(tokens: list[Token], ignore_case: bool) -> tuple[str, int]:
    """A leading `(?<=...)` or `(?<!...)` as a prefix group, and where the rest begins."""
    if not tokens or tokens[0].look not in ("<=", "<!"):
        return "", 0
    close = closing(tokens, 0)
    return _around(tokens[0], tokens[1:close], ignore_case, ahead=False), close + 1


def _last_group(tokens: list[Token], start: int) -> int:
    """Where the group that closes the alternative opens (-1 when it does not open after `start`)."""
    depth = 0
    for index in range(len(tokens) - 1, start - 1, -1):
        depth += {"close": 1, "open": -1}.get(tokens[index].kind, 0)
        if depth == 0:
            return index
    return -1


def _lookahead(tokens: list[Token], start: int, ignore_case: bool) -> tuple[str, int]:
    """A trailing `(?=...)` or `(?!...)` as a suffix group, and where the rest ends."""
    end = len(tokens)
    if end <= start or tokens[-1].kind != "close":
        return "", end
    opener = _last_group(tokens, start)
    if opener < start or tokens[opener].look not in ("=", "!"):
        return "", end
    return _around(tokens[opener], tokens[opener + 1 : end - 1], ignore_case, ahead=True), opener


_BY_CHARACTER = "^(?s:.)*?"
"""Where a pattern with `\\b` or `\\B` starts: after whole characters. RE2 decides `\\b` between
bytes, and its unanchored search may start inside a character's UTF-8 bytes, where `\\B` holds
(`/\\B/` would match "aéb"); between characters, bytes decide as characters do, since every byte of
a non-ASCII character is a non-word byte as the character is a non-word character."""


def _alternative_source(tokens: list[Token], ignore_case: bool) -> AlternativeSource:
    anchored = bool(tokens) and tokens[0].kind == "start"
    conditions: list[tuple[bool, str]] = []
    if anchored:
        conditions, start = _conditions(tokens)
        prefix = ""
    else:
        prefix, start = _lookbehind(tokens, ignore_case)
    suffix, end = _lookahead(tokens, start, ignore_case)
    core = ("^" if anchored else "") + prefix + re2_text(tokens[start:end]) + suffix
    if any(token.kind == "assertion" for token in tokens):
        core = f"{_BY_CHARACTER}(?:{core})"
    return AlternativeSource(tuple(conditions), core)


def _alternative(source: AlternativeSource, ignore_case: bool) -> _Alternative:
    """An alternative's RE2 sources compiled; RE2 refuses what it cannot run (PatternError)."""
    conditions = tuple((positive, _re2(text, ignore_case)) for positive, text in source.conditions)
    return _Alternative(conditions, _re2(source.core, ignore_case))


# --- the word characters of `iu` -----------------------------------------------------------------

_FOLDED_WORD = {0x17F: "s", 0x212A: "k"}
"""The characters outside ASCII that ECMA-262's `i` and `u` flags make word characters for `\\b`,
each to the ASCII letter it folds to (ſ is s, the Kelvin sign K is k); no other character folds to
one of `[0-9A-Za-z_]`."""


def _case_regions(tokens: Sequence[Token], ignore_case: bool) -> list[bool]:
    """For each token, whether case is ignored where it stands (`(?i:...)`, `(?-i:...)` nest)."""
    stack, out = [ignore_case], []
    for token in tokens:
        if token.kind == "open":
            stack.append({"(?i:": True, "(?-i:": False}.get(token.text, stack[-1]))
        out.append(stack[-1])
        if token.kind == "close" and len(stack) > 1:
            stack.pop()
    return out


def _tells_folded_apart(token: Token) -> bool:
    """Whether an atom matched with case tells the long s from s or the Kelvin sign from k."""
    if token.kind != "atom":
        return False
    atom = _re2(token.text, ignore_case=False)
    return any(
        (atom.fullmatch(chr(point)) is None) != (atom.fullmatch(letter) is None)
        for point, letter in _FOLDED_WORD.items()
    )


def _folds_words(tokens: Sequence[Token], ignore_case: bool) -> bool:
    """Whether the text's long s (U+017F) and Kelvin sign (U+212A) are read as s and k, so that
    RE2's ASCII `\\b` sees them as word characters where case is ignored (as ECMA's `iu` does): only
    when a `\\b` or `\\B` stands where case is ignored. Refused when a character matched with case
    would see the difference (`(?-i:s)`); a `\\b` inside `(?-i:...)` then reads them as word
    characters too (docs/schema.md)."""
    regions = _case_regions(tokens, ignore_case)
    pairs = list(zip(tokens, regions, strict=True))
    if not any(token.kind == "assertion" and folded for token, folded in pairs):
        return False
    if any(not folded and _tells_folded_apart(token) for token, folded in pairs):
        raise PatternError(
            "\\b or \\B where case is ignored, with a case-sensitive character or set that tells ſ "
            "from s or K from k, is not supported"
        )
    return True


class EcmaPattern:
    """A compiled ECMA-262 pattern; `search` says whether it matches anywhere in the text."""

    def __init__(
        self, source: str, alternatives: tuple[_Alternative, ...], *, folds_words: bool = False
    ) -> None:
        self.source = source
        self._alternatives = alternatives
        self._folds_words = folds_words

    def search(self, text: str) -> bool:
        if self._folds_words:
            text = text.translate(_FOLDED_WORD)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: UTF-8 cannot hold one; as one character it matches `.`
            data = text.translate(_SURROGATES).encode("utf-8")
        # RE2 searches UTF-8 bytes (a str is encoded for it): given the bytes once, every alternative
        # skips the encoding and the offsets a match of a str would be converted back to
        return any(alternative.search(data) for alternative in self._alternatives)

    def __repr__(self) -> str:
        return f"EcmaPattern({self.source!r})"


_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), "\ufffd")
"""Lone surrogates to U+FFFD (`str.translate`: no regex engine touches the text but RE2)."""


_TRANSLATIONS: dict[tuple[str, bool], Translation] = {}
"""Every translation this process has made or been given (`remember_translations`), by pattern and
`ignore_case`: a cache of a pure function, like `compile_ecma`'s own."""


def remember_translations(translations: Mapping[tuple[str, bool], Translation]) -> None:
    """Take translations made elsewhere (at build time) for `compile_ecma` to compile as they are.
    Only translations this module made from the same patterns belong here: they are not checked."""
    _TRANSLATIONS.update(translations)


def translations() -> dict[tuple[str, bool], Translation]:
    """The translations this process has made or been given, for a build to keep."""
    return dict(_TRANSLATIONS)


def forget_translations() -> None:
    """Start afresh: every pattern compiled from here on is translated (a build, a test)."""
    _TRANSLATIONS.clear()
    compile_ecma.cache_clear()


def _translated(pattern: str, ignore_case: bool) -> EcmaPattern:
    """Translate and compile, each alternative compiled as soon as it is translated (RE2's refusal
    of an early alternative comes before a later one's)."""
    tokens = read_tokens(pattern)  # refuses back-references and syntax outside ECMA-262
    sources, alternatives = [], []
    for part in split_alternatives(tokens):
        sources.append(_alternative_source(part, ignore_case))
        alternatives.append(_alternative(sources[-1], ignore_case))
    folds_words = _folds_words(tokens, ignore_case)
    _TRANSLATIONS[pattern, ignore_case] = Translation(tuple(sources), folds_words)
    return EcmaPattern(pattern, tuple(alternatives), folds_words=folds_words)


@functools.lru_cache(maxsize=1024)
def compile_ecma(pattern: str, *, ignore_case: bool = False) -> EcmaPattern:
    """Compile an ECMA-262 pattern for linear-time search; raise PatternError for what lobrec
    cannot run as ECMA-262 would (see the module docstring)."""
    known = _TRANSLATIONS.get((pattern, ignore_case))
    if known is None:
        return _translated(pattern, ignore_case)
    alternatives = tuple(_alternative(source, ignore_case) for source in known.alternatives)
    return EcmaPattern(pattern, alternatives, folds_words=known.folds_words)

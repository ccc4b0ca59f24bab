"""ECMA-262 pattern syntax, read token by token into RE2's (the translation `lobrec.core.suite.ecma` runs).

Each token is written in RE2 syntax as it is read, with what the lookaround translation needs to know
about it (its characters, when they are few). What RE2 cannot run as ECMA-262 would is refused here
with one line (`PatternError`), so nothing past this module meets a construct it cannot translate:
back-references, legacy octal escapes, `\\p{...}`, `\\u{...}`, identity escapes of letters, inline flags
other than `(?i:...)`, repetition counts over 1,000 and lone surrogates. `docs/schema.md` ("Regular
expressions") spells out the dialect.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MAX_REPEAT = 1000
"""RE2's largest repetition count (`a{1000}`)."""


class PatternError(ValueError):
    """A pattern lobrec cannot run as ECMA-262 would; the message says why, in one line."""


# --- character sets in RE2 syntax ----------------------------------------------------------------

_ECMA_SPACE = sorted(
    {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029}
    | {0x202F, 0x205F, 0x3000, 0xFEFF}
)
_LINE_TERMINATORS = (0x0A, 0x0D, 0x2028, 0x2029)


def _x(point: int) -> str:
    return f"\\x{{{point:x}}}"


def _ranges(points: Sequence[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for point in sorted(points):
        if out and out[-1][1] >= point - 1:
            out[-1] = (out[-1][0], max(out[-1][1], point))
        else:
            out.append((point, point))
    return out


def char_set(points: Sequence[int]) -> str:
    return "".join(_x(lo) if lo == hi else f"{_x(lo)}-{_x(hi)}" for lo, hi in _ranges(points))


def _complement_body(points: Sequence[int]) -> str:
    out, start = [], 0
    for lo, hi in _ranges(points):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    out.append((start, 0x10FFFF))
    return "".join(_x(lo) if lo == hi else f"{_x(lo)}-{_x(hi)}" for lo, hi in out)


_SPACE = char_set(_ECMA_SPACE)
_NON_SPACE = _complement_body(_ECMA_SPACE)
NOTHING = r"[^\x{0}-\x{10ffff}]"
ANYTHING = r"[\x{0}-\x{10ffff}]"
_HEX = re.compile(r"[0-9a-fA-F]+")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_GROUP_NAME = re.compile(r"<[A-Za-z_$][A-Za-z0-9_$]*>")
_CONTROL = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}


# --- tokens --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    kind: str
    """atom, quantifier, open, close, alt, start (`^`) or end (`$`)."""
    text: str
    """The token in RE2 syntax."""
    look: str = ""
    """For an `open`: "=", "!", "<=", "<!" when it opens a lookaround."""
    points: frozenset[int] | None = None
    """For an atom: its characters, when it is a small explicit set (for negated lookaround)."""
    negated: bool = False
    class_body: str = ""
    """For an atom: the inside of the RE2 class that is the atom (or of its complement if negated)."""


@functools.cache
def _char_atom(point: int) -> Token:
    """One character, as an atom (one frozen Token per character: long built patterns repeat few)."""
    return Token("atom", _x(point), points=frozenset({point}), class_body=_x(point))


# --- escapes -------------------------------------------------------------------------------------


def _control_letter(pattern: str, i: int) -> tuple[int, int]:
    if i + 1 < len(pattern) and pattern[i + 1].isascii() and pattern[i + 1].isalpha():
        return ord(pattern[i + 1]) % 32, i + 2
    raise PatternError("\\c must be followed by a letter")


def _null(pattern: str, i: int) -> tuple[int, int]:
    if i + 1 < len(pattern) and pattern[i + 1].isdigit():
        raise PatternError("legacy octal escapes (\\0 followed by a digit) are not supported")
    return 0, i + 1


def _hex_byte(pattern: str, i: int) -> tuple[int, int]:
    digits = pattern[i + 1 : i + 3]
    if len(digits) == 2 and _HEX.fullmatch(digits):
        return int(digits, 16), i + 3
    raise PatternError("\\x must be followed by two hex digits")


def _low_surrogate(pattern: str, end: int) -> int | None:
    """The low surrogate escaped at pattern[end] (`\\uDC00` to `\\uDFFF`), or None."""
    if not pattern.startswith("\\u", end):
        return None
    low = pattern[end + 2 : end + 6]
    if len(low) == 4 and _HEX.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
        return int(low, 16)
    return None


def _unicode(pattern: str, i: int) -> tuple[int, int]:
    """`\\uXXXX`, or a surrogate pair of two such escapes as the one character they encode."""
    digits = pattern[i + 1 : i + 5]
    if len(digits) != 4 or not _HEX.fullmatch(digits):
        raise PatternError("\\u must be followed by four hex digits (\\u{...} is not supported)")
    point, end = int(digits, 16), i + 5
    low = _low_surrogate(pattern, end) if 0xD800 <= point <= 0xDBFF else None
    if low is not None:
        return 0x10000 + ((point - 0xD800) << 10) + (low - 0xDC00), end + 6
    if 0xD800 <= point <= 0xDFFF:
        raise PatternError(f"a lone surrogate escape (\\u{digits}) matches no text lobrec judges")
    return point, end


_POINT_ESCAPES: dict[str, Callable[[str, int], tuple[int, int]]] = {
    "c": _control_letter,
    "0": _null,
    "x": _hex_byte,
    "u": _unicode,
}
"""The escapes that spell one character by its code, each read from its letter on."""


def _refuse_escape(char: str) -> None:
    """Refuse the escapes ECMA-262 gives a meaning lobrec cannot run, or none outside legacy mode."""
    if char.isdigit():
        raise PatternError(f"back-references (\\{char}) are not supported")
    if char == "k":
        raise PatternError("back-references (\\k<name>) are not supported")
    if char in "pP":
        raise PatternError(f"\\{char}{{...}} Unicode properties are not supported")
    if (char.isascii() and char.isalnum()) or char == "_":
        raise PatternError(f"the escape \\{char} has no meaning in ECMA-262 outside legacy mode")


def _code_point(pattern: str, i: int) -> tuple[int, int]:
    """The escape at pattern[i] (after the backslash) as a code point, and where it ends; for the
    escapes that stand for one character."""
    char = pattern[i]
    if char in _CONTROL:
        return _CONTROL[char], i + 1
    if char in _POINT_ESCAPES:
        return _POINT_ESCAPES[char](pattern, i)
    _refuse_escape(char)
    return ord(char), i + 1


_CLASS_ESCAPES = {
    "d": (False, "0-9", "\\d"),
    "D": (True, "0-9", "\\D"),
    "w": (False, "0-9A-Za-z_", "\\w"),
    "W": (True, "0-9A-Za-z_", "\\W"),
    "s": (False, _SPACE, _SPACE),
    "S": (True, _SPACE, _NON_SPACE),
}
"""Each class escape: negated or not, the class it stands for (the complement's when negated), and
what it is inside a class (ECMA's `\\s` is wider than RE2's, so it is spelt out)."""
_DIGITS = frozenset(range(0x30, 0x3A))


def _class_escape(char: str, in_class: bool) -> Token:
    negated, body, inside = _CLASS_ESCAPES[char]
    points = _DIGITS if char == "d" else None
    outside = f"[^{body}]" if negated else f"[{body}]"
    return Token("atom", inside if in_class else outside, points=points, negated=negated, class_body=body)


def _escape_atom(pattern: str, i: int, in_class: bool) -> tuple[Token, int]:
    """The escape starting at pattern[i] (the backslash)."""
    if i + 1 >= len(pattern):
        raise PatternError("the pattern ends with a lone backslash")
    char = pattern[i + 1]
    if char in _CLASS_ESCAPES:
        return _class_escape(char, in_class), i + 2
    if char in "bB" and not in_class:
        return Token("assertion", f"\\{char}"), i + 2
    if char == "b":  # inside a class: backspace
        return _char_atom(8), i + 2
    point, end = _code_point(pattern, i + 1)
    return _char_atom(point), end


# --- character classes ---------------------------------------------------------------------------


class _ClassParts:
    """A class's members as they are read: the RE2 text, and its characters while they are few."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.points: set[int] | None = set()
        self.last: int | None = None
        """The previous member, when it was one character (a range may start)."""

    def range_follows(self, pattern: str, j: int) -> bool:
        """A `-` at pattern[j] makes a range with the previous member (else it is a literal)."""
        return pattern[j] == "-" and self.last is not None and j + 1 < len(pattern) and pattern[j + 1] != "]"

    def add_range(self, pattern: str, j: int) -> int:
        """The range from the previous member to the one at pattern[j]; where it ends."""
        assert self.last is not None
        token, j = _class_member(pattern, j)
        if token.points is None or len(token.points) != 1:
            raise PatternError("a class range must end with one character")
        high = next(iter(token.points))
        if high < self.last:
            raise PatternError(f"the class range {chr(self.last)!r}-{chr(high)!r} is out of order")
        self.parts.append("-" + token.text)
        if self.points is not None and high - self.last <= 1000:
            self.points |= set(range(self.last, high + 1))
        else:
            self.points = None
        self.last = None
        return j

    def add(self, pattern: str, j: int) -> int:
        """The member at pattern[j]; where it ends."""
        token, j = _class_member(pattern, j)
        self.parts.append(token.text)
        if self.points is not None and token.points is not None and not token.negated:
            self.points |= token.points
        else:
            self.points = None
        self.last = next(iter(token.points)) if token.points is not None and len(token.points) == 1 else None
        return j

    def token(self, negated: bool) -> Token:
        body = "".join(self.parts)
        empty = ANYTHING if negated else NOTHING  # ECMA's `[^]` and `[]`; RE2 has no empty class
        text = empty if not body else f"[^{body}]" if negated else f"[{body}]"
        explicit = frozenset(self.points) if self.points is not None and not negated else None
        return Token("atom", text, points=explicit, negated=negated, class_body=body)


def _class(pattern: str, i: int) -> tuple[Token, int]:
    """The class starting at pattern[i] (the `[`). ECMA's rules: `]` always closes (`[]` matches
    nothing, `[^]` anything), `[` inside is a literal."""
    j = i + 1
    negated = pattern.startswith("^", j)
    if negated:
        j += 1
    members = _ClassParts()
    while j >= len(pattern) or pattern[j] != "]":
        if j >= len(pattern):
            raise PatternError("a character class is not closed")
        j = (
            members.add_range(pattern, j + 1)
            if members.range_follows(pattern, j)
            else members.add(pattern, j)
        )
    return members.token(negated), j + 1


def _class_member(pattern: str, j: int) -> tuple[Token, int]:
    if pattern[j] == "\\":
        return _escape_atom(pattern, j, in_class=True)
    return _literal(pattern, j)


# --- the pattern's tokens ------------------------------------------------------------------------


def _literal(pattern: str, i: int) -> tuple[Token, int]:
    char = pattern[i]
    if 0xD800 <= ord(char) <= 0xDFFF:
        raise PatternError("a lone surrogate matches no text lobrec judges")
    return _char_atom(ord(char)), i + 1


def _quantifier(pattern: str, i: int) -> tuple[Token, int]:
    """`*`, `+` or `?`, lazy when a `?` follows."""
    lazy = pattern.startswith("?", i + 1)
    return Token("quantifier", pattern[i] + ("?" if lazy else "")), i + (2 if lazy else 1)


def _count(pattern: str, i: int) -> tuple[Token, int]:
    """`{n}`, `{n,}` or `{n,m}` (lazy when a `?` follows); a `{` that starts none is a literal."""
    quantifier = _QUANTIFIER.match(pattern, i)
    if quantifier is None:
        return _literal(pattern, i)
    low, high = int(quantifier.group(1)), quantifier.group(3)
    if low > MAX_REPEAT or (high and int(high) > MAX_REPEAT):
        raise PatternError(f"repetition counts over {MAX_REPEAT} are not supported")
    lazy = pattern.startswith("?", quantifier.end())
    return Token("quantifier", quantifier.group() + ("?" if lazy else "")), quantifier.end() + (
        1 if lazy else 0
    )


def _open(pattern: str, i: int) -> tuple[Token, int]:
    if not pattern.startswith("?", i + 1):
        return Token("open", "("), i + 1
    rest = pattern[i + 2 : i + 5]
    for look in ("<=", "<!", "=", "!"):
        if rest.startswith(look):
            return Token("open", "(?:", look=look), i + 2 + len(look)
    if rest.startswith(":"):
        return Token("open", "(?:"), i + 3
    if rest.startswith("<") and (name := _GROUP_NAME.match(pattern, i + 2)):
        return Token("open", "("), name.end()  # the name is only for back-references, which are refused
    for flags in ("i:", "-i:"):
        if pattern.startswith(flags, i + 2):
            return Token("open", f"(?{flags}"), i + 2 + len(flags)
    raise PatternError(f"the group syntax {pattern[i : i + 4]!r}... is not ECMA-262 (or not supported)")


def _one(token: Token) -> Callable[[str, int], tuple[Token, int]]:
    """The reader of a one-character token that is always the same."""
    return lambda pattern, i: (token, i + 1)


_TERMINATORS = char_set(_LINE_TERMINATORS)
_READERS: dict[str, Callable[[str, int], tuple[Token, int]]] = {
    "\\": lambda pattern, i: _escape_atom(pattern, i, in_class=False),
    "[": _class,
    "(": _open,
    ")": _one(Token("close", ")")),
    "|": _one(Token("alt", "|")),
    "*": _quantifier,
    "+": _quantifier,
    "?": _quantifier,
    "{": _count,
    "^": _one(Token("start", "^")),
    "$": _one(Token("end", "$")),
    ".": _one(Token("atom", f"[^{_TERMINATORS}]", negated=True, class_body=_TERMINATORS)),
}
"""The reader of the token each character starts; any other character is itself (`_literal`)."""


def _refuse_quantified(tokens: Sequence[Token], quantifier: Token) -> None:
    """A quantifier must follow something that consumes text: ECMA-262 with the `u` flag refuses
    `^*`, `\\b+`, `a{2}*` and a quantified lookaround (`(?=a)*`, `(?<=a)?`) as syntax errors."""
    previous = tokens[-1] if tokens else None
    if previous is None or previous.kind in ("start", "end", "assertion", "open", "alt", "quantifier"):
        raise PatternError(f"nothing to repeat before {quantifier.text!r}")
    if previous.kind == "close" and tokens[_opening(tokens)].look:
        raise PatternError(f"a lookaround cannot be quantified ({quantifier.text!r} after it)")


def _opening(tokens: Sequence[Token]) -> int:
    """The index of the `open` that the final `close` of tokens closes."""
    depth = 0
    for index in range(len(tokens) - 1, -1, -1):
        depth += {"close": 1, "open": -1}.get(tokens[index].kind, 0)
        if depth == 0:
            return index
    raise PatternError("unbalanced parenthesis")


def read_tokens(pattern: str) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(pattern):
        token, i = _READERS.get(pattern[i], _literal)(pattern, i)
        if token.kind == "quantifier":
            _refuse_quantified(out, token)
        out.append(token)
    return out


# --- groups and alternatives ----------------------------------------------------------------------


def closing(tokens: Sequence[Token], start: int) -> int:
    """The index of the `close` matching the `open` at `start`."""
    depth = 0
    for index in range(start, len(tokens)):
        if tokens[index].kind == "open":
            depth += 1
        elif tokens[index].kind == "close":
            depth -= 1
            if depth == 0:
                return index
    raise PatternError("a group is not closed")


def re2_text(tokens: Sequence[Token]) -> str:
    """The tokens in RE2 syntax; refuses a lookaround among them (the caller took the ones it can)."""
    for token in tokens:
        if token.look:
            raise PatternError(
                "lookaround has no linear-time translation here: it is supported only as ^(?=...) or "
                "^(?!...) at the start, (?<=...) or (?<!...) first, and (?=...) or (?!...) last in an "
                "alternative, never nested"
            )
    return "".join(token.text for token in tokens)


def split_alternatives(tokens: Sequence[Token]) -> list[list[Token]]:
    """The top-level alternatives (`a|b(c|d)` is `a` and `b(c|d)`); refuses unbalanced groups."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.kind == "alt" and depth == 0:
            parts.append([])
            continue
        depth += {"open": 1, "close": -1}.get(token.kind, 0)
        if depth < 0:
            raise PatternError("unbalanced parenthesis")
        parts[-1].append(token)
    if depth:
        raise PatternError("missing ), unterminated group")
    return parts

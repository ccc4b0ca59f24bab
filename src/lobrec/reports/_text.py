"""The one rule for text from outside (model names, case ids, replies, reasons, paths) on its way
to a reader: every character that is not printable is spelled out, so it is shown, never obeyed.

"Not printable" is Python's `str.isprintable`: control characters (ESC, BEL, C1 codes), format
characters (bidi overrides, zero-width joiners, the byte-order mark), line and paragraph
separators (U+2028, U+2029), spaces other than the plain space (U+00A0), lone surrogates, private
use and unassigned code points. Each is written as Python writes it in a string literal (`\\x1b`,
`\\n`, `\\u2028`, `\\U000e0001`), so a reader can tell them apart and copy them back.

The terminal, the Markdown and HTML reports, progress lines and the CLI's messages all use this
function, so a name reads the same everywhere. It has no dependencies: `lobrec --help` stays fast.
"""

from __future__ import annotations

import re

KEPT_WITH_NEWLINES = "\n\t"
"""What `keep_newlines` leaves as it is: line breaks and tabs (white space that moves, never
restyles, the cursor) in blocks shown whole."""


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every character that is not printable spelled out (`\\x1b`, `\\n`, `\\u202e`).

    An ANSI escape in a model's reply or a gateway's model name must appear as text, never change
    the colours of the reader's terminal; a bidi override or a line separator must not make a line
    read differently from what it holds. With `keep_newlines`, line breaks and tabs stay (for
    multi-line blocks). The result is printable, so cleaning twice changes nothing.
    """
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() or (keep_newlines and char in KEPT_WITH_NEWLINES) else repr(char)[1:-1]
        for char in text
    )


_MARKUP_BRACKET = re.compile(r"(\\*)\[(?=([a-z#/@][^\[]*?\])?)")
"""A `[` with the backslashes before it, and the tag it would open (`rich.markup`'s RE_TAGS reads
`[` then a letter, `#`, `/` or `@`, through the next `]`), if any."""


def markup_escaped(text: str, *, keep_newlines: bool = False) -> str:
    """Outside text (`printable`) to embed in a rich markup string, reading back as itself.

    rich reads `[` and a tag as markup, an odd run of backslashes before a tag as a literal
    bracket (half of them kept), and drops one backslash before any other `[`: so before a tag
    every backslash is doubled and one more escapes the bracket, before any other bracket one more
    backslash goes in. (`rich.markup.escape` misses the second case, `\\[` printed as `[`.)
    Backslashes at the very end are left as they are: the text must not be followed directly by a
    tag, which would read them as an escape.
    """

    def bracket(match: re.Match[str]) -> str:
        backslashes, tag = match.group(1), match.group(2)
        if tag is not None:
            return backslashes * 2 + "\\["
        return backslashes + "\\[" if backslashes else "["

    return _MARKUP_BRACKET.sub(bracket, printable(text, keep_newlines=keep_newlines))


ASCII_FALLBACK = "lobrec-ascii"
"""The codec error handler (`codecs.register_error`) that writes a symbol a terminal's encoding
lacks (`LC_ALL=C`, `PYTHONIOENCODING=ascii` or `latin-1`) in ASCII (`cli._output.fit_terminal`)."""

ASCII_SYMBOLS = {
    "↓": "v", "↑": "^", "▼": "v", "▲": "^", "↺": "r", "↻": "r", "✓": "+", "✗": "x",
    "—": "-", "–": "-", "−": "-", "‒": "-", "·": ".", "•": "*", "─": "-", "━": "-", "│": "|", "┃": "|",
    "├": "+", "└": "+", "┌": "+", "┐": "+", "┘": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
    "→": "->", "←": "<-", "…": "...", "±": "+/-", "≤": "<=", "≥": ">=", "≠": "!=", "Δ": "delta",
    "§": "S", "×": "x", "‘": "'", "’": "'", "“": '"', "”": '"', "\u00a0": " ",
}  # fmt: skip
"""Each symbol lobrec prints, in ASCII. A mark that sits in a table cell (`↓`, `▼`, `↺`, `✓`, `—`)
becomes one character, so the columns stay aligned; one in running text may take more (`→` is
`->`). Any other character the encoding lacks is spelled out as a string literal spells it
(`\\u2028`, as `printable` does), so a model name stays distinguishable."""


def ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    """The `lobrec-ascii` error handler: the characters the encoding lacks, as ASCII_SYMBOLS writes
    them, else spelled out (`\\u2192`); never an error, so a report never dies on a terminal."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    lacking = error.object[error.start : error.end]
    spelled = [ASCII_SYMBOLS.get(char) or ascii(char)[1:-1] for char in lacking]
    return "".join(spelled), error.end

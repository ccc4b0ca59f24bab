"""Markdown's building blocks, for every Markdown a report writes (the report, the suite changes,
the diff, the history, the job summary): outside text as literal inline text that pings nobody,
and GitHub tables.

Names from a results file are escaped for Markdown: a `|` would end a table cell, a newline would
end the row, and `*`, `_`, `<`, `[` and friends would format or link. Each is backslash-escaped
(CommonMark allows that for any ASCII punctuation) after `printable` has spelled out control
characters, so a name renders exactly as it was written. `$` is escaped too: GitHub reads
`$...$` as inline math, and costs are full of dollars. An `@name` or `#12` from outside would ping
that user or cross-reference that issue where the report is posted: `no_pings` stops both.
"""

from __future__ import annotations

import re

from lobrec.reports._text import printable

_SPECIAL = frozenset("\\`*_[]<>|~#!&$")


def md(text: str) -> str:
    """`text` as literal Markdown inline text, safe inside a table cell, that pings nobody."""
    return no_pings("".join("\\" + char if char in _SPECIAL else char for char in printable(text)))


_REFERENCE = re.compile(r"((?<!\w)@|(?<!&)#)(?=\w)")


def no_pings(text: str) -> str:
    """Escaped `text` with a zero-width space (`&#8203;`) after every `@` or `#` before a word (an
    `@` right after a letter or digit, as in `a@b.c` or `pass@3`, is no mention and stays):
    GitHub links `@name` (a mention, which notifies) and `#12` (a cross-reference) on the rendered
    text, after backslash escapes are gone, so only a character between them stops it (as Renovate
    does in the pull requests it writes). The page shows `@name` as it was. A `#` right after `&`
    begins an HTML character reference (`&#x27;`), never a reference to an issue."""
    return _REFERENCE.sub(lambda found: found.group(1) + "&#8203;", text)


def table(header: list[str], rows: list[list[str]], *, left: tuple[int, ...] = (0,)) -> str:
    """A GitHub table; cells must already be escaped. Columns not in `left` (numbers) align right."""
    align = [":---" if index in left else "---:" for index in range(len(header))]
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)

"""The one printer of every `lobrec` command: messages to stderr, output to stdout, outside data
spelled out so a terminal shows it instead of obeying it."""

from __future__ import annotations

import codecs
import sys
from typing import IO

import typer

from lobrec.cli._exits import Exit
from lobrec.reports._text import ASCII_FALLBACK, ascii_fallback, printable

codecs.register_error(ASCII_FALLBACK, ascii_fallback)


def _lacks_unicode(stream: IO[str]) -> bool:
    """The stream's encoding cannot write every character (ASCII, Latin-1: `LC_ALL=C`,
    `PYTHONIOENCODING=ascii`); an unknown encoding counts as lacking."""
    try:
        return not codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name.startswith("utf")
    except LookupError:
        return True


def fit_terminal() -> None:
    """Make stdout and stderr write a symbol their encoding lacks in ASCII (`↓` as `v`, `→` as
    `->`; `reports._text.ASCII_SYMBOLS`) instead of failing: a report on a C-locale terminal must
    not end in a traceback and exit 1, the code of a failed score. Called once, by `main`."""
    for stream in (sys.stdout, sys.stderr):
        if _lacks_unicode(stream) and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ASCII_FALLBACK)


def echo(text: str, *, err: bool = False) -> None:
    """`typer.echo` with the text fitted to the stream's encoding first: click writes UTF-8 where
    it judges an ASCII stream misconfigured, which a C-locale terminal shows as garbage."""
    stream = sys.stderr if err else sys.stdout
    if _lacks_unicode(stream):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            text = text.encode(encoding, ASCII_FALLBACK).decode(encoding)
        except LookupError:
            text = text.encode("ascii", ASCII_FALLBACK).decode("ascii")
    typer.echo(text, err=err)


def say(message: str, *, output: bool = False) -> None:
    """The one printer of lines that carry outside data (model names, case ids, paths, reasons).

    A message goes to stderr as one `lobrec: ...` line, its white space folded. With `output`,
    the text is the command's own output (a finding, a problem, a diff): it goes to stdout line
    by line, indentation kept. Either way every other control character is spelled out, so a
    model folder named with escape sequences shows them as text instead of running them.
    """
    if output:
        for line in message.split("\n"):
            echo(printable(line))
        return
    echo(f"lobrec: {printable(' '.join(message.split()))}", err=True)


def fail(message: str, code: Exit = Exit.BAD_INPUT) -> typer.Exit:
    """Print one line to stderr and return the Exit to raise."""
    say(message)
    return typer.Exit(code)


def shell_command(*words: str) -> str:
    """A command line a user can paste: every word shell-quoted (a model name cannot run code)."""
    import shlex

    return " ".join(shlex.quote(word) for word in words)


def os_error_line(exc: OSError) -> str:
    """A failed file operation (disk full, read-only folder, a file where a folder belongs) in one line."""
    where = exc.filename if exc.filename is not None else "a file"
    return f"{where}: {exc.strerror or exc}; nothing partial was left behind"

"""The `lobrec` command: parse, call, render, exit.

Heavy modules (httpx, vcrpy, rich) are imported inside the commands that need them, so that
`lobrec --help` and `lobrec --version` start fast.
"""

from __future__ import annotations

import enum

import typer

from lobrec import __version__

app = typer.Typer(
    name="lobrec",
    help="Record and replay tool-calling evaluations through the Lobstack gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Exit(enum.IntEnum):
    """Exit codes; documented in the README."""

    OK = 0
    BELOW_THRESHOLD = 1
    BAD_INPUT = 2
    GATEWAY = 3
    INCOMPLETE = 4


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lobrec {__version__}")
        raise typer.Exit(Exit.OK)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Record and replay tool-calling evaluations through the Lobstack gateway."""


def main() -> None:
    app()

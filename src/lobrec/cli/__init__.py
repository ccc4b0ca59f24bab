"""The `lobrec` command: parse, call, render, exit.

This module only builds the typer app and registers the commands; each command lives in its own
module and takes what it shares with the others from the helper modules (`_exits`, `_output`,
`_options`, `_reports`, ...), never from here or from each other, and a helper never imports a
command (tests/cli/test_cli_imports.py holds that), so importing any one of them is cycle-free.
The rules themselves live in the library: the CLI parses, calls, renders, exits.
"""

from __future__ import annotations

import typer

from lobrec._version import __version__
from lobrec.cli._command import Command
from lobrec.cli._exits import Exit
from lobrec.cli._output import echo, fail, fit_terminal
from lobrec.cli.audit import audit_command
from lobrec.cli.config import config_command
from lobrec.cli.diff import diff_command
from lobrec.cli.fake import FakeGatewayCommand, fake_gateway_command
from lobrec.cli.history import history_command
from lobrec.cli.record import record_command
from lobrec.cli.rescore import rescore_command
from lobrec.cli.suite import suite_app

__all__ = ["Exit", "app", "main"]

app = typer.Typer(
    name="lobrec",
    help="Record and replay tool-calling evaluations through the Lobstack gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # Inherited by every subcommand's context (click passes help_option_names down).
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    """lobrec's version and the bundled suite's: a score is comparable only on the same suite."""
    if value:
        from lobrec.errors import LobrecError
        from lobrec.suite_file import default_suite_path, suite_label

        try:
            name, version = suite_label()
        except LobrecError as exc:
            echo(f"lobrec {__version__}")
            raise fail(str(exc)) from None
        where = default_suite_path()
        echo(f"lobrec {__version__}, suite {name} {version} (bundled: {where})")
        raise typer.Exit(Exit.OK)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print lobrec's version and the suite's."
    ),
) -> None:
    """Record and replay tool-calling evaluations through the Lobstack gateway."""


app.command("record", cls=Command)(record_command)
app.command("rescore", cls=Command)(rescore_command)
app.add_typer(suite_app, name="suite", help="Check the suite file, show its cases, or diff two versions.")
app.command("diff", cls=Command)(diff_command)
app.command("history", cls=Command)(history_command)
app.command("audit", cls=Command)(audit_command)
app.command("config", cls=Command)(config_command)
app.command("fake-gateway", cls=FakeGatewayCommand)(fake_gateway_command)


def main() -> None:
    """The `lobrec` console script (pyproject.toml names `lobrec.cli:main`); any terminal encoding."""
    fit_terminal()
    app(prog_name="lobrec")

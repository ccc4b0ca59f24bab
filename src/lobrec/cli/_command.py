"""How every `lobrec` command runs: its help laid out (arguments by metavar, whole first
paragraphs), and the one place an error becomes a line and an exit code (`Command.invoke`)."""

from __future__ import annotations

import errno
import inspect
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from typer.core import TyperArgument, TyperCommand

from lobrec.cli._output import os_error_line, say
from lobrec.errors import LobrecError
from lobrec.exits import Exit

if TYPE_CHECKING:
    from typer import _click as click

E = TypeVar("E", bound=BaseException)


class Command(TyperCommand):
    """A command whose help names its arguments by metavar (`DIR`, `[FILE]`, never typer's `{dir}`
    or `dir <path>`) and whose line in `lobrec --help` is its whole first paragraph, never cut.

    Commands only raise: `invoke` is the one handler that turns what they raise into one line on
    stderr and an exit code. A `LobrecError` exits with its type's code (`exit_code`); each error
    of an `ExceptionGroup` of them (the reports that could not be written, say) is one line, the
    first one's code the exit. An `OSError` (a disk full while writing: every write of lobrec is
    atomic) is bad input; a broken pipe is left to click, which ends quietly.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except* (LobrecError, OSError) as group:
            errors = _leaves(group)
            for error in errors:
                if isinstance(error, OSError) and error.errno == errno.EPIPE:
                    raise error from None  # click ends a command whose reader went away quietly
            for error in errors:
                say(os_error_line(error) if isinstance(error, OSError) else str(error))
            first = errors[0]
            raise typer.Exit(first.exit_code if isinstance(first, LobrecError) else Exit.BAD_INPUT) from None

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                pieces.append(_argument_name(param) if param.required else f"[{_argument_name(param)}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((_argument_name(param), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def get_short_help_str(self, limit: int = 45) -> str:
        if self.short_help:
            return super().get_short_help_str(limit)
        return " ".join(inspect.cleandoc(self.help or "").partition("\n\n")[0].split())


def _leaves(group: BaseExceptionGroup[E]) -> list[E]:
    """The errors of a group, nested groups flattened, in order."""
    return [
        leaf
        for error in group.exceptions
        for leaf in (_leaves(error) if isinstance(error, BaseExceptionGroup) else [error])
    ]


def _argument_name(param: TyperArgument) -> str:
    return param.metavar or (param.name or "").upper()

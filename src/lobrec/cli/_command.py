"""How every `lobrec` command's help is laid out: arguments by metavar, whole first paragraphs."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from typer.core import TyperArgument, TyperCommand

if TYPE_CHECKING:
    from typer import _click as click


class Command(TyperCommand):
    """A command whose help names its arguments by metavar (`DIR`, `[FILE]`, never typer's `{dir}`
    or `dir <path>`) and whose line in `lobrec --help` is its whole first paragraph, never cut."""

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


def _argument_name(param: TyperArgument) -> str:
    return param.metavar or (param.name or "").upper()

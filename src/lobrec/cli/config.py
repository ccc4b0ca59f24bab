"""`lobrec config`: every setting in force here and where it came from (docs/config.md)."""

from __future__ import annotations

import os
from typing import Any

import typer

from lobrec.cli._reports import report_console, write_report
from lobrec.cli._settings import in_force
from lobrec.reports._text import printable


def config_command(
    as_json: bool = typer.Option(False, "--json", help="Print the settings as JSON instead of a table."),
) -> None:
    """Show the settings in force here and where each came from.

    Each setting comes from the command line, else the environment (LOBSTACK_BASE_URL), else the
    configuration file ([tool.lobrec] in the nearest pyproject.toml, or lobrec.toml), else the
    built-in default. The API key is never read from a file.
    """
    import msgspec

    conf = in_force()
    rows = [
        {
            "key": name.replace("_", "-"),
            "option": option_name(name),
            "value": masked(name, setting.value),
            "source": setting.source,
            "where": setting.where,
        }
        for name, setting in conf.settings.items()
    ]
    if as_json:
        document = {"file": conf.file, "settings": rows}
        # UTF-8 bytes as every JSON report to stdout is written, whatever the terminal's encoding
        write_report("-", msgspec.json.format(msgspec.json.encode(document), indent=2).decode() + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    title = f"lobrec settings (file: {conf.file})" if conf.file else "lobrec settings (no configuration file)"
    table = Table(title=Text(printable(title)), title_justify="left")
    for heading in ("Setting", "Option", "Value"):
        table.add_column(heading, overflow="fold")
    table.add_column("Source", no_wrap=True)  # the column a reader scans: never broken
    for row in rows:
        where = row["where"]
        if row["source"] == "file":
            where = os.path.relpath(where)  # short in the table; the title and --json give it whole
        source = row["source"] if where is None else f"{row['source']} ({where})"
        value = shown(row["key"], row["value"])
        table.add_row(row["key"], row["option"], Text(printable(value)), Text(printable(source)))
    report_console().print(table)


def masked(name: str, value: Any) -> Any:
    """The base URL with any user, password or query masked (`lobrec.running.gateway.mask_url`), as every
    message shows it: `lobrec config` is run in CI logs, and `record` refuses such a URL anyway."""
    from lobrec.running.gateway import mask_url

    return mask_url(value) if name == "base_url" and isinstance(value, str) else value


def option_name(name: str) -> str:
    """The command-line option that overrides a setting (`models` → `--model`)."""
    return "--model" if name == "models" else "--" + name.replace("_", "-")


UNSET = {
    "models": "(none: record asks for one)",
    "suite": "(the bundled suite)",
    "fail_under": "(none: no score gate)",
}
"""What no value in force means, by setting; a report's is `NO_REPORT`."""
NO_REPORT = "(none: not written)"


def shown(key: str, value: Any) -> str:
    """A value as the table shows it: a list comma-separated, no value as what it means (never `-`,
    which in a report setting means stdout, shown as such)."""
    if value is None or value == []:
        return UNSET.get(key.replace("-", "_"), NO_REPORT)
    if value == "-":
        return "- (stdout)"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)

"""`with_outputs`: the report and gate options `record` and `rescore` share are declared once and
reach the command as one `Outputs`, in the place and order the command's signature gives them."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from lobrec.cli._command import Command
from lobrec.cli._options import OUTPUTS, Outputs, with_outputs

seen: list[tuple[str, Outputs, bool]] = []


@with_outputs
def command(name: str = typer.Option("x", "--name"), outputs: Outputs = OUTPUTS, last: bool = False) -> None:
    seen.append((name, outputs, last))


app = typer.Typer(add_completion=False, rich_markup_mode=None)
app.command(cls=Command)(command)
app.command("other", cls=Command)(lambda: None)


def test_the_options_reach_the_command_as_one_outputs() -> None:
    seen.clear()
    args = [
        "command",
        "--name",
        "n",
        "--html",
        "r.html",
        "--summary",
        "-",
        "--by-group",
        "--fail-under",
        "90",
    ]

    result = CliRunner().invoke(app, [*args, "--max-errored", "5%", "--last"])

    assert result.exit_code == 0, result.output
    targets = dict.fromkeys(("json", "markdown", "html", "csv", "jsonl", "junit", "summary"))
    targets.update(html="r.html", summary="-")
    expected = Outputs(targets=targets, by_group=True, fail_under=90.0, max_errored="5%")
    assert seen == [("n", expected, True)]


def test_the_help_lists_them_in_the_outputs_place() -> None:
    result = CliRunner().invoke(app, ["command", "--help"])

    options = [line.split()[0] for line in result.output.splitlines() if line.startswith("  --")]
    assert options == [
        "--name",
        "--json",
        "--markdown",
        "--html",
        "--csv",
        "--jsonl",
        "--junit",
        "--summary",
        "--by-group",
        "--fail-under",
        "--max-errored",
        "--last",
        "--help",
    ]

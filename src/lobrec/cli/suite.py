"""`lobrec suite`: check the suite file against the build rules, and show its cases.

`check` is what `make check` and CI run on the published suite; its problem lines go to stdout
(they are the command's output), one per line, and the exit status is 2 when there is any. `show`
prints a table of cases or one case in full, for people writing or reviewing cases. `diff` lists
every change between two suite files with the version bump it needs, and `check --against OLD`
refuses a version that is not that bump (exit 1, one line on stderr).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from lobrec.cli._command import Command
from lobrec.cli._exits import Exit
from lobrec.cli._output import fail, say
from lobrec.reports._text import markup_escaped

if TYPE_CHECKING:
    from rich.console import Console

    from lobrec.core.suite.format import Case, ExpectedCall, Step, Suite

suite_app = typer.Typer(
    name="suite",
    help="Check the suite file, show its cases, or diff two versions.",
    no_args_is_help=True,
    add_completion=False,
)

REQUEST_WIDTH = 60


def _load(path: Path | None) -> Suite:
    from lobrec.suite_file import read_suite

    return read_suite(path)


@suite_app.command("check", cls=Command)
def check(
    path: Path | None = typer.Argument(
        None, metavar="FILE", help="The suite file (default: the suite bundled with lobrec)."
    ),
    against: Path | None = typer.Option(
        None,
        "--against",
        metavar="OLD",
        help="An older suite file: also require the version bump its changes need.",
    ),
) -> None:
    """Check a suite file against every build rule.

    Lists the problems and exits 2 if there is any. With --against OLD, first exits 1 with one line
    when the version is not the bump the changes need.
    """
    from lobrec.core.suite.build_rules import check_suite, summary
    from lobrec.core.suite.versioning import bump_problem, diff_suites

    suite = _load(path)
    if against is not None:  # first: which rules apply (wrong answers from 1.1.0) hangs on the version
        problem = bump_problem(diff_suites(_load(against), suite))
        if problem is not None:
            raise fail(problem, Exit.BELOW_THRESHOLD)
    problems = check_suite(suite)
    for line in problems:
        say(line, output=True)
    if problems:
        raise typer.Exit(Exit.BAD_INPUT)
    say(summary(suite), output=True)


@suite_app.command("diff", cls=Command)
def diff(
    old: Path = typer.Argument(..., metavar="OLD", help="The older suite file."),
    new: Path = typer.Argument(..., metavar="NEW", help="The newer suite file."),
) -> None:
    """List every change between two suite files.

    Each change from OLD to NEW is classified, and the version bump the changes need is named.
    """
    from lobrec.core.suite.versioning import bump_problem, diff_suites

    result = diff_suites(_load(old), _load(new))
    say(format_diff(result), output=True)
    problem = bump_problem(result)
    if problem is not None:
        say(f"bump: {problem}", output=True)


KIND_TITLES = {
    "suite": "suite-level changes",
    "added": "cases added (minor)",
    "removed": "cases removed (major)",
    "request": "request changed: cassettes stale, record again (minor)",
    "checks": "checks changed: a rescore is enough (minor)",
    "notes": "notes, answers, wrong answers, alternates: no effect on scores (patch)",
}


def format_diff(result: Any) -> str:
    """The diff as plain text: a header, then each kind of change with one line per change."""
    from lobrec.core.words import counted

    lines = [
        f"suite {result.old_version} -> {result.new_version}: {counted(len(result.changes), 'change')}; "
        f"required bump: {result.required}, actual: {result.actual}"
    ]
    for kind, title in KIND_TITLES.items():
        changes = [change for change in result.changes if change.kind == kind]
        if not changes:
            continue
        lines.append("")
        lines.append(
            f"{title}: {counted(len({change.case for change in changes}), 'case')}"
            if kind != "suite"
            else title
        )
        lines.extend(f"  {change.case}: {change.what}" for change in changes)
    return "\n".join(lines)


@suite_app.command("show", cls=Command)
def show(
    case_id: str | None = typer.Argument(None, metavar="ID", help="Show this case in full."),
    group: str | None = typer.Option(
        None, "--group", "-g", metavar="GROUP", help="Only list the cases of this group."
    ),
    path: Path | None = typer.Option(
        None, "--suite", metavar="FILE", help="The suite file (default: the suite bundled with lobrec)."
    ),
) -> None:
    """List the suite's cases, or show one case in full.

    The list gives each case's id, group, request, and the tools it expects step by step.
    """
    from rich.console import Console

    from lobrec.core.suite.format import GROUPS

    suite = _load(path)
    console = Console(soft_wrap=False, highlight=False)
    if case_id is not None:
        case = suite.case(case_id)
        if case is None:
            raise fail(f"no case {case_id!r} in suite {suite.name} {suite.version}")
        _show_case(console, suite, case)
        return
    if group is not None and group not in GROUPS:
        raise fail(f"unknown group {group!r}; the groups are {', '.join(GROUPS)}")
    _show_table(console, suite, group)


def request_of(case: Case) -> str:
    """The user's request: the last user message of the case's opening conversation."""
    for message in reversed(case.messages):
        if message.role == "user" and message.content:
            return message.content
    return ""


def shorten(text: str, width: int = REQUEST_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def expected_tools(step: Step) -> str:
    from lobrec.core.suite.format import NoCallStep

    if isinstance(step, NoCallStep):
        return "(no call)"
    return " + ".join(call.name for call in step.calls)


def shown(text: str, *, keep_newlines: bool = False) -> str:
    """Text from the suite file for a rich console: control characters spelled out by the CLI's one
    neutraliser (`printable`, as `say` does), then rich markup escaped (`markup_escaped`)."""
    return markup_escaped(text, keep_newlines=keep_newlines)


def _show_table(console: Console, suite: Suite, group: str | None) -> None:
    from rich.table import Table

    from lobrec.core.words import counted

    cases = [case for case in suite.cases if group is None or case.group == group]
    title = f"{suite.name} {suite.version}: {counted(len(cases), 'case')}" + (f" in {group}" if group else "")
    table = Table(title=shown(title), show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("group", no_wrap=True)
    table.add_column("request")
    table.add_column("expected calls, step by step")
    for case in cases:
        steps = "\n".join(
            f"{index + 1}. {shown(expected_tools(step))}" for index, step in enumerate(case.steps)
        )
        table.add_row(shown(case.id), shown(case.group), shown(shorten(request_of(case))), steps)
    console.print(table)


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2)


def _show_case(console: Console, suite: Suite, case: Case) -> None:
    from lobrec.core.suite.format import CallStep

    console.print(
        f"[bold]{shown(case.id)}[/bold] ({shown(case.group)}) in {shown(suite.name)} {suite.version}"
    )
    if case.note:
        console.print(shown(case.note, keep_newlines=True))
    console.print()
    console.print("[bold]Messages[/bold]")
    for message in case.messages:
        if message.role == "system" and message.content == suite.system_prompt:
            console.print("  system: (the suite's system prompt)")
        else:
            console.print(f"  {message.role}: {shown(message.content or '', keep_newlines=True)}")
    console.print()
    console.print(f"[bold]Tools offered[/bold] ({len(case.tools)})")
    console.print("  " + shown(", ".join(case.tools)))
    for index, step in enumerate(case.steps):
        console.print()
        if not isinstance(step, CallStep):
            console.print(f"[bold]Step {index + 1}[/bold]: expects no call")
            console.print(f"  reference reply: {shown(step.answer, keep_newlines=True)}")
            continue
        noun = "call" if len(step.calls) == 1 else f"{len(step.calls)} calls in one response"
        console.print(f"[bold]Step {index + 1}[/bold]: expects {noun}")
        for call in step.calls:
            _show_call(console, call)


def _show_call(console: Console, call: ExpectedCall) -> None:
    import json

    from lobrec.core.suite.checks import describe

    console.print(f"  [bold]{shown(call.name)}[/bold]")
    for check in call.checks:
        console.print(f"    check {shown(check.arg)} {shown(describe(check))}")
    if not call.checks:
        console.print("    (no argument checks: the name is what counts)")
    console.print(f"    answer: {shown(json.dumps(call.answer, ensure_ascii=False))}")
    if call.result is not None:
        console.print(f"    result: {shown(call.result, keep_newlines=True)}")

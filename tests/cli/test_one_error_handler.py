"""Commands only raise: one handler in the command layer turns an error into its line and exit.

Each error type carries its exit code (`lobrec.errors`, `exit_code`); `Command.invoke`
(`lobrec.cli._command`) prints the message as one line and exits with it. The count is read from
the source with `ast`: a handler of a `LobrecError` (or a subclass) or an `OSError` (or a
subclass) that raises, prints or exits turns an error into an exit; at most two may (the handler,
and `lobrec --version`'s eager callback, which runs before any command). A handler that only
collects the error (the reports that could not be written) or skips an item is no exit.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path

import typer
from typer import _click as click
from typer.testing import CliRunner

import lobrec.cli
import lobrec.errors
from lobrec.cli import Exit, app
from lobrec.cli._command import Command
from lobrec.errors import LobrecError, RecordInProgress

FOLDER = Path(lobrec.cli.__file__).parent
ERRORS = {
    name
    for name, value in [*vars(lobrec.errors).items(), *vars(builtins).items()]
    if isinstance(value, type) and (issubclass(value, LobrecError) or issubclass(value, OSError))
}
EXITING_CALLS = {"fail", "failed", "say", "echo", "exit", "Exit"}


def _names(node: ast.expr | None) -> set[str]:
    """The names an `except` clause catches (`except (A, b.B)` -> {A, B})."""
    if node is None:
        return set()
    if isinstance(node, ast.Tuple):
        return {name for element in node.elts for name in _names(element)}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return {node.id} if isinstance(node, ast.Name) else set()


def _exits(handler: ast.ExceptHandler) -> bool:
    """The handler raises, prints or exits (not only collects the error or skips an item)."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in EXITING_CALLS:
                return True
    return False


def error_sites(source: str) -> list[tuple[str, bool]]:
    """Each handler of a lobrec error or an OSError: the function it is in, and whether it exits."""
    sites = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ExceptHandler) and _names(node.type) & ERRORS:
                sites.append((function.name, _exits(node)))
    return sites


def cli_sites() -> dict[str, list[tuple[str, bool]]]:
    return {
        path.name: sites
        for path in sorted(FOLDER.glob("*.py"))
        if (sites := error_sites(path.read_text(encoding="utf-8")))
    }


def test_at_most_two_places_in_the_cli_turn_an_error_into_an_exit() -> None:
    exits = [(name, function) for name, sites in cli_sites().items() for function, ex in sites if ex]
    assert len(exits) <= 2, exits
    assert ("_command.py", "invoke") in exits


def test_the_count_sees_every_hand_written_handler() -> None:
    """What every command wrote before the handler: each is counted, the collecting one is not."""
    source = """
def record():
    try:
        run()
    except LobrecError as exc:
        raise failed(exc) from None
    except OSError as exc:
        raise fail(os_error_line(exc)) from None
def fake():
    try:
        bind()
    except (errors.ConfigError, PermissionError):
        say("cannot listen")
def reports():
    for target in targets:
        try:
            write(target)
        except LobrecError as exc:
            failed.append(exc)
    try:
        parse()
    except ValueError:
        raise fail("not counted: not a lobrec error")
"""
    assert error_sites(source) == [("record", True), ("record", True), ("fake", True), ("reports", False)]


def test_every_error_type_carries_its_exit_code() -> None:
    types = [value for value in vars(lobrec.errors).values() if inspect.isclass(value)]
    errors = [kind for kind in types if issubclass(kind, LobrecError)]
    assert len(errors) >= 10
    assert {kind.__name__: kind.exit_code for kind in errors if kind.exit_code != Exit.BAD_INPUT} == {
        "RecordInProgress": Exit.INCOMPLETE
    }
    assert all(isinstance(kind.exit_code, Exit) for kind in errors)


def test_exit_is_still_importable_from_the_cli() -> None:
    from lobrec.exits import Exit as LeafExit

    assert Exit is LeafExit


def _one_command(error: BaseException) -> typer.Typer:
    """An app whose one command raises `error`, built with the command layer's own class."""
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @one.command(cls=Command)
    def run() -> None:
        raise error

    return one


def test_the_handler_prints_one_line_and_exits_with_the_error_types_code() -> None:
    runner = CliRunner()
    locked = runner.invoke(_one_command(RecordInProgress("cassettes/m: a record is writing\n it")))
    assert (locked.exit_code, locked.stderr, locked.stdout) == (
        4,
        "lobrec: cassettes/m: a record is writing it\n",
        "",
    )
    full = runner.invoke(_one_command(OSError(28, "No space left on device", "out/x.json")))
    assert (full.exit_code, full.stderr) == (
        2,
        "lobrec: out/x.json: No space left on device; nothing partial was left behind\n",
    )
    both = runner.invoke(_one_command(ExceptionGroup("reports", [LobrecError("a"), LobrecError("b")])))
    assert (both.exit_code, both.stderr) == (2, "lobrec: a\nlobrec: b\n")


def test_a_command_of_lobrec_exits_through_the_handler(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-results.json"
    done = CliRunner().invoke(app, ["history", str(missing), str(missing)])
    assert done.exit_code == 2
    assert done.stderr.startswith(f"lobrec: {missing}: ") and done.stderr.count("\n") == 1


def _leaves(command: click.Command) -> list[click.Command]:
    """The commands under a group (`lobrec suite` holds three), or the command itself."""
    subcommands = getattr(command, "commands", None)
    if subcommands is not None:
        return [leaf for sub in subcommands.values() for leaf in _leaves(sub)]
    return [command]


def test_every_command_runs_through_the_handler() -> None:
    commands = _leaves(typer.main.get_command(app))
    assert len(commands) >= 10
    assert [command.name for command in commands if not isinstance(command, Command)] == []

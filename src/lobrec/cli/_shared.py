"""What every `lobrec` command shares: exit codes, the one printer, errors, reports, options.

Command modules (`record`, `rescore`, `audit`, `diff`, `suite`, `fake`) import from here and
from nowhere else in `lobrec.cli`, so the package has no import cycle. Heavy modules (httpx,
vcrpy, rich, asyncio) are imported inside the functions that need them, so that `lobrec --help`
and `lobrec --version` start fast. Reports go to stdout, progress and errors to stderr, so
`lobrec rescore cassettes/ --markdown - > report.md` works.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperArgument, TyperCommand

if TYPE_CHECKING:
    from typer import _click as click

    from lobrec.core.results import RunResult

T = TypeVar("T")


class Exit(enum.IntEnum):
    """Exit codes (documented in the README)."""

    OK = 0
    BELOW_THRESHOLD = 1
    BAD_INPUT = 2
    GATEWAY = 3
    INCOMPLETE = 4
    ERRORED = 5
    INTERRUPTED = 130


GATE_ORDER = (Exit.GATEWAY, Exit.ERRORED, Exit.INCOMPLETE, Exit.BELOW_THRESHOLD)
"""When several gates fail, the first of these wins: the less of a model was judged, the more its
code says (no score at all, then cases that errored, then cases out of date, then a low score)."""


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


def plain(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every character a terminal could obey (ESC, BEL, C1 codes, bidi overrides,
    line breaks) spelled out as `\\x1b`, so outside data is shown, never run. With
    `keep_newlines`, `\\n` stays a line break (a multi-line message shown in full)."""
    return "".join(
        ch if ch.isprintable() or (keep_newlines and ch == "\n") else repr(ch)[1:-1] for ch in text
    )


def say(message: str, *, output: bool = False) -> None:
    """The one printer of lines that carry outside data (model names, case ids, paths, reasons).

    A message goes to stderr as one `lobrec: ...` line, its white space folded. With `output`,
    the text is the command's own output (a finding, a problem, a diff): it goes to stdout line
    by line, indentation kept. Either way every other control character is spelled out, so a
    model folder named with escape sequences shows them as text instead of running them.
    """
    if output:
        for line in message.split("\n"):
            typer.echo(plain(line))
        return
    typer.echo(f"lobrec: {plain(' '.join(message.split()))}", err=True)


def fail(message: str, code: Exit = Exit.BAD_INPUT) -> typer.Exit:
    """Print one line to stderr and return the Exit to raise."""
    say(message)
    return typer.Exit(code)


def shell_command(*words: str) -> str:
    """A command line a user can paste: every word shell-quoted (a model name cannot run code)."""
    import shlex

    return " ".join(shlex.quote(word) for word in words)


def parse_delays(text: str) -> tuple[float, ...]:
    """`--retry-delays`: finite, non-negative seconds separated by commas (`lobrec.settings`)."""
    from lobrec.settings import parse_delays as parse

    try:
        return parse(text)
    except ValueError as exc:
        raise fail(f"--retry-delays {exc}") from None


def in_force(**given: Any) -> Any:
    """The settings in force (`lobrec.settings.Resolved`): the options `given` on the command line
    (None or [] for not given) over LOBSTACK_BASE_URL over the configuration file over the
    built-in defaults; a bad file is a one-line error naming it and its key."""
    from lobrec.errors import LobrecError
    from lobrec.settings import resolve

    try:
        return resolve(given)
    except LobrecError as exc:
        raise fail(str(exc)) from None


class Interrupted(Exception):
    """SIGINT/SIGTERM cancelled a run outside the part that keeps what finished (`run_jobs`)."""


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine; SIGINT/SIGTERM cancel it so it can keep what finished and stop cleanly.

    A signal that lands before or after the cases run (opening the client, replaying the rest,
    writing reports) raises `Interrupted` instead of a CancelledError traceback.
    """
    import asyncio  # here, not at the top: asyncio is a third of `lobrec --help`'s start-up

    signalled = False

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop() -> None:
            nonlocal signalled
            signalled = True
            task.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop)
        try:
            return await coro
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if signalled:
            raise Interrupted from None
        raise


def with_suite_source(run: Any, path: Path | None) -> Any:
    """The results with the judging suite's origin ("bundled", or the --suite path as given), which
    only the command line knows; every report prints it from there."""
    import msgspec

    from lobrec.suite_file import suite_source

    return msgspec.structs.replace(run, suite=msgspec.structs.replace(run.suite, source=suite_source(path)))


def load_runnable_suite(path: Path | None) -> Any:
    """Load the suite for `record` or `rescore`, refusing one with a case no model could pass.

    Decoding already names the file and JSON path of a syntax error, a wrong type or an unknown
    field, and refuses a file nested too deeply. Some mistakes decode fine but would make the run
    fail or silently fail every model: a case id that cannot name its cassette file, a tool schema
    the validator refuses (an unsupported keyword, nested deeper than 64 levels), a check on an
    argument the tool does not take, an expected call to a tool the case does not offer, and a check
    pattern with no linear-time translation (`lobrec suite check` reports these with every other
    build rule). The first one found stops
    the run.
    """
    from lobrec.core.checks import compile_pattern
    from lobrec.core.ecma import PatternError
    from lobrec.core.jsonschema import check_schema
    from lobrec.core.suite import CallStep, Regex, case_id_problem, shown_id
    from lobrec.errors import SchemaError, SuiteError
    from lobrec.suite_file import default_suite_path, load_suite

    source = path if path is not None else default_suite_path()
    suite = load_suite(source)
    for t, tool in enumerate(suite.tools):
        try:
            check_schema(tool.function.parameters)
        except SchemaError as exc:
            raise SuiteError(f"{source}: $.tools[{t}].function.parameters: {exc}") from None
    for c, case in enumerate(suite.cases):
        problem = case_id_problem(case.id)
        if problem is not None:
            message = f"$.cases[{c}].id: {shown_id(case.id)} cannot name a cassette file: {problem}"
            raise SuiteError(f"{source}: {message}")
        offered = {tool.function.name: tool for tool in suite.offered_tools(case)}
        for s, step in enumerate(case.steps):
            for k, call in enumerate(step.calls if isinstance(step, CallStep) else []):
                where = f"$.cases[{c}].steps[{s}].calls[{k}]"
                tool = offered.get(call.name)
                if tool is None:
                    problem = f"{where}.name: {call.name!r} is not a tool case {case.id} offers"
                    raise SuiteError(f"{source}: {problem}")
                properties = tool.function.parameters.get("properties", {})
                for m, check in enumerate(call.checks):
                    if check.arg not in properties:
                        problem = f"{where}.checks[{m}].arg: {check.arg!r} is not a parameter of {call.name}"
                        raise SuiteError(f"{source}: {problem}")
                    if isinstance(check, Regex):
                        try:
                            compile_pattern(check.pattern)
                        except PatternError as exc:
                            problem = f"pattern {check.pattern!r} cannot be used: {exc}"
                            raise SuiteError(
                                f"{source}: case {case.id}: {where}.checks[{m}]: {problem}"
                            ) from None
    return suite


def only_groups(suite: Any, groups: Sequence[str]) -> Any:
    """The suite cut down to the cases of `groups` (`--group`), or the suite itself for none.

    A run of part of the suite reports on that part only: its rates are the groups' rates, and the
    results file says which cases it covers by the cases it lists.
    """
    import msgspec

    from lobrec.errors import ConfigError

    if not groups:
        return suite
    known = list(dict.fromkeys(case.group for case in suite.cases))
    unknown = [group for group in groups if group not in known]
    if unknown:
        raise ConfigError(
            f"no such group in suite {suite.version}: {', '.join(unknown)} (groups: {', '.join(known)})"
        )
    return msgspec.structs.replace(suite, cases=[case for case in suite.cases if case.group in groups])


GroupOption = Annotated[
    list[str],
    typer.Option("--group", metavar="GROUP", help="Only the cases of this group (e.g. chains); repeatable."),
]


PIPED_WIDTH = 1000
"""Columns for reports when output is not a terminal (a CI log, a pipe) and COLUMNS does not say:
a log has no width of its own, so the tables are laid out whole (rich's default 80, or any fixed
width, would put columns of the leaderboard into a second table)."""


def report_console(*, stderr: bool = False) -> Any:
    """A rich Console for reports: the terminal's width; when piped, COLUMNS if set (the width CI
    gives), else PIPED_WIDTH."""
    from rich.console import Console

    console = Console(stderr=stderr)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
        console.width = PIPED_WIDTH
    return console


REPORT_FILE_NAMES = {
    "--json": "results.json",
    "--markdown": "report.md",
    "--html": "report.html",
    "--csv": "steps.csv",
    "--jsonl": "steps.jsonl",
    "--junit": "junit.xml",
    "--summary": "summary.md",
}
"""The file name a folder given to each report option is told to add (`--html out` → out/report.html)."""


def _real_folder(path: Path) -> bool:
    """A folder given as a report file; a link to one is refused as a link (`lobrec.files.check_output`)."""
    return path.is_dir() and not path.is_symlink()


def _folder_problem(option: str | None, target: str, example: str | None = None) -> str:
    """`--html out: is a folder; give the report a file name (e.g. out/report.html)`: the name
    suggested matches the option."""
    name = example or REPORT_FILE_NAMES.get(option or "", "results.json")
    where = f"{option} {target}" if option else target
    return f"{where}: is a folder; give the report a file name (e.g. {Path(target) / name})"


def check_report_targets(**targets: str | None) -> None:
    """Refuse, before a record spends anything, a report option given an existing folder
    (`html_out="out"`); after a run, `emit_reports` still writes the other reports."""
    for name, target in targets.items():
        option = "--" + name.removesuffix("_out")
        if target and target != "-" and _real_folder(Path(target)):
            raise fail(_folder_problem(option, target))


def one_stdout(**outputs: str | None) -> None:
    """Refuse, before anything runs, two reports given `-`: both would write to stdout, interleaved.
    `outputs` maps each option (`csv` for `--csv`) to its target."""
    to_stdout = [f"--{name}" for name, target in outputs.items() if target == "-"]
    if len(to_stdout) > 1:
        raise fail(f"{' and '.join(to_stdout)} all write to stdout (-); give all but one of them a file name")


def append_report(target: str, text: str) -> None:
    """Add a report to the end of a file, or write it to stdout for `-`: a CI job summary
    (`$GITHUB_STEP_SUMMARY`) holds what earlier steps wrote (`lobrec.files.append_output`)."""
    from lobrec.errors import LobrecError
    from lobrec.files import append_output

    if target == "-":
        write_report(target, text)
        return
    if _real_folder(Path(target)):
        raise fail(_folder_problem("--summary", target))
    try:  # a lone surrogate is spelled out, as `write_report` spells it
        append_output(Path(target), text.encode("utf-8", "backslashreplace"), LobrecError)
    except LobrecError as exc:
        raise fail(str(exc)) from None


def write_report(target: str, text: str, option: str | None = None, example: str | None = None) -> None:
    """Write a report to a file, or to stdout for `-`; never through a symlink, never to a FIFO or
    device (`lobrec.files.check_output`). `option` and `example` name the option and the file name
    to suggest when `target` is a folder."""
    # A lone surrogate (valid JSON can spell one) has no UTF-8 form: it is written spelled out
    # (`\\ud800`), as the Markdown report shows it, instead of failing the whole report.
    data = text.encode("utf-8", "backslashreplace")
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    from lobrec.errors import LobrecError
    from lobrec.files import check_output, write_atomic

    path = Path(target)
    if _real_folder(path):
        raise fail(_folder_problem(option, target, example))
    try:
        check_output(path, LobrecError)
        write_atomic(path, data)  # a kill mid-write leaves no half report
    except LobrecError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{target}: cannot write the report: {exc.strerror or exc}") from None


def os_error_line(exc: OSError) -> str:
    """A failed file operation (disk full, read-only folder, a file where a folder belongs) in one line."""
    where = exc.filename if exc.filename is not None else "a file"
    return f"{where}: {exc.strerror or exc}; nothing partial was left behind"


@contextlib.contextmanager
def interruptible_reports() -> Iterator[None]:
    """Once the event loop is gone, SIGTERM is fatal by default and SIGINT a traceback; while the
    reports are written both end the command as an interrupted run instead."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        message = "interrupted while writing the reports; every cassette is complete"
        raise fail(message, Exit.INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def emit_reports(
    run: RunResult,
    suite: Any,
    json_out: str | None,
    markdown_out: str | None,
    html_out: str | None,
    leaderboard: bool,
    partial: bool = False,
    *,
    csv_out: str | None = None,
    jsonl_out: str | None = None,
    junit_out: str | None = None,
    summary_out: str | None = None,
    by_group: bool = False,
) -> None:
    """Write each report and export asked for, then print the leaderboard (on stderr when a file
    goes to stdout, so `--csv - > steps.csv` holds only the CSV), with the per-group table after
    it for `by_group`."""
    from lobrec.core.results import encode_results

    def markdown() -> str:
        from lobrec.reports.markdown import render_markdown

        return render_markdown(run)

    def html() -> str:
        from lobrec.reports.html import render_html

        return render_html(run, suite)

    def csv() -> str:
        from lobrec.reports.export import to_csv

        return to_csv(run, suite)

    def jsonl() -> str:
        from lobrec.reports.export import to_jsonl

        return to_jsonl(run, suite)

    def junit() -> str:
        from lobrec.reports.junit import to_junit

        return to_junit(run, suite)

    def summary() -> str:
        from lobrec.reports.summary import to_summary

        return to_summary(run, suite)

    reports: list[tuple[str, str | None, Callable[[], str]]] = [
        ("--json", json_out, lambda: encode_results(run).decode("utf-8")),
        ("--markdown", markdown_out, markdown),
        ("--html", html_out, html),
        ("--csv", csv_out, csv),
        ("--jsonl", jsonl_out, jsonl),
        ("--junit", junit_out, junit),
        ("--summary", summary_out, summary),
    ]
    failed: typer.Exit | None = None
    for option, target, render in reports:
        if target:
            # One report that cannot be built or written is named, and the others are still
            # written: a hostile value must not cost the run every report after it.
            try:
                # the job summary is added to its file (`append_report`), every other one replaces it
                if render is summary:
                    append_report(target, render())
                else:
                    write_report(target, render(), option)
            except typer.Exit as exc:
                failed = exc
            except (ValueError, OverflowError, RecursionError) as exc:
                failed = fail(f"{target}: cannot build the report: {type(exc).__name__}: {exc}")
    if leaderboard:
        from lobrec.reports.terminal import render_leaderboard

        outs = (json_out, markdown_out, html_out, csv_out, jsonl_out, junit_out, summary_out)
        to_stdout = "-" not in outs
        console = report_console(stderr=not to_stdout)
        render_leaderboard(run, console, partial=partial, by_group=by_group)
    if failed is not None:
        raise failed


# Options shared by `record` and `rescore`, declared once.
AllowNewerSuite = Annotated[
    bool,
    typer.Option(
        "--allow-newer-suite",
        help="Judge cassettes recorded with a newer suite version than the judging one (refused otherwise).",
    ),
]
ByGroup = Annotated[
    bool,
    typer.Option("--by-group", help="Also print, in the terminal, each model's overall rate per group."),
]
SuitePath = Annotated[
    Path | None,
    typer.Option("--suite", metavar="FILE", help="Suite file (default: the suite bundled with lobrec)."),
]
JsonOut = Annotated[
    str | None, typer.Option("--json", metavar="FILE", help="Write the results JSON here (- for stdout).")
]
MarkdownOut = Annotated[
    str | None,
    typer.Option("--markdown", metavar="FILE", help="Write the Markdown report here (- for stdout)."),
]
HtmlOut = Annotated[str | None, typer.Option("--html", metavar="FILE", help="Write the HTML report here.")]
CsvOut = Annotated[
    str | None,
    typer.Option(
        "--csv", metavar="FILE", help="Write one CSV row per model, case and judged step here (- for stdout)."
    ),
]
JsonlOut = Annotated[
    str | None,
    typer.Option("--jsonl", metavar="FILE", help="Write the same rows as JSON Lines here (- for stdout)."),
]
JunitOut = Annotated[
    str | None,
    typer.Option(
        "--junit", metavar="FILE", help="Write JUnit XML here: a testsuite per model, a testcase per case."
    ),
]
SummaryOut = Annotated[
    str | None,
    typer.Option(
        "--summary",
        metavar="FILE",
        help="Add a short Markdown summary for a CI job page to the end of this file "
        "(e.g. $GITHUB_STEP_SUMMARY; - for stdout).",
    ),
]
FailUnder = Annotated[
    float | None,
    typer.Option(
        "--fail-under",
        min=0,
        max=100,
        metavar="PCT",
        help="Exit 1 when a model's overall score is below PCT percent.",
    ),
]
MaxErrored = Annotated[
    str | None,
    typer.Option(
        "--max-errored",
        metavar="N|PCT%",
        help="Errored cases a model may have (a count, or a share of its cases like 5%; every run "
        "together) before the command exits 5; default 0.",
    ),
]


def resume_command(
    models: list[str],
    base_url: str | None,
    cassettes: Path,
    suite_path: Path | None,
    cases: list[str],
    *,
    missing: bool = True,
    flags: Sequence[str] = (),
) -> str:
    """The command that records what this run did not finish, with the run's own options
    (`flags`: the others that shape the run, such as `--repeat 3` or `--max-cost 5`)."""
    words = ["lobrec", "record"]
    for model in dict.fromkeys(models):
        words += ["--model", model]
    if base_url:
        words += ["--base-url", base_url]
    words += ["--cassettes", str(cassettes)]
    if suite_path is not None:
        words += ["--suite", str(suite_path)]
    for case_id in cases:
        words += ["--case", case_id]
    return shell_command(*words, *flags, *(["--missing"] if missing else []))


SHOWN_IDS = 5
"""Case ids named in one errored-reason line before the rest are counted."""


def errored_summary(run: RunResult) -> list[str]:
    """Why cases errored, one line per model and distinct reason, with the first few case ids.

    The reasons are in the results file too, but a user at a terminal must not have to open it to
    learn that the model name was misspelt or the port was wrong.
    """
    lines = []
    for model in run.models:
        by_reason: dict[str, list[str]] = {}
        # every run of a repeated model: a case that errored only in run 2 is named too
        runs = [(1, model.cases)]
        if model.repeats is not None:
            runs += [(per_run.run, per_run.cases) for per_run in model.repeats.per_run if per_run.run > 1]
        for number, cases in runs:
            for case in cases:
                if case.status == "errored":
                    label = case.id if number == 1 else f"{case.id} (run {number})"
                    by_reason.setdefault(case.reason or "no reason recorded", []).append(label)
        for reason, ids in sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0])):
            shown = ", ".join(ids[:SHOWN_IDS])
            more = f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
            noun = "case" if len(ids) == 1 else "cases"
            lines.append(f"{model.model}: {len(ids)} {noun} errored ({shown}{more}): {reason}")
    return lines


def check_gates(
    run: RunResult,
    *,
    fail_under: float | None,
    max_errored: str | None,
    failed: Sequence[tuple[Exit, str]] = (),
    excused: dict[str, int] | None = None,
) -> None:
    """Print every gate the run fails, one line each, then exit with the code that wins
    (`GATE_ORDER`); `failed` holds the gates the command checked itself (stale cases, cases not
    started), `excused` the errored cases per model those already answer for."""
    from lobrec.core.gates import failed_gates
    from lobrec.reports._format import percent

    codes = {"no_scores": Exit.GATEWAY, "errored": Exit.ERRORED, "fail_under": Exit.BELOW_THRESHOLD}
    found = [*failed]
    for failure in failed_gates(
        run, fail_under=fail_under, allowance=allowance(max_errored), excused=excused, shown=percent
    ):
        found.append((codes[failure.gate], failure.line))
    for _, line in found:
        say(f"gate failed: {line}")
    if found:
        raise typer.Exit(min((code for code, _ in found), key=GATE_ORDER.index))


def allowance(text: str | None) -> Any:
    """`--max-errored` parsed (none given: no errored case is allowed), or a one-line error."""
    from lobrec.core.gates import NO_ERRORS, parse_allowance

    if text is None:
        return NO_ERRORS
    try:
        return parse_allowance(text)
    except ValueError as exc:
        raise fail(str(exc)) from None

"""Writing a run's reports: to files (never through a link, never half written) or to stdout, and
the leaderboard to the terminal, so `lobrec rescore cassettes/ --markdown - > report.md` works."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.cli._advice import errored_summary
from lobrec.cli._gates import allowance, check_gates
from lobrec.cli._output import fail, say
from lobrec.cli._running import interruptible_reports
from lobrec.errors import LobrecError

if TYPE_CHECKING:
    from rich.console import Console

    from lobrec.cli._exits import Exit
    from lobrec.cli._options import Outputs
    from lobrec.core.metrics.results import RunResult
    from lobrec.core.suite.format import Suite

PIPED_WIDTH = 1000
"""Columns for reports when output is not a terminal (a CI log, a pipe) and COLUMNS does not say:
a log has no width of its own, so the tables are laid out whole (rich's default 80, or any fixed
width, would put columns of the leaderboard into a second table)."""


def report_console(*, stderr: bool = False) -> Console:
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


def _folder_problem(
    option: str | None, target: str, example: str | None = None, origin: str | None = None
) -> str:
    """`--html out: is a folder; give the report a file name (e.g. out/report.html)`: the name
    suggested matches the option; a target a configuration file set names that file (`origin`)."""
    name = example or REPORT_FILE_NAMES.get(option or "", "results.json")
    where = f"{option} {target}" if option else target
    if option and origin is not None:
        where = f"{option} {target} (set in {origin})"
    return f"{where}: is a folder; give the report a file name (e.g. {Path(target) / name})"


def check_report_targets(targets: Mapping[str, str | None], origins: Mapping[str, str] | None = None) -> None:
    """Refuse, before a record spends anything, a report option given an existing folder
    (`{"html": "out"}`); after a run, `emit_reports` still writes the other reports. `origins`: the
    file that set a target (`Outputs.origins`)."""
    for name, target in targets.items():
        if target and target != "-" and _real_folder(Path(target)):
            raise fail(_folder_problem(f"--{name}", target, origin=(origins or {}).get(name)))


def one_stdout(targets: Mapping[str, str | None], origins: Mapping[str, str] | None = None) -> None:
    """Refuse, before anything runs, two reports given `-`: both would write to stdout, interleaved.
    `targets` maps each option (`csv` for `--csv`) to its target; `origins` a target's file, if a
    configuration file set it (the user did not type that option)."""
    found = origins or {}
    to_stdout = [
        f"--{name} (set in {found[name]})" if name in found else f"--{name}"
        for name, target in targets.items()
        if target == "-"
    ]
    if len(to_stdout) > 1:
        raise fail(f"{' and '.join(to_stdout)} all write to stdout (-); give all but one of them a file name")


def _utf8(text: str | bytes) -> bytes:
    """A report's bytes. A lone surrogate (valid JSON can spell one) has no UTF-8 form: it is
    written spelled out (`\\ud800`), as the Markdown report shows it, instead of failing the whole
    report. Bytes (the results file, already UTF-8) are kept as they are: no second copy of a
    190 MB file."""
    return text if isinstance(text, bytes) else text.encode("utf-8", "backslashreplace")


def append_report(target: str, text: str | bytes) -> None:
    """Add a report to the end of a file, or write it to stdout for `-`: a CI job summary
    (`$GITHUB_STEP_SUMMARY`) holds what earlier steps wrote (`lobrec.files.append_output`)."""
    from lobrec.files import append_output

    if target == "-":
        write_report(target, text)
        return
    if _real_folder(Path(target)):
        raise LobrecError(_folder_problem("--summary", target))
    append_output(Path(target), _utf8(text), LobrecError)


def write_report(
    target: str,
    text: str | bytes,
    option: str | None = None,
    example: str | None = None,
    origin: str | None = None,
) -> None:
    """Write a report to a file, or to stdout for `-`; never through a symlink, never to a FIFO or
    device (`lobrec.files.check_output`). `option` and `example` name the option and the file name
    to suggest when `target` is a folder, `origin` the configuration file that set it."""
    data = _utf8(text)
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    from lobrec.files import write_output

    path = Path(target)
    if _real_folder(path):
        raise LobrecError(_folder_problem(option, target, example, origin))
    write_output(path, data, LobrecError)


def _renderers(run: RunResult, suite: Suite) -> dict[str, Callable[[], str | bytes]]:
    """Each report by its option's name (`json` for `--json`), built only when asked for."""
    from lobrec.core.metrics.results import encode_results

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

    return {
        "json": lambda: encode_results(run),
        "markdown": markdown,
        "html": html,
        "csv": csv,
        "jsonl": jsonl,
        "junit": junit,
        "summary": summary,
    }


def emit_reports(
    run: RunResult,
    suite: Suite,
    targets: Mapping[str, str | None],
    *,
    partial: bool = False,
    by_group: bool = False,
    origins: Mapping[str, str] | None = None,
    leaderboard: RunResult | None,
) -> None:
    """Write each report and export `targets` asks for (`{"html": "out/report.html"}`), then print
    the leaderboard (on stderr when a report goes to stdout, so `--csv - > steps.csv` holds only the
    CSV), with the per-group table after it for `by_group`. `origins`: a target's configuration
    file, named when it cannot be written. `leaderboard`: the run the terminal shows (None: no
    leaderboard)."""
    from lobrec.reports.terminal import render_leaderboard

    renderers = _renderers(run, suite)
    failed: list[LobrecError] = []
    for name, target in targets.items():
        if target:
            # One report that cannot be built or written is named, and the others are still
            # written: a hostile value must not cost the run every report after it.
            try:
                # the job summary is added to its file (`append_report`), every other one replaces it
                if name == "summary":
                    append_report(target, renderers[name]())
                else:
                    write_report(target, renderers[name](), f"--{name}", origin=(origins or {}).get(name))
            except LobrecError as exc:
                failed.append(exc)
            except (ValueError, OverflowError, RecursionError) as exc:
                failed.append(LobrecError(f"{target}: cannot build the report: {type(exc).__name__}: {exc}"))
    if leaderboard is not None:
        console = report_console(stderr="-" in targets.values())
        render_leaderboard(leaderboard, console, partial=partial, by_group=by_group)
    if failed:  # the command's handler says each, one line apiece
        raise ExceptionGroup("reports that could not be written", failed)


def check_outputs(outputs: Outputs) -> None:
    """Refuse, before anything is read or sent, a bad `--max-errored` or two reports to stdout."""
    allowance(outputs.max_errored)
    one_stdout(outputs.targets, outputs.origins)


def report_run(
    run: RunResult,
    suite: Suite,
    outputs: Outputs,
    *,
    partial: bool = False,
    quiet: bool = False,
    shown: RunResult | None = None,
) -> list[str]:
    """Write the reports and the leaderboard (a signal meanwhile ends the command as interrupted),
    then say why cases errored; those lines are returned. `quiet` (a run stopped by Ctrl-C, or no
    model answered) writes the report files only; `shown` is the run the terminal shows when it
    leaves models out (those that never answered have had their one line), the files hold `run`.
    The job summary waits for the gates (`job_summary`): it starts with the verdict; when another
    report cannot be written, the summary is still written, saying so, before the command exits."""
    terminal = run if shown is None else shown
    targets = {name: target for name, target in outputs.targets.items() if name != "summary"}
    with interruptible_reports():
        try:
            emit_reports(
                run,
                suite,
                targets,
                partial=partial,
                by_group=outputs.by_group,
                origins=outputs.origins,
                leaderboard=None if quiet or not terminal.models else terminal,
            )
        except ExceptionGroup:  # the handler says which report could not be written; the summary tells
            job_summary(run, suite, outputs)(["a report could not be written (see the command's output)"])
            raise
    errored = errored_summary(terminal)
    for line in [] if quiet else errored:
        say(line)
    return errored


def gate_run(
    run: RunResult,
    suite: Suite,
    outputs: Outputs,
    failed: Sequence[tuple[Exit, str]],
    excused: dict[str, int] | None = None,
) -> None:
    """Check the run's gates (`check_gates`: `failed` are those the command checked itself), write
    the job summary with the verdict, then exit with the winning code when a gate failed."""
    check_gates(
        run,
        fail_under=outputs.fail_under,
        max_errored=outputs.max_errored,
        failed=failed,
        excused=excused,
        verdict=job_summary(run, suite, outputs),
    )


def job_summary(run: RunResult, suite: Suite, outputs: Outputs) -> Callable[[list[str]], None]:
    """What writes `--summary` once the gates are known: handed the failed gates' lines (none: the
    run passed), it adds the summary, verdict first, to its file; nothing without `--summary`."""

    def write(failed: list[str]) -> None:
        target = outputs.targets.get("summary")
        if target:
            from lobrec.reports.summary import to_summary  # only then: it loads jinja2 (20 ms)

            append_report(target, to_summary(run, suite, failed))

    return write

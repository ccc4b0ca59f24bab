"""`lobrec record`: run the suite against the gateway, judge every case, keep the cassettes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lobrec.cli._advice import resume_command
from lobrec.cli._exits import Exit
from lobrec.cli._options import OUTPUTS, AllowNewerSuite, GroupOption, Outputs, SuitePath, with_outputs
from lobrec.cli._output import fail, say
from lobrec.cli._reports import check_outputs, check_report_targets, gate_run, job_summary, report_run
from lobrec.cli._running import Interrupted, run_async
from lobrec.cli._settings import in_force, parse_delays
from lobrec.defaults import DEFAULT_CASSETTES, DEFAULT_CONCURRENCY, DEFAULT_RETRY_DELAYS, DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from lobrec.cli._unanswered import Folders
    from lobrec.core.metrics.results import RunResult as RunRes
    from lobrec.core.suite.format import Suite
    from lobrec.running.recording import RecordOptions, RecordOutcome
    from lobrec.settings import Resolved, Setting


@with_outputs
def record_command(
    model: list[str] = typer.Option(
        [],
        "--model",
        "-m",
        metavar="MODEL",
        help="Model to evaluate; repeat for several (default: models in the configuration file).",
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        metavar="URL",
        help="Gateway base URL (default: LOBSTACK_BASE_URL, else the configuration file, "
        "else the Lobstack API).",
    ),
    cassettes: Path | None = typer.Option(
        None,
        "--cassettes",
        metavar="DIR",
        help=f"Folder for the cassettes (default: {DEFAULT_CASSETTES}).",
        show_default=False,
    ),
    outputs: Outputs = OUTPUTS,
    case: list[str] = typer.Option([], "--case", metavar="ID", help="Record only this case; repeatable."),
    group: GroupOption = [],  # noqa: B006 - typer reads the default, never mutates it
    missing: bool = typer.Option(
        False, "--missing", help="Record only cases with no cassette yet, or a stale one."
    ),
    concurrency: int | None = typer.Option(
        None,
        "--concurrency",
        min=1,
        max=256,
        metavar="N",
        help="At most N requests in flight, all models together (fewer while the gateway answers 429; "
        f"default: {DEFAULT_CONCURRENCY}).",
    ),
    adaptive: bool = typer.Option(
        True,
        "--adaptive/--fixed",
        help="Adapt the requests in flight to 429/503 answers (AIMD), or keep --concurrency fixed.",
    ),
    suite_path: SuitePath = None,
    timeout: float | None = typer.Option(
        None,
        "--timeout",
        min=0.01,
        metavar="SECONDS",
        help=f"Seconds without an answer before a request fails (default: {DEFAULT_TIMEOUT_S:g}).",
    ),
    retry_delays: str | None = typer.Option(
        None,
        "--retry-delays",
        metavar="SECONDS,...",
        help=f"Seconds to wait before each retry, comma-separated (default: {DEFAULT_RETRY_DELAYS}; "
        "tests shrink these).",
    ),
    repeat: int = typer.Option(
        1,
        "--repeat",
        min=1,
        max=1000,
        metavar="K",
        help="Record K independent runs of every case (runs 2..K in runs/N/); adds runs, never rewrites.",
    ),
    retry_errored: bool = typer.Option(
        False,
        "--retry-errored",
        help="Record again only the cases (of every run) whose cassette ended errored.",
    ),
    max_cost: float | None = typer.Option(
        None,
        "--max-cost",
        min=0.0,
        metavar="USD",
        help="A cap on this run's recorded cost: fewer cases start as the spend nears USD, so it ends "
        "within one case's cost of it; cases in flight finish.",
    ),
    allow_unstarted: bool = typer.Option(
        False,
        "--allow-unstarted",
        help="Exit 0 even when cases were not started (--max-cost reached, a model failed fast; not exit 8).",
    ),
    allow_newer_suite: AllowNewerSuite = False,
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Say how many requests the run would send, and its expected cost; send nothing.",
    ),
) -> None:
    """Run the suite against the gateway and record cassettes.

    Every case is judged as it is recorded, then the leaderboard is printed. The API key is read
    from LOBSTACK_API_KEY (only a loopback gateway runs without one), never from the command line;
    LOBSTACK_BASE_URL sets the default --base-url. Options not given are read from [tool.lobrec]
    in pyproject.toml or from lobrec.toml (`lobrec config` shows what is in force).
    """
    from lobrec.running.recording import RecordOptions
    from lobrec.running.runner import RetryPolicy

    conf = in_force(
        models=model, base_url=base_url, cassettes=cassettes, concurrency=concurrency, timeout=timeout,
        retry_delays=retry_delays, suite=suite_path, **outputs.given(),
    )  # fmt: skip
    outputs = outputs.resolved(conf)
    model, cassettes, concurrency = conf["models"], Path(conf["cassettes"]), conf["concurrency"]
    timeout, retry_delays = conf["timeout"], conf["retry_delays"]
    suite_path = Path(conf["suite"]) if conf["suite"] is not None else None
    delays = _check_before_sending(conf, outputs)
    flags = _shaping_flags(group, repeat, max_cost, concurrency, adaptive, timeout, retry_delays)
    resume = resume_command(model, base_url, cassettes, suite_path, case, flags=flags)
    options = RecordOptions(
        models=list(dict.fromkeys(model)),
        cassettes=cassettes,
        case_ids=case,
        missing=missing,
        concurrency=concurrency,
        adaptive=adaptive,
        policy=RetryPolicy(timeout_s=timeout, delays_s=delays),
        repeat=repeat,
        retry_errored=retry_errored,
        max_cost_usd=max_cost,
        allow_newer_suite=allow_newer_suite,
    )
    from lobrec.cli._unanswered import Folders

    folders = Folders.before(cassettes, options.models)
    recorded = _record(suite_path, group, options, conf.settings["base_url"], resume, dry_run=dry_run)
    if recorded is None:
        return
    suite, outcome = recorded
    unanswered = _never_answered(outcome, folders, conf["base_url"], suite_path, case, flags)
    outcome = _said(outcome, unanswered)
    model = _answered(model, unanswered)  # the commands below name only the models that answered
    resume = resume_command(model, base_url, cassettes, suite_path, case, flags=flags)
    chosen = bool(case or group)  # part of the suite: the leaderboard says so
    _say_nothing_left(outcome, options, chosen=chosen)
    shown = _without(outcome.run, unanswered)
    errored = report_run(outcome.run, suite, outputs, partial=chosen, quiet=outcome.interrupted, shown=shown)
    _exit_if_none_answered(outcome.run, suite, outputs, unanswered, shown)
    retry = resume_command(model, base_url, cassettes, suite_path, [], missing=False, flags=flags)
    _summarise_interrupt(outcome, suite, outputs)
    failed = _stopped_early(outcome, max_cost, resume, retry if errored else None)
    gate_run(shown, suite, outputs, _accepted(failed, allow_unstarted) + _unanswered_gates(unanswered))


def _answered(models: list[str], unanswered: list[str]) -> list[str]:
    """`models` less those that never answered."""
    return [name for name in models if name not in unanswered]


def _exit_if_none_answered(
    run: RunRes, suite: Suite, outputs: Outputs, unanswered: list[str], shown: RunRes
) -> None:
    """No model answered: the one line per model said it all and the files are written, so the
    job summary names them and the run exits here, before any gate."""
    if unanswered and not shown.models:
        job_summary(run, suite, outputs)([f"{name}: never answered" for name in unanswered])
        raise typer.Exit(Exit.GATEWAY)


def _summarise_interrupt(outcome: RecordOutcome, suite: Suite, outputs: Outputs) -> None:
    """An interrupted run ends before any gate: the job summary says why."""
    if outcome.interrupted:
        job_summary(outcome.run, suite, outputs)(["interrupted before every case was recorded"])


def _accepted(failed: list[tuple[Exit, str]], allow_unstarted: bool) -> list[tuple[Exit, str]]:
    """The failed gates less the cases not started, which `--allow-unstarted` accepts."""
    if not allow_unstarted:
        return failed
    return [(code, line) for code, line in failed if code != Exit.NOT_STARTED]


def _unanswered_gates(unanswered: list[str]) -> list[tuple[Exit, str]]:
    """The gate each model that never answered fails (its line above says why)."""
    return [(Exit.GATEWAY, f"{name}: never answered (above)") for name in unanswered]


def _without(run: RunRes, names: list[str]) -> RunRes:
    """`run` less the models named (those that never answered: the terminal has their one line)."""
    from msgspec import structs

    if not names:
        return run
    return structs.replace(run, models=[model for model in run.models if model.model not in names])


def _said(outcome: RecordOutcome, unanswered: list[str]) -> RecordOutcome:
    """The outcome less the stop reasons of the models that never answered (their line said it)."""
    from msgspec import structs

    stopped = {name: why for name, why in outcome.stopped.items() if name not in unanswered}
    return structs.replace(outcome, stopped=stopped)


def _never_answered(
    outcome: RecordOutcome,
    folders: Folders,
    base_url: str | None,
    suite_path: Path | None,
    cases: list[str],
    flags: list[str],
) -> list[str]:
    """Models that never answered: one line each (why, and the command that fixes it), their new
    folders removed; the terminal then leaves them out (the report files keep them)."""
    from lobrec.running.gateway import resolve_gateway

    if outcome.interrupted:
        return []
    from lobrec.cli._unanswered import never_answered, unanswered_line

    dead = never_answered(outcome.run, outcome.stopped)
    if not dead:
        return []
    url = resolve_gateway(base_url).base_url

    def command(name: str, again: bool) -> str:
        words = resume_command([name], base_url, folders.root, suite_path, cases, missing=again, flags=flags)
        return f"{words} --retry-errored" if again else words

    for model in dead:
        say(unanswered_line(model, command, url, folders))
    return [model.model for model in dead]


def _check_before_sending(conf: Resolved, outputs: Outputs) -> tuple[float, ...]:
    """Refuse, before anything is sent, settings no run can use; the retry delays parsed."""
    if not conf["models"]:
        raise fail("no model to record: give --model (repeatable), or set models in the configuration file")
    delays = parse_delays(conf["retry_delays"])
    check_report_targets(outputs.targets, outputs.origins)
    check_outputs(outputs)
    cassettes = Path(conf["cassettes"])
    if cassettes.exists() and not cassettes.is_dir():
        where = conf.settings["cassettes"].where
        named = f"cassettes {cassettes} (set in {where})" if where else f"--cassettes {cassettes}"
        raise fail(f"{named}: is a file, not a folder")
    return delays


def _say_nothing_left(outcome: RecordOutcome, options: RecordOptions, *, chosen: bool) -> None:
    """`--missing` or `--retry-errored` found nothing to record for a model: say why, not silence."""
    if not (options.missing or options.retry_errored) or outcome.interrupted:
        return
    for name in options.models:
        if not outcome.recorded.get(name):
            why = _nothing_left(name, options.missing, options.retry_errored, chosen)
            say(f"nothing to record: {why}")


def _stopped_early(
    outcome: RecordOutcome, max_cost: float | None, resume: str, retry: str | None
) -> list[tuple[Exit, str]]:
    """Advice for a run with errored cases (`retry`: the command that records them again) or one
    that stopped early; an interrupted run exits here, any other returns the gates it fails."""
    from lobrec.core.words import counted

    if retry is not None and not (outcome.interrupted or outcome.not_started):
        say(f"Record the errored cases again with: {retry} --retry-errored")
    # A run stopped with errored cases gets one command that does both: the rest, and the errored again.
    how = ", recording the errored cases again too," if retry is not None else ""
    resume_all = f"{resume} --retry-errored" if retry is not None else resume
    if outcome.interrupted:
        for line in _interrupted_summary(outcome):
            say(line)
        done = sum(len(ids) for ids in outcome.recorded.values())
        say(f"interrupted; {counted(done, 'case')} recorded and kept. Resume{how} with: {resume_all}")
        raise typer.Exit(Exit.INTERRUPTED)
    return _unfinished(outcome, max_cost, f"Resume{how} with: {resume_all}", resume)


def _say_replaced(suite: Suite, options: RecordOptions, resume: str) -> None:
    """Recording again over fresh cassettes is a choice: say, per model, how many this run replaces
    and the command that records only the gaps (`--missing`). `--case`, `--missing` and
    `--retry-errored` already chose their cases; a repeated run never rewrites a recorded run."""
    from lobrec.cassette.layout import model_dir_name
    from lobrec.core.words import counted
    from lobrec.running.recording import plan, replaced

    if options.missing or options.retry_errored or options.case_ids:
        return
    found: dict[str, int] = {}
    for planned in plan(suite, options):
        found[planned.model] = found.get(planned.model, 0) + replaced(suite, planned)
    for model, count in found.items():
        if count:
            has, them = ("has", "it") if count == 1 else ("have", "them")
            say(
                f"{model}: recording again {counted(count, 'case')} that already {has} a fresh cassette "
                f"in {options.cassettes / model_dir_name(model)}, replacing {them}; to record only "
                f"the gaps, stop (Ctrl-C) and run: {resume}"
            )


def _interrupted_summary(outcome: RecordOutcome) -> list[str]:
    """After Ctrl-C, one line per model (what is recorded, and how many errored) instead of the
    leaderboard, so the resume line comes last and close to the prompt."""
    from lobrec.core.words import counted

    lines = []
    for model in outcome.run.models:
        counts = model.counts
        recorded = counts.cases - counts.unrecorded
        errored = f", {counts.errored} errored" if counts.errored else ""
        lines.append(f"{model.model}: {recorded} of {counted(counts.cases, 'case')} recorded{errored}")
    return lines


def _record(
    suite_path: Path | None,
    group: list[str],
    options: RecordOptions,
    base_url: Setting,
    resume: str,
    *,
    dry_run: bool,
) -> tuple[Suite, RecordOutcome] | None:
    """Load the suite and record it (None for `--dry-run`, which only says what it would send);
    an error is raised (the command's handler says it), an interrupt is one line and exit 130."""
    from msgspec import structs

    from lobrec.running.dry_run import dry_run_lines
    from lobrec.running.gateway import resolve_gateway
    from lobrec.running.progress import RunProgress
    from lobrec.running.recording import record as record_run
    from lobrec.suite_file import load_suite, only_groups, with_suite_source

    try:
        suite = only_groups(load_suite(suite_path), group)
        if dry_run:
            for line in run_async(dry_run_lines(suite, options)):
                say(line, output=True)
            return None
        named_by_file = base_url.where if base_url.source == "file" else None
        gateway = resolve_gateway(base_url.value, named_by_file=named_by_file)
        _say_replaced(suite, options, resume)
        with RunProgress("recording", total=None) as progress:
            outcome = run_async(record_run(suite, gateway, options, progress))
        outcome = structs.replace(outcome, run=with_suite_source(outcome.run, suite_path))
    except Interrupted:
        raise fail(
            f"interrupted; every case recorded so far is kept. Resume with: {resume}", Exit.INTERRUPTED
        ) from None
    return suite, outcome


def _unfinished(
    outcome: RecordOutcome, max_cost: float | None, resume_all: str, resume: str
) -> list[tuple[Exit, str]]:
    """The gates a run that stopped early fails: `--max-cost` reached, models that failed fast."""
    from lobrec.core.words import counted

    failed = []
    if outcome.not_started:
        failed.append(
            (
                Exit.NOT_STARTED,
                f"--max-cost reached: this run spent ${outcome.spent_usd:.4f} of ${max_cost or 0:.4f}; "
                f"{counted(outcome.not_started, 'case')} {'was' if outcome.not_started == 1 else 'were'} "
                f"not started (--allow-unstarted accepts them). {resume_all}",
            )
        )
    for stopped, why in outcome.stopped.items():
        failed.append(
            (
                Exit.NOT_STARTED,
                f"{stopped}: {outcome.unstarted.get(stopped, 0)} cases not started after its first cases "
                f"all errored: {why}. Once that is fixed, record the rest with: {resume} --retry-errored",
            )
        )
    return failed


def _nothing_left(model: str, missing: bool, retry_errored: bool, chosen: bool) -> str:
    """Why `--missing` or `--retry-errored` found nothing to record for `model` (`chosen`: of the
    cases `--case` or `--group` picked)."""
    every, no = ("every chosen case", "no chosen case") if chosen else ("every case", "no case")
    if missing and retry_errored:
        return f"{every} of {model} has a fresh cassette and none ended errored"
    if missing:
        return f"{every} of {model} has a fresh cassette"
    return f"{no} of {model} ended errored"


def _shaping_flags(
    group: list[str],
    repeat: int,
    max_cost: float | None,
    concurrency: int,
    adaptive: bool,
    timeout: float,
    retry_delays: str,
) -> list[str]:
    """The options a resume command must repeat so it records as this run did (defaults left out)."""
    flags = [word for name in group for word in ("--group", name)]
    if repeat != 1:
        flags += ["--repeat", str(repeat)]
    if max_cost is not None:
        flags += ["--max-cost", f"{max_cost:g}"]
    if concurrency != DEFAULT_CONCURRENCY:
        flags += ["--concurrency", str(concurrency)]
    if not adaptive:
        flags.append("--fixed")
    if timeout != DEFAULT_TIMEOUT_S:
        flags += ["--timeout", f"{timeout:g}"]
    if retry_delays != DEFAULT_RETRY_DELAYS:
        flags += ["--retry-delays", retry_delays]
    return flags

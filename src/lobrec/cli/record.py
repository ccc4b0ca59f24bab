"""`lobrec record`: run the suite against the gateway, judge every case, keep the cassettes."""

from __future__ import annotations

from pathlib import Path

import typer

from lobrec.cli._shared import (
    AllowNewerSuite,
    ByGroup,
    CsvOut,
    Exit,
    FailUnder,
    GroupOption,
    HtmlOut,
    Interrupted,
    JsonlOut,
    JsonOut,
    JunitOut,
    MarkdownOut,
    MaxErrored,
    SuitePath,
    SummaryOut,
    allowance,
    check_gates,
    check_report_targets,
    emit_reports,
    errored_summary,
    fail,
    in_force,
    interruptible_reports,
    load_runnable_suite,
    one_stdout,
    only_groups,
    os_error_line,
    parse_delays,
    resume_command,
    run_async,
    say,
    with_suite_source,
)
from lobrec.defaults import DEFAULT_CASSETTES, DEFAULT_CONCURRENCY, DEFAULT_RETRY_DELAYS, DEFAULT_TIMEOUT_S


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
    json_out: JsonOut = None,
    markdown_out: MarkdownOut = None,
    html_out: HtmlOut = None,
    csv_out: CsvOut = None,
    jsonl_out: JsonlOut = None,
    junit_out: JunitOut = None,
    summary_out: SummaryOut = None,
    by_group: ByGroup = False,
    fail_under: FailUnder = None,
    max_errored: MaxErrored = None,
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
        help="Start no new case once this run's recorded cost reaches USD; cases in flight finish.",
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
    from lobrec.core.words import counted
    from lobrec.dry_run import dry_run_lines
    from lobrec.errors import LobrecError
    from lobrec.gateway import resolve_gateway
    from lobrec.recording import RecordOptions
    from lobrec.recording import record as record_run
    from lobrec.reports.progress import RunProgress
    from lobrec.runner import RetryPolicy

    conf = in_force(
        models=model, base_url=base_url, cassettes=cassettes, concurrency=concurrency, timeout=timeout,
        retry_delays=retry_delays, json=json_out, markdown=markdown_out, html=html_out, csv=csv_out,
        jsonl=jsonl_out, junit=junit_out, summary=summary_out, fail_under=fail_under,
        max_errored=max_errored, suite=suite_path,
    )  # fmt: skip
    model, cassettes, concurrency = conf["models"], Path(conf["cassettes"]), conf["concurrency"]
    timeout, retry_delays, fail_under, max_errored = (
        conf["timeout"], conf["retry_delays"], conf["fail_under"], conf["max_errored"]
    )  # fmt: skip
    json_out, markdown_out, html_out, csv_out, jsonl_out, junit_out, summary_out = conf.reports()
    suite_path = Path(conf["suite"]) if conf["suite"] is not None else None
    if not model:
        raise fail("no model to record: give --model (repeatable), or set models in the configuration file")
    delays = parse_delays(retry_delays)
    check_report_targets(
        json_out=json_out,
        markdown_out=markdown_out,
        html_out=html_out,
        csv_out=csv_out,
        jsonl_out=jsonl_out,
        junit_out=junit_out,
        summary_out=summary_out,
    )
    allowance(max_errored)  # a bad value stops the command before anything is sent
    one_stdout(
        json=json_out, markdown=markdown_out, html=html_out, csv=csv_out,
        jsonl=jsonl_out, junit=junit_out, summary=summary_out,
    )  # fmt: skip
    if cassettes.exists() and not cassettes.is_dir():
        where = conf.settings["cassettes"].where
        named = f"cassettes {cassettes} (set in {where})" if where else f"--cassettes {cassettes}"
        raise fail(f"{named}: is a file, not a folder")
    flags = [
        *(w for g in group for w in ("--group", g)),
        *_shaping_flags(repeat, max_cost, concurrency, adaptive, timeout, retry_delays),
    ]
    resume = resume_command(model, base_url, cassettes, suite_path, case, flags=flags)
    try:
        suite = only_groups(load_runnable_suite(suite_path), group)
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
        if dry_run:
            for line in run_async(dry_run_lines(suite, options)):
                say(line, output=True)
            return
        gateway = resolve_gateway(conf["base_url"])
        with RunProgress("recording", total=None) as progress:
            outcome = run_async(record_run(suite, gateway, options, progress))
        outcome.run = with_suite_source(outcome.run, suite_path)
    except LobrecError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(os_error_line(exc)) from None
    except Interrupted:
        raise fail(
            f"interrupted; every case recorded so far is kept. Resume with: {resume}", Exit.INTERRUPTED
        ) from None
    if (missing or retry_errored) and not outcome.interrupted:
        for name in options.models:
            if not outcome.recorded.get(name):
                say(f"nothing to record: {_nothing_left(name, missing, retry_errored, bool(case or group))}")
    with interruptible_reports():
        emit_reports(
            outcome.run,
            suite,
            json_out,
            markdown_out,
            html_out,
            leaderboard=True,
            partial=bool(case or group),
            csv_out=csv_out,
            jsonl_out=jsonl_out,
            junit_out=junit_out,
            summary_out=summary_out,
            by_group=by_group,
        )
    errored = errored_summary(outcome.run)
    for line in errored:
        say(line)
    ended_early = outcome.interrupted or bool(outcome.not_started)
    if errored and not ended_early:
        retry = resume_command(model, base_url, cassettes, suite_path, [], missing=False, flags=flags)
        say(f"Record the errored cases again with: {retry} --retry-errored")
    # A run stopped with errored cases gets one command that does both: the rest, and the errored again.
    how = ", recording the errored cases again too," if errored else ""
    resume_all = f"{resume} --retry-errored" if errored else resume
    done = sum(len(ids) for ids in outcome.recorded.values())
    if outcome.interrupted:
        say(f"interrupted; {counted(done, 'case')} recorded and kept. Resume{how} with: {resume_all}")
        raise typer.Exit(Exit.INTERRUPTED)
    failed = []
    if outcome.not_started:
        failed.append(
            (
                Exit.INCOMPLETE,
                f"--max-cost reached: this run spent ${outcome.spent_usd:.4f} of ${max_cost:.4f}; "
                f"{counted(outcome.not_started, 'case')} {'was' if outcome.not_started == 1 else 'were'} "
                f"not started. Resume{how} with: {resume_all}",
            )
        )
    for stopped, why in outcome.stopped.items():
        failed.append(
            (
                Exit.INCOMPLETE,
                f"{stopped}: {outcome.unstarted.get(stopped, 0)} cases not started after its first cases "
                f"all errored: {why}. Once that is fixed, record the rest with: {resume} --retry-errored",
            )
        )
    check_gates(outcome.run, fail_under=fail_under, max_errored=max_errored, failed=failed)


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
    repeat: int, max_cost: float | None, concurrency: int, adaptive: bool, timeout: float, retry_delays: str
) -> list[str]:
    """The options a resume command must repeat so it records as this run did (defaults left out)."""
    flags = []
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

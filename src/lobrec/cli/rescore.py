"""`lobrec rescore`: re-judge recorded cassettes offline, and say which cases need recording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    emit_reports,
    errored_summary,
    fail,
    in_force,
    interruptible_reports,
    load_runnable_suite,
    one_stdout,
    only_groups,
    resume_command,
    run_async,
    say,
    with_suite_source,
)


def rescore_command(
    cassettes_dir: Path | None = typer.Argument(
        None,
        metavar="DIR",
        help="The folder of model cassette folders (e.g. cassettes/; default: cassettes in the "
        "configuration file).",
        show_default=False,
    ),
    suite_path: SuitePath = None,
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
    group: GroupOption = [],  # noqa: B006 - typer reads the default, never mutates it
    allow_stale: bool = typer.Option(
        False, "--allow-stale", help="Exit 0 even when cases are stale, unrecorded or unreadable."
    ),
    against: Path | None = typer.Option(
        None,
        "--against",
        metavar="FILE",
        help="An older suite file: also re-judge under it and report the metric deltas and flipped cases.",
    ),
    allow_newer_suite: AllowNewerSuite = False,
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        min=1,
        metavar="N",
        help="Processes to spread the model folders over (default: the CPU count); same results for any N.",
    ),
) -> None:
    """Re-judge recorded cassettes offline: no key, no network.

    Options not given (and DIR) are read from [tool.lobrec] in pyproject.toml or from lobrec.toml.
    """
    from lobrec.errors import LobrecError, RecordInProgress
    from lobrec.replay import default_jobs, rescore_against
    from lobrec.replay import rescore as rescore_run
    from lobrec.reports.progress import RunProgress

    conf = in_force(
        cassettes=cassettes_dir, json=json_out, markdown=markdown_out, html=html_out, csv=csv_out,
        jsonl=jsonl_out, junit=junit_out, summary=summary_out, fail_under=fail_under,
        max_errored=max_errored, suite=suite_path,
    )  # fmt: skip
    if conf.settings["cassettes"].source == "default":  # DIR stays required unless a file names it
        raise fail(
            "Missing argument 'DIR': the folder of model cassette folders "
            "(or set cassettes in the configuration file)"
        )
    cassettes_dir = Path(conf["cassettes"])
    fail_under, max_errored = conf["fail_under"], conf["max_errored"]
    json_out, markdown_out, html_out, csv_out, jsonl_out, junit_out, summary_out = conf.reports()
    suite_path = Path(conf["suite"]) if conf["suite"] is not None else None
    allowance(max_errored)  # a bad value stops the command before anything is read
    one_stdout(
        json=json_out, markdown=markdown_out, html=html_out, csv=csv_out,
        jsonl=jsonl_out, junit=junit_out, summary=summary_out,
    )  # fmt: skip
    try:
        suite = only_groups(load_runnable_suite(suite_path), group)
        old = load_runnable_suite(against) if against is not None else None
        processes = jobs or default_jobs()
        with RunProgress("rescoring", total=None, spending=False) as progress:
            if old is None:
                outcome = run_async(
                    rescore_run(
                        suite, cassettes_dir, progress, jobs=processes, allow_newer_suite=allow_newer_suite
                    )
                )
            else:
                outcome = run_async(
                    rescore_against(
                        suite,
                        old,
                        cassettes_dir,
                        progress,
                        jobs=processes,
                        allow_newer_suite=allow_newer_suite,
                    )
                )
        outcome.run = with_suite_source(outcome.run, suite_path)
    except RecordInProgress as exc:  # the cassettes are incomplete for now: exit as a stale rescore does
        raise fail(str(exc), Exit.INCOMPLETE) from None
    except LobrecError as exc:
        raise fail(str(exc)) from None
    except Interrupted:
        raise fail("interrupted; nothing was written", Exit.INTERRUPTED) from None
    with interruptible_reports():
        emit_reports(
            outcome.run,
            suite,
            json_out,
            markdown_out,
            html_out,
            leaderboard=True,
            csv_out=csv_out,
            jsonl_out=jsonl_out,
            junit_out=junit_out,
            summary_out=summary_out,
            by_group=by_group,
        )
    for line in errored_summary(outcome.run):
        say(line)
    for line in unrecorded_candidates(outcome.run, cassettes_dir, suite_path):
        say(line)
    incomplete = incomplete_summary(outcome, cassettes_dir, suite_path)
    for line in incomplete:
        say(line)
    failed = []
    if incomplete and not allow_stale:
        stale = sum(m.counts.stale + m.counts.unrecorded for m in outcome.run.models)
        unreadable = sum(len(m.unreadable) for m in outcome.models)
        counted = [f"{stale} stale or unrecorded"] if stale else []
        counted += [f"{unreadable} unreadable"] if unreadable else []
        what = " and ".join(counted) or "cases not re-judged"
        models = "1 model" if len(incomplete) == 1 else f"{len(incomplete)} models"
        line = f"{what} cases in {models}, as listed above (--allow-stale accepts them)"
        failed.append((Exit.INCOMPLETE, line))
    excused: dict[str, int] = {}
    for replay in outcome.models:
        excused[replay.model] = excused.get(replay.model, 0) + len(replay.unreadable)
    check_gates(outcome.run, fail_under=fail_under, max_errored=max_errored, failed=failed, excused=excused)


def unrecorded_candidates(run: Any, cassettes: Path, suite_path: Path | None) -> list[str]:
    """For a routed model, the models Nex answered with that the folder does not hold, and the
    command that records them (the routing view then compares Nex with them)."""
    lines = []
    for model in run.models:
        if model.routing is not None and model.routing.unrecorded:
            fix = resume_command(model.routing.unrecorded, None, cassettes, suite_path, [], missing=False)
            names = ", ".join(model.routing.unrecorded)
            lines.append(f"{model.model}: answered with {names}, not recorded here. Record them with: {fix}")
    return lines


def incomplete_summary(outcome: Any, cassettes: Path, suite_path: Path | None) -> list[str]:
    """One line per model with stale, unrecorded or unreadable cases, and the command that fixes it.

    An unreadable cassette is not "missing" (its file exists), so `--missing` would skip it: those
    cases are named with `--case`, which records them whatever their file holds. A model with
    repeated runs gets its line from `_repeated_summary`, run by run.
    """
    from lobrec.cassette.layout import MANIFEST

    lines = []
    unreadable = {m.model: m.unreadable for m in outcome.models if m.run == 1}
    whole = {m.model: m.directory for m in outcome.models if m.run == 1 and m.problem is not None}
    for result in outcome.run.models:
        if result.repeats is not None:
            runs = [m for m in outcome.models if m.model == result.model]
            lines.extend(_repeated_summary(result, runs, cassettes, suite_path))
            continue
        if result.model in whole:  # the manifest itself is unusable: it goes, the cassettes stay
            fix = resume_command([result.model], None, cassettes, suite_path, [])
            manifest = whole[result.model] / MANIFEST
            lines.append(
                f"{result.model}: no case can be re-judged ({manifest} cannot be used). "
                f"Remove {manifest}, then record it again with: {fix}"
            )
            continue
        redo = [c.id for c in result.cases if c.status in ("stale", "unrecorded")]
        bad = unreadable.get(result.model, [])
        if not redo and not bad:
            continue
        parts = []
        if redo:
            parts.append(f"{len(redo)} stale or unrecorded ({', '.join(redo)})")
        if bad:
            parts.append(f"{len(bad)} unreadable ({', '.join(bad)})")
        fix = [resume_command([result.model], None, cassettes, suite_path, [])] if redo else []
        if bad:
            fix.append(resume_command([result.model], None, cassettes, suite_path, bad, missing=False))
        lines.append(f"{result.model}: " + "; ".join(parts) + ". Record them with: " + " && ".join(fix))
    return lines


def _repeated_summary(result: Any, replays: list[Any], cassettes: Path, suite_path: Path | None) -> list[str]:
    """The runs of a repeated model that need recording, one part per run, and one command for all.

    `--repeat K --missing` records what is unrecorded or stale in any run and never rewrites a
    recorded cassette, so an unreadable cassette (or a run's unusable manifest) is named to be
    removed first: it is then unrecorded (every case of a run without a manifest is), and the same
    command records it. Nothing else is named: repair advice never removes healthy data.
    """
    from lobrec.cassette.layout import MANIFEST

    runs = result.repeats.runs
    folders = {replay.run: replay for replay in replays}
    cases = [result.cases, *(entry.cases for entry in result.repeats.per_run[1:])]
    parts: list[str] = []
    remove: list[str] = []
    for number in range(1, runs + 1):
        replay = folders.get(number)
        if replay is not None and replay.absent:
            parts.append(f"run {number} not recorded")
            continue
        if replay is not None and replay.problem is not None:
            parts.append(f"run {number}: no case can be re-judged ({replay.problem})")
            remove.append(str(replay.directory / MANIFEST))  # never the folder: its cassettes, and
            # for run 1 every other run's, are healthy
            continue
        redo = [case.id for case in cases[number - 1] if case.status in ("stale", "unrecorded")]
        bad = [] if replay is None else replay.unreadable
        if redo:
            parts.append(f"run {number}: {len(redo)} stale or unrecorded ({', '.join(redo)})")
        if bad:
            parts.append(f"run {number}: {len(bad)} unreadable ({', '.join(bad)})")
            remove.extend(str(replay.directory / f"{case_id}.json") for case_id in bad)
    if not parts:
        return []
    fix = resume_command([result.model], None, cassettes, suite_path, []) + f" --repeat {runs}"
    then = f"Remove {', '.join(remove)}, then record them with" if remove else "Record them with"
    return [f"{result.model} ({runs} runs): " + "; ".join(parts) + f". {then}: {fix}"]

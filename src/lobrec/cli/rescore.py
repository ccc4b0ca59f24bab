"""`lobrec rescore`: re-judge recorded cassettes offline, and say which cases need recording."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lobrec.cli._advice import resume_command
from lobrec.cli._exits import Exit
from lobrec.cli._options import OUTPUTS, AllowNewerSuite, GroupOption, Outputs, SuitePath, with_outputs
from lobrec.cli._output import fail, say
from lobrec.cli._reports import check_outputs, gate_run, report_run
from lobrec.cli._running import Interrupted, run_async
from lobrec.cli._settings import in_force

if TYPE_CHECKING:
    from lobrec.core.metrics.results import CaseResult, ModelResult, RunResult
    from lobrec.core.metrics.runs import ModelRuns
    from lobrec.core.suite.format import Suite
    from lobrec.running.replay import ReplayModel, RescoreOutcome


@with_outputs
def rescore_command(
    cassettes_dir: Path | None = typer.Argument(
        None,
        metavar="DIR",
        help="The folder of model cassette folders (e.g. cassettes/; default: cassettes in the "
        "configuration file).",
        show_default=False,
    ),
    suite_path: SuitePath = None,
    outputs: Outputs = OUTPUTS,
    group: GroupOption = [],  # noqa: B006 - typer reads the default, never mutates it
    allow_stale: bool = typer.Option(
        False, "--allow-stale", help="Exit 0 even when cases are stale or unrecorded (not exit 4)."
    ),
    allow_unreadable: bool = typer.Option(
        False,
        "--allow-unreadable",
        help="Exit 0 even when cassettes or manifests are unreadable (not exit 6).",
    ),
    allow_other_major: bool = typer.Option(
        False,
        "--allow-other-major",
        help="Exit 0 even when folders were recorded on another major suite version (not exit 7).",
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
    conf = in_force(cassettes=cassettes_dir, suite=suite_path, **outputs.given())
    if conf.settings["cassettes"].source == "default":  # DIR stays required unless a file names it
        raise fail(
            "Missing argument 'DIR': the folder of model cassette folders "
            "(or set cassettes in the configuration file)"
        )
    cassettes_dir = Path(conf["cassettes"])
    outputs = outputs.resolved(conf)
    suite_path = Path(conf["suite"]) if conf["suite"] is not None else None
    check_outputs(outputs)
    suite, outcome = _rescore(cassettes_dir, suite_path, group, against, allow_newer_suite, jobs)
    report_run(outcome.run, suite, outputs)
    for line in unrecorded_candidates(outcome.run, cassettes_dir, suite_path):
        say(line)
    for line in incomplete_summary(outcome, cassettes_dir, suite_path):
        say(line)
    allowed = {
        Exit.INCOMPLETE: allow_stale,
        Exit.UNREADABLE: allow_unreadable,
        Exit.OTHER_MAJOR: allow_other_major,
    }
    gates = not_judged_gates(outcome, len(suite.cases))
    failed = [(code, line) for code, (line, _) in gates.items() if not allowed[code]]
    excused: dict[str, int] = {}
    for code in (Exit.UNREADABLE, Exit.OTHER_MAJOR):
        for model, count in gates.get(code, ("", {}))[1].items():
            excused[model] = excused.get(model, 0) + count
    gate_run(outcome.run, suite, outputs, failed, excused)


def _rescore(
    cassettes_dir: Path,
    suite_path: Path | None,
    group: list[str],
    against: Path | None,
    allow_newer_suite: bool,
    jobs: int | None,
) -> tuple[Suite, RescoreOutcome]:
    """Load the suite (and `--against`'s) and re-judge every model folder; an error is raised (the
    command's handler says it), an interrupt is one line and exit 130."""
    from msgspec import structs

    from lobrec.running.progress import RunProgress
    from lobrec.running.replay import RescoreOptions, default_jobs
    from lobrec.running.replay import rescore as rescore_run
    from lobrec.suite_file import load_suite, only_groups, with_suite_source

    try:
        suite = only_groups(load_suite(suite_path), group)
        old = load_suite(against) if against is not None else None
        options = RescoreOptions(
            cassettes=cassettes_dir,
            jobs=jobs or default_jobs(),
            allow_newer_suite=allow_newer_suite,
            against=old,
        )
        with RunProgress("rescoring", total=None, spending=False) as progress:
            outcome = run_async(rescore_run(suite, options, progress))
        outcome = structs.replace(outcome, run=with_suite_source(outcome.run, suite_path))
    except Interrupted:
        raise fail("interrupted; nothing was written", Exit.INTERRUPTED) from None
    return suite, outcome


def not_judged_gates(outcome: RescoreOutcome, cases: int) -> dict[Exit, tuple[str, dict[str, int]]]:
    """Each kind of case a rescore did not judge, by its exit code: the gate line, and the count per
    model. Stale or unrecorded (4, `--allow-stale`), unreadable (6, `--allow-unreadable`), recorded
    on another major suite version (7, `--allow-other-major`): one allowance never passes another
    kind, and a model with nothing judged fails the `no_scores` gate (3) whatever is allowed.
    `cases` is how many cases each run folder was asked for."""
    from lobrec.core.words import counted

    per_kind: dict[Exit, dict[str, int]] = {Exit.OTHER_MAJOR: {}, Exit.UNREADABLE: {}, Exit.INCOMPLETE: {}}
    for model in outcome.run.models:
        if model.counts.stale + model.counts.unrecorded:
            per_kind[Exit.INCOMPLETE][model.model] = model.counts.stale + model.counts.unrecorded
    for replay in outcome.models:
        kind, count = (
            (Exit.OTHER_MAJOR, cases) if replay.other_major else (Exit.UNREADABLE, len(replay.unreadable))
        )
        if count:
            per_kind[kind][replay.model] = per_kind[kind].get(replay.model, 0) + count
    what = {
        Exit.INCOMPLETE: ("{n} stale or unrecorded {cases}", "--allow-stale"),
        Exit.UNREADABLE: ("{n} unreadable {cases}", "--allow-unreadable"),
        Exit.OTHER_MAJOR: ("{n} {cases} recorded on another major suite version", "--allow-other-major"),
    }
    gates = {}
    for code, models in per_kind.items():
        if models:
            words, flag = what[code]
            total = sum(models.values())
            cases_in = words.format(n=total, cases="case" if total == 1 else "cases")
            line = f"{cases_in} in {counted(len(models), 'model')}, as listed above ({flag} accepts them)"
            gates[code] = (line, models)
    return gates


def unrecorded_candidates(run: RunResult, cassettes: Path, suite_path: Path | None) -> list[str]:
    """For a routed model, the models Nex answered with that the folder does not hold, and the
    command that records them (the routing view then compares Nex with them)."""
    lines = []
    for model in run.models:
        if model.routing is not None and model.routing.unrecorded:
            fix = resume_command(model.routing.unrecorded, None, cassettes, suite_path, [], missing=False)
            names = ", ".join(model.routing.unrecorded)
            lines.append(f"{model.model}: answered with {names}, not recorded here. Record them with: {fix}")
    return lines


def incomplete_summary(outcome: RescoreOutcome, cassettes: Path, suite_path: Path | None) -> list[str]:
    """One line per model with stale, unrecorded or unreadable cases, and the command that fixes it.

    A model with repeated runs gets its line from `_repeated_summary`, run by run, any other from
    `_one_run_summary`.
    """
    from lobrec.core.metrics.runs import runs_of

    folders: dict[str, list[ReplayModel]] = {}
    for replay in outcome.models:  # grouped once: a lookup per model would be quadratic in models
        folders.setdefault(replay.model, []).append(replay)
    lines = []
    for result in outcome.run.models:
        replays = folders.get(result.model, [])
        runs = runs_of(result)
        if runs.repeated:
            lines.extend(_repeated_summary(runs, replays, cassettes, suite_path))
            continue
        line = _one_run_summary(result, [m for m in replays if m.run == 1], cassettes, suite_path)
        if line is not None:
            lines.append(line)
    return lines


def _one_run_summary(
    result: ModelResult, replays: list[ReplayModel], cassettes: Path, suite_path: Path | None
) -> str | None:
    """The line of a model recorded once, if any of its cases needs recording.

    An unreadable cassette is not "missing" (its file exists), so `--missing` would skip it: those
    cases are named with `--case`, which records them whatever their file holds.
    """
    unusable = _unusable_folder(result.model, replays, cassettes, suite_path)
    if unusable is not None:
        return unusable
    redo = _to_record(result.cases)
    bad = replays[-1].unreadable if replays else []
    parts = _needs(redo, bad)
    if not parts:
        return None
    fixes = [resume_command([result.model], None, cassettes, suite_path, [])] if redo else []
    if bad:
        fixes.append(resume_command([result.model], None, cassettes, suite_path, bad, missing=False))
    return f"{result.model}: " + "; ".join(parts) + ". Record them with: " + " && ".join(fixes)


def _unusable_folder(
    model: str, replays: list[ReplayModel], cassettes: Path, suite_path: Path | None
) -> str | None:
    """The line of a model folder no case of which can be re-judged, or None: one of another major
    suite version is judged with that suite; an unusable manifest goes, its cassettes stay."""
    from lobrec.cassette.layout import MANIFEST

    other = next((replay for replay in replays if replay.other_major), None)
    if other is not None:
        return f"{model}: {other_major_advice(other)}"
    unusable = [replay.directory for replay in replays if replay.problem is not None]
    if not unusable:
        return None
    fix = resume_command([model], None, cassettes, suite_path, [])
    manifest = unusable[-1] / MANIFEST
    return (
        f"{model}: no case can be re-judged ({manifest} cannot be used). "
        f"Remove {manifest}, then record it again with: {fix}"
    )


def _repeated_summary(
    result: ModelRuns, replays: list[ReplayModel], cassettes: Path, suite_path: Path | None
) -> list[str]:
    """The runs of a repeated model that need recording, one part per run, and one command for all.

    `--repeat K --missing` records what is unrecorded or stale in any run and never rewrites a
    recorded cassette, so an unreadable cassette (or a run's unusable manifest) is named to be
    removed first: it is then unrecorded (every case of a run without a manifest is), and the same
    command records it. Nothing else is named: repair advice never removes healthy data.
    """
    folders = {replay.run: replay for replay in replays}
    parts: list[str] = []
    remove: list[str] = []
    others: list[str] = []
    for run in result.runs:
        _run_parts(run.run, folders.get(run.run), run.cases, parts, remove, others)
    lines = [f"{result.model} ({result.k} runs): {other}" for other in others]
    if not parts:
        return lines
    fix = resume_command([result.model], None, cassettes, suite_path, []) + f" --repeat {result.k}"
    then = f"Remove {', '.join(remove)}, then record them with" if remove else "Record them with"
    return [*lines, f"{result.model} ({result.k} runs): " + "; ".join(parts) + f". {then}: {fix}"]


def other_major_advice(replay: ReplayModel) -> str:
    """What to do with a folder recorded on another major suite version: judge it with a suite of
    that version, never remove or record anything (the recording is whole)."""
    recorded = replay.other_major or ""
    major = recorded.split(".")[0]
    return (
        f"{replay.problem}. Nothing needs recording: judge it with suite {recorded} or another "
        f"{major}.x (--suite FILE), or with a lobrec whose bundled suite is {major}.x "
        "(lobrec --version names it)"
    )


def _run_parts(
    number: int,
    replay: ReplayModel | None,
    cases: list[CaseResult],
    parts: list[str],
    remove: list[str],
    others: list[str],
) -> None:
    """Add what run `number` needs to `parts`, the files to remove first to `remove`, and the
    advice for a run recorded on another major suite version (nothing to record) to `others`."""
    from lobrec.cassette.layout import MANIFEST

    if replay is not None and replay.absent:
        parts.append(f"run {number} not recorded")
        return
    if replay is not None and replay.other_major:
        others.append(f"run {number}: {other_major_advice(replay)}")
        return
    if replay is not None and replay.problem is not None:
        parts.append(f"run {number}: no case can be re-judged ({replay.problem})")
        remove.append(str(replay.directory / MANIFEST))  # never the folder: its cassettes, and
        # for run 1 every other run's, are healthy
        return
    bad = [] if replay is None else replay.unreadable
    parts.extend(_needs(_to_record(cases), bad, f"run {number}: "))
    if replay is not None:
        remove.extend(str(replay.directory / f"{case_id}.json") for case_id in bad)


def _to_record(cases: list[CaseResult]) -> list[str]:
    """The ids of the cases a `record --missing` would record: stale or unrecorded."""
    return [case.id for case in cases if case.status in ("stale", "unrecorded")]


def _needs(redo: list[str], bad: list[str], prefix: str = "") -> list[str]:
    """What a model (or one of its runs, `prefix`) needs: cases to record, unreadable cassettes."""
    parts = [f"{prefix}{len(redo)} stale or unrecorded ({', '.join(redo)})"] if redo else []
    if bad:
        parts.append(f"{prefix}{len(bad)} unreadable ({', '.join(bad)})")
    return parts

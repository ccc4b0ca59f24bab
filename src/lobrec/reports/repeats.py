"""Repeated runs in the reports: the leaderboard's extra columns and the per-run lines, shared by the
terminal, Markdown and HTML reports so the three say the same.

Nothing changes for a run where every model was recorded once: `leaderboard_columns` is then the
plain `LEADERBOARD`. With any model recorded K > 1 times, Overall shows the mean over runs ± the
sample standard deviation (in percentage points), and two columns follow it: Runs (K) and pass^K
(the cases passed in every run, of those scored in all of them; a dash for a model recorded once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from lobrec.core.metrics.compare import RATE_METRICS
from lobrec.core.metrics.repeats import case_verdict
from lobrec.core.metrics.results import CaseResult, CaseRuns, ModelResult, Rate, RunOutcome, RunResult
from lobrec.core.metrics.runs import ModelRuns, runs_of
from lobrec.core.metrics.runs import run_cases as run_cases
from lobrec.core.words import counted
from lobrec.reports._format import DASH, fixed, percent, points, rate_counts
from lobrec.reports.leaderboard import LEADERBOARD, Column

REPEATS_KEY = (
    "Overall with repeats: mean over runs ± sample sd (pp) · "
    "pass^K: cases passed in every one of the K runs · rate counts add up every run"
)
"""The line added under a leaderboard that has repeated models."""


def any_repeats(run: RunResult) -> bool:
    return any(model.run_count > 1 for model in run.models)


def overall_cell(model: ModelResult) -> str:
    """`98.8% ± 1.3` for a repeated model (sd in pp; no sd when fewer than two runs scored), else
    the plain rate."""
    text = percent(model.metrics.overall.rate if model.has_scores else None)
    spread = runs_of(model).spread.get("overall")  # one run has no sd
    sd = None if spread is None or not model.has_scores else spread.sd
    return text if sd is None else f"{text} ± {fixed(sd)}"


def runs_tally(entry: CaseRuns, runs: int) -> str:
    """A case's k of K where every run was scored (`2/3`); else k of the scored runs, of K
    (`2/2 of 3`), so a run that was not scored never reads as a failed one."""
    return f"{entry.passes}/{runs}" if entry.scored == runs else f"{entry.passes}/{entry.scored} of {runs}"


def unscored_runs(entry: CaseRuns) -> str:
    """The runs of a case that were not scored, by why, in words (`1 unrecorded, 1 errored`; empty
    when every run was scored)."""
    tally: dict[str, int] = {}
    for outcome in entry.outcomes:
        if outcome not in ("passed", "failed"):
            tally[outcome] = tally.get(outcome, 0) + 1
    return ", ".join(f"{count} {outcome}" for outcome, count in tally.items())


def unscored_which(entry: CaseRuns) -> str:
    """Which runs were not scored, for a hover: `run 1 unrecorded, run 3 errored`."""
    return ", ".join(
        f"run {number} {outcome}"
        for number, outcome in enumerate(entry.outcomes, start=1)
        if outcome not in ("passed", "failed")
    )


def rate_with_counts(rate: Rate) -> str:
    """`97.5% (78/80)`, or a dash when there was nothing to rate."""
    return DASH if rate.total == 0 else f"{percent(rate.rate)} ({rate_counts(rate)})"


def pass_hat_cell(model: ModelResult) -> str:
    """pass^K with its counts, or a dash for a model recorded once (its pass^1 is its overall)."""
    runs = runs_of(model)
    return rate_with_counts(runs.pass_hat_k) if runs.repeated else DASH


def leaderboard_columns(run: RunResult) -> tuple[Column, ...]:
    """`LEADERBOARD`, or with repeats: Overall as mean ± sd, then Runs and pass^K."""
    if not any_repeats(run):
        return LEADERBOARD
    extra = (
        Column("runs", "Runs", lambda model: str(model.run_count), sort=_run_count, first="desc"),
        Column("pass_k", "pass^K", pass_hat_cell, sort=_pass_hat_rate, first="desc"),
    )
    columns = []
    for column in LEADERBOARD:
        if column.key == "overall":
            columns.extend([replace(column, value=overall_cell), *extra])
        else:
            columns.append(column)
    return tuple(columns)


def _run_count(model: ModelResult) -> int:
    return model.run_count


def _pass_hat_rate(model: ModelResult) -> float | None:
    runs = runs_of(model)
    return runs.pass_hat_k.rate if runs.repeated else None


def runs_by_case(model: ModelResult) -> list[tuple[str, list[CaseResult | None]]]:
    """Each case (run 1's order, then any only later runs have) with its result in every run, run 1
    first; None where a run does not hold the case."""
    return [(entry.id, results) for entry, results in runs_of(model).by_case()]


def run_verdicts(outcomes: Sequence[RunOutcome]) -> str:
    """`run 1 passed, run 2 failed, run 3 failed`, with `flaky (passed 1 of 3 scored runs): ` in
    front when the case is flaky (`case_verdict`)."""
    text = ", ".join(f"run {number} {outcome}" for number, outcome in enumerate(outcomes, start=1))
    if case_verdict(outcomes) == "flaky":
        passes, scored = outcomes.count("passed"), outcomes.count("passed") + outcomes.count("failed")
        return f"flaky (passed {passes} of {scored} scored runs): {text}"
    return text


def spread_rows(runs: ModelRuns) -> list[tuple[str, list[str], list[str]]]:
    """Per rate: (label, each run's rate, [mean, min, max, sd]) as text, in the leaderboard's order."""
    rows = []
    for metric, label, lower in RATE_METRICS:
        per_run = [
            percent(getattr(entry.metrics, metric).rate if entry.has_scores else None) for entry in runs.runs
        ]
        figure = runs.spread[metric]
        summary = [
            percent(figure.mean),
            percent(figure.min),
            percent(figure.max),
            DASH if figure.sd is None else points(figure.sd),
        ]
        rows.append((label + (" ↓" if lower else ""), per_run, summary))
    return rows


def interval_text(rate: Rate) -> str:
    return "" if rate.ci95 is None else f", 95% interval {fixed(rate.ci95[0])}–{fixed(rate.ci95[1])}%"


def repeats_lines(model: ModelResult) -> list[str]:
    """A repeated model in words: its runs' overall rates, the spread, pass^K, pass@K, flaky cases
    (all of them: the terminal shortens lists itself). Names are not yet quoted."""
    repeats = runs_of(model)
    if not repeats.repeated:
        return []
    k = repeats.k
    figure = repeats.spread["overall"]
    runs = ", ".join(
        f"{percent(entry.metrics.overall.rate if entry.has_scores else None)}" for entry in repeats.runs
    )
    sd = DASH if figure.sd is None else points(figure.sd)
    lines = [
        f"{k} runs; overall per run {runs}; mean {percent(figure.mean)}, min {percent(figure.min)}, "
        f"max {percent(figure.max)}, sd {sd}",
        f"pass^{k} {rate_with_counts(repeats.pass_hat_k)}{interval_text(repeats.pass_hat_k)}; "
        f"pass@{k} {rate_with_counts(repeats.pass_at_k)}{interval_text(repeats.pass_at_k)}",
    ]
    incomplete = sum(case.scored < k for case in repeats.cases)
    if incomplete:
        lines.append(
            f"{counted(incomplete, 'case')} not scored in every run (left out of pass^{k} and pass@{k})"
        )
    return lines


def unrecorded_run(cases: list[CaseResult]) -> bool:
    """Every case of the run is unrecorded (its folder is missing): said in words, not listed."""
    return bool(cases) and all(case.status == "unrecorded" for case in cases)

"""The case-by-case view the exports render: JUnit, CSV and JSON Lines, and the job summary's lists.

The report view (`view.py`) says what a reader of the leaderboard needs; these formats go case by
case instead, so they take this sibling view: each model's cases over its runs (one per case, run
1's order first: JUnit's testcases, the summary's failing cases) and run by run (one per case in
each run: the export rows). It is built once from `core.runs.runs_of`, so no format asks whether a
model was repeated to find its runs, and each case carries its group as the metrics count it (the
suite's, else the one in the results).
"""

from __future__ import annotations

from dataclasses import dataclass

from lobrec.core.metrics.results import CaseResult, RunOutcome, RunResult
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite


@dataclass(frozen=True)
class CaseOverRuns:
    """One case of a model over its K runs."""

    id: str
    group: str
    """The suite's group for the case, else the group stored with the first run that holds it."""
    outcomes: list[RunOutcome]
    """Each run's outcome, run 1 first."""
    judged: tuple[tuple[int, CaseResult], ...]
    """(run number, the case's result in that run), for each run that holds it."""
    repeated: bool
    """The model was recorded more than once (messages then name each run)."""


@dataclass(frozen=True)
class RunCase:
    """One case as one run holds it."""

    run: int
    case: CaseResult
    group: str


@dataclass(frozen=True)
class ModelCases:
    name: str
    repeated: bool
    cases: tuple[CaseOverRuns, ...]
    """Each case over the runs, run 1's order first, then cases only later runs hold."""
    by_run: tuple[RunCase, ...]
    """Run 1's cases as stored, then run 2's, ..."""


@dataclass(frozen=True)
class CasesView:
    suite_name: str
    suite_version: str
    models: tuple[ModelCases, ...]
    """In the results file's order (`view.ModelView.place` indexes it)."""


def case_group(suite: Suite, case: CaseResult) -> str:
    """The suite's group for the case (as the metrics count it), else the one in the results."""
    known = suite.case(case.id)
    return known.group if known is not None else case.group


def cases_view(run: RunResult, suite: Suite) -> CasesView:
    models = []
    for model in run.models:
        runs = runs_of(model)
        cases = []
        for entry, results in runs.by_case():
            judged = tuple((number, case) for number, case in enumerate(results, start=1) if case is not None)
            group = case_group(suite, judged[0][1])
            cases.append(CaseOverRuns(entry.id, group, list(entry.outcomes), judged, runs.repeated))
        by_run = tuple(
            RunCase(entry.run, case, case_group(suite, case)) for entry in runs.runs for case in entry.cases
        )
        models.append(ModelCases(model.model, runs.repeated, tuple(cases), by_run))
    return CasesView(run.suite.name, run.suite.version, tuple(models))

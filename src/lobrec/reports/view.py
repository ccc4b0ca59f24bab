"""One view of a results entry, built once by `report_view`, that every report format renders.

The terminal, Markdown and HTML reports used to derive the same facts each on its own (the cases to
re-record three times, the notes, the columns), and the copies drifted. Here each fact is derived
once, as plain data: frozen dataclasses of strings, numbers and the results' own Structs, no
markup and no I/O. A format picks what it shows (columns by `key`) and adds its own markup.

Outside text (model names, case ids, reasons, the names a gateway gave) is held as it was written:
each format cleans every string it prints with its own escaping (the terminal with `printable`,
Markdown with `md`, HTML by autoescaping), all three built on `reports/_text.py`'s one rule. The
sentences here contain outside text the same way, so a format escapes them whole.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from lobrec.core.judge.failures import FAILURE_KINDS, kind_label
from lobrec.core.metrics.rates import COST_DECIMALS
from lobrec.core.metrics.repeats import CaseVerdict, case_verdict, run_verdict
from lobrec.core.metrics.results import (
    CaseResult,
    CaseRuns,
    ModelResult,
    Rate,
    RoutedCase,
    RunResult,
)
from lobrec.core.metrics.runs import ModelRuns, runs_of
from lobrec.core.suite.format import ordered_groups
from lobrec.reports._format import DASH, KEY, fixed, group_label, provenance
from lobrec.reports.insight import (
    ROUTING_HEADER,
    TIER,
    failure_rows,
    has_tiers,
    kinds_text,
    resolution_line,
    routing_notes,
    routing_rows,
    tier_key,
)
from lobrec.reports.leaderboard import (
    Column,
    count_line,
    group_cell,
    model_notes,
    needs_recording,
    no_scores_note,
    ranked,
)
from lobrec.reports.quirks import quirks_note
from lobrec.reports.repeats import (
    REPEATS_KEY,
    any_repeats,
    leaderboard_columns,
    repeats_lines,
    runs_tally,
    spread_rows,
    unrecorded_run,
    unscored_runs,
    unscored_which,
)
from lobrec.reports.suite_changes import SuiteChangesView, suite_changes_view

# --- the leaderboard -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    """A leaderboard column as a format needs it: looked up by `key`, shown as `label`."""

    key: str
    label: str
    numeric: bool
    count: bool
    """A case count (Scored, Errored, Stale): a narrow terminal prints these below the table."""
    metric: str | None
    """The `Metrics` field of a rate column."""
    first: str
    """`asc` or `desc`: the order of a first sort, best first."""
    text_sort: bool


@dataclass(frozen=True)
class Cell:
    """One model's value in one column: the text shown, the exact value it sorts by, and for a
    rate of a model with scores the `Rate` itself (its counts and 95% interval)."""

    text: str
    sort: float | str | None
    rate: Rate | None = None


# --- per model -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseList:
    """A labelled list of case ids (`failing`, `errored in some run`)."""

    label: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class PricedCost:
    """When unpriced calls hide a model's cost: how many were unpriced, and what the scored cases'
    priced calls cost per 100 cases (None when none was priced): a lower bound."""

    unpriced: int
    priced_calls: int
    per_100_usd: float | None


@dataclass(frozen=True)
class SpreadRow:
    """One rate of a repeated model: each run's value, then mean, min, max and sd, as text."""

    label: str
    per_run: tuple[str, ...]
    summary: tuple[str, ...]


@dataclass(frozen=True)
class RoutingTable:
    """One run of a routed model: its heading line and rows (Nex, each candidate, direct, oracle)."""

    heading: str
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class MatrixCell:
    """A model's verdict on one case, as the case matrix shows it.

    `status` is the case's verdict over the runs (`case_verdict`, the worst of them), the one every
    format says; `run_statuses` is each run's own, run 1 first (one entry for a model recorded once)."""

    status: CaseVerdict
    run_statuses: tuple[CaseVerdict, ...]
    tally: str | None = None
    """A repeated model's `k/K` (or `0 of K scored`); None for a model recorded once (its cell
    shows the verdict's word)."""
    passes: int = 0
    scored: int = 0
    """The runs in which the case passed, and those in which it was scored."""
    unscored: str = ""
    """The runs not scored, by why (`1 unrecorded`); empty when every run was scored."""
    unscored_which: str = ""
    """Which runs were not scored (`run 3 errored`), for a hover."""
    results: tuple[CaseResult | None, ...] = ()
    """Each run's result for the case (None where a run does not hold it), for a drill-down."""


@dataclass(frozen=True)
class ModelView:
    """Everything the reports say about one model."""

    name: str
    place: int
    """Its index in the results file (stable when the ranking changes: the HTML cell ids use it)."""
    has_scores: bool
    tier: int | None
    runs: int
    cells: tuple[Cell, ...]
    """One per `ReportView.headings`, in order."""
    count_line: str
    notes: tuple[str, ...]
    """No scores, temperature dropped, who answered."""
    quirks: tuple[str, ...]
    unpriced_calls: tuple[str, ...]
    """The unpriced calls that hide the cost (empty when the cost is shown)."""
    priced_cost: PricedCost | None
    repeats: tuple[str, ...]
    """A repeated model in words: runs, spread, pass^K and pass@K, incomplete cases."""
    flaky: tuple[str, ...] | None
    """The flaky cases of a repeated model; None for a model recorded once."""
    spread: tuple[SpreadRow, ...]
    failing: tuple[CaseList, ...]
    """Failing and errored cases (over runs: failing in every run, errored in some run)."""
    errored: tuple[tuple[str, str], ...]
    """Run 1's errored cases with their reasons."""
    failure_kinds: str | None
    """`40 failed steps: needless call 10, ...`, or None without failed steps."""
    routing: tuple[RoutingTable, ...]
    routing_notes: tuple[str, ...]
    routed_cases: tuple[RoutedCase, ...] | None = None
    """Run 1's cases through Nex (what it chose, each verdict); None for a model not routed."""
    model_runs: ModelRuns | None = field(default=None, repr=False, compare=False)
    """The runs the matrix is read from."""

    @functools.cached_property
    def matrix(self) -> dict[str, MatrixCell]:
        """Each case id the model has (any run) with its verdict: built when a report shows it (the
        HTML), not for every leaderboard (8,000 cells at 100 models)."""
        return {} if self.model_runs is None else _matrix(self.model_runs)

    def cell(self, headings: Sequence[Heading], key: str) -> Cell:
        """This model's cell in the column `key`."""
        return self.cells[[heading.key for heading in headings].index(key)]


# --- the rest ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupRow:
    """One group: its label and each model's overall rate on it (ranked order)."""

    group: str
    label: str
    cells: tuple[str, ...]
    rates: tuple[Rate | None, ...]
    """Each model's overall `Rate` on the group; None when it has none to show."""


@dataclass(frozen=True)
class Rerecord:
    """One run of a model with cases to record; `missing` when the whole run was never recorded."""

    model: str
    run: int
    stale: tuple[str, ...]
    unrecorded: tuple[str, ...]
    missing: bool = False


@dataclass(frozen=True)
class PlotPoint:
    model: str
    cost_usd: float
    rate: float
    ci95: tuple[float, float] | None


@dataclass(frozen=True)
class ReportView:
    """A results entry as the reports show it, models best first."""

    suite_name: str
    suite_version: str
    provenance: str
    case_count: int | None
    """The most cases any model has; None without models."""
    key: tuple[str, ...]
    """The lines under the leaderboard that explain its marks (the tier line last, when there is one)."""
    tier_key: str
    """What a tier means and what the run can resolve (`insight.tier_key`); empty for one model."""
    repeats: bool
    tiers: bool
    headings: tuple[Heading, ...]
    """Every leaderboard column (Tier and the overall interval included): formats pick by key."""
    models: tuple[ModelView, ...]
    groups: tuple[GroupRow, ...]
    rerecord: tuple[Rerecord, ...]
    """Run 1 of each model first (best model first), then runs 2..K."""
    failure_header: tuple[str, ...]
    failure_rows: tuple[tuple[str, ...], ...]
    resolution: str
    routing_header: tuple[str, ...]
    plot: tuple[PlotPoint, ...]
    not_plotted: tuple[tuple[str, str], ...]
    """(model, why) for the models without both a score and a cost."""
    suite_changes: SuiteChangesView | None
    results_format: int
    kinds: tuple[tuple[str, str], ...] = ()
    """(kind, its short label) for every failure kind some model has, in precedence order."""
    case_kinds: dict[str, str] = field(default_factory=dict)
    """Per case, the failure kinds of its failed steps over every model and run, space-separated in
    precedence order (what the HTML matrix's kind filter matches a row by)."""
    """The results file's format version (the HTML footer says it)."""

    def group_cell(self, model: int, group: str) -> str:
        """The cell of the `model`-th model (ranked) on `group`: a dash for a group it has no rate on."""
        found = next((row for row in self.groups if row.group == group), None)
        return DASH if found is None else found.cells[model]

    def columns(self, *, without: Sequence[str] = ()) -> list[Heading]:
        """The leaderboard's columns, less the keys in `without`."""
        return [heading for heading in self.headings if heading.key not in without]

    def row(self, model: ModelView, headings: Sequence[Heading]) -> list[Cell]:
        """`model`'s cells in the columns `headings`."""
        return [model.cell(self.headings, heading.key) for heading in headings]


# --- building it ---------------------------------------------------------------------------------


def _interval(model: ModelResult) -> str:
    low_high = model.metrics.overall.ci95
    if not model.has_scores or low_high is None:
        return DASH
    low, high = low_high
    return f"{fixed(low)}–{fixed(high)}"


def _interval_low(model: ModelResult) -> float | None:
    low_high = model.metrics.overall.ci95
    return None if not model.has_scores or low_high is None else low_high[0]


INTERVAL = Column("interval", "Overall 95% CI", _interval, sort=_interval_low, first="desc")
"""The overall rate's 95% interval: at 80 cases it spans about 20 points, which a reader must see."""


def report_view(run: RunResult) -> ReportView:
    """The view of `run`: every fact the reports show, derived once."""
    columns = _columns(run)
    models = ranked(run)
    every = [runs_of(model) for model in models]
    header, rows = failure_rows(run)
    return ReportView(
        suite_name=run.suite.name,
        suite_version=run.suite.version,
        provenance=provenance(run),
        case_count=max((len(model.cases) for model in models), default=None),
        key=_key(run),
        tier_key=tier_key(run),
        repeats=any_repeats(run),
        tiers=has_tiers(run),
        headings=tuple(_heading(column) for column in columns),
        models=_model_views(run, models, every, columns),
        groups=_groups(models),
        rerecord=_rerecord(every),
        failure_header=tuple(header),
        failure_rows=tuple(tuple(row) for row in rows),
        resolution=resolution_line(run),
        routing_header=tuple(ROUTING_HEADER),
        plot=_plot(models),
        not_plotted=_not_plotted(models),
        suite_changes=None if run.suite_changes is None else suite_changes_view(run.suite_changes),
        results_format=run.results_format,
        kinds=_kinds(run),
        case_kinds=_case_kinds(every),
    )


def _key(run: RunResult) -> tuple[str, ...]:
    """The key's lines: the leaderboard's, then the repeats' and the tiers' when the run has them."""
    return tuple(line for line in (KEY, REPEATS_KEY if any_repeats(run) else "", tier_key(run)) if line)


def _model_views(
    run: RunResult, models: list[ModelResult], every: list[ModelRuns], columns: list[Column]
) -> tuple[ModelView, ...]:
    """Each ranked model's view, with its place in the run's own order."""
    places = {id(model): index for index, model in enumerate(run.models)}
    return tuple(
        _model_view(model, runs, places[id(model)], columns)
        for model, runs in zip(models, every, strict=True)
    )


def _plot(models: list[ModelResult]) -> tuple[PlotPoint, ...]:
    """The points of the score-against-cost plot: every model `_plotted` keeps."""
    return tuple(_plot_point(model) for model in models if _plotted(model) is None)


def _kinds(run: RunResult) -> tuple[tuple[str, str], ...]:
    present = {kind for model in run.models for kind in model.failures}
    return tuple((kind, kind_label(kind)) for kind in FAILURE_KINDS if kind in present)


def _case_kinds(models: list[ModelRuns]) -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for model in models:
        for run in model.runs:
            for result in run.cases:
                kinds = {step.failure_kind for step in result.steps if step.failure_kind is not None}
                if kinds:
                    found.setdefault(result.id, set()).update(kinds)
    return {case: " ".join(k for k in FAILURE_KINDS if k in kinds) for case, kinds in found.items()}


def _columns(run: RunResult) -> list[Column]:
    """Every leaderboard column: Tier after Model (when the run has tiers), the overall interval
    after Overall."""
    columns: list[Column] = []
    for column in leaderboard_columns(run):
        columns.append(column)
        if column.key == "model" and has_tiers(run):
            columns.append(TIER)
        if column.key == "overall":
            columns.append(INTERVAL)
    return columns


def _heading(column: Column) -> Heading:
    return Heading(
        key=column.key,
        label=column.label,
        numeric=column.numeric,
        count=column.count,
        metric=column.metric,
        first=column.first,
        text_sort=column.text_sort,
    )


def _cell(column: Column, model: ModelResult) -> Cell:
    rate: Rate | None = None
    if column.metric is not None and model.has_scores:
        rate = getattr(model.metrics, column.metric)
    return Cell(column.value(model), column.sort_value(model), rate)


def _model_view(model: ModelResult, runs: ModelRuns, place: int, columns: list[Column]) -> ModelView:
    return ModelView(
        name=model.model,
        place=place,
        has_scores=model.has_scores,
        tier=model.tier,
        runs=model.run_count,
        cells=tuple(_cell(column, model) for column in columns),
        count_line=count_line(model),
        notes=tuple(model_notes(model, str)),
        quirks=tuple(quirks_note(model)),
        unpriced_calls=_unpriced(model),
        priced_cost=priced_cost(model, runs),
        repeats=tuple(repeats_lines(model)),
        flaky=tuple(runs.flaky) if runs.repeated else None,
        spread=_spread(runs),
        failing=_failing(runs),
        errored=tuple(
            (case.id, case.reason or "no reason recorded") for case in model.cases if case.status == "errored"
        ),
        failure_kinds=kinds_text(model) if model.failures else None,
        routing=_routing(model),
        routing_notes=() if model.routing is None else tuple(routing_notes(model)),
        routed_cases=None if model.routing is None else tuple(model.routing.cases),
        model_runs=runs,
    )


def _spread(runs: ModelRuns) -> tuple[SpreadRow, ...]:
    """Each rate over the runs, for a model recorded more than once."""
    if not runs.repeated:
        return ()
    return tuple(SpreadRow(label, tuple(each), tuple(summary)) for label, each, summary in spread_rows(runs))


def _routing(model: ModelResult) -> tuple[RoutingTable, ...]:
    if model.routing is None:
        return ()
    return tuple(RoutingTable(heading, tuple(map(tuple, rows))) for heading, rows in routing_rows(model))


def _unpriced(model: ModelResult) -> tuple[str, ...]:
    calls = model.metrics.unpriced_calls
    if model.metrics.cost_per_100_cases_usd is not None:
        return ()
    return tuple(calls)


def priced_cost(model: ModelResult, runs: ModelRuns) -> PricedCost | None:
    """When unpriced calls hide a scored model's cost: what its scored cases' priced calls cost.

    The leaderboard's dash stays (no true total is known); this is the figure that is known, a
    lower bound, and how many calls were unpriced.
    """
    unpriced = len(model.metrics.unpriced_calls)
    if model.metrics.cost_per_100_cases_usd is not None or not model.has_scores or not unpriced:
        return None
    priced = _priced_calls(runs)
    per_100 = round(math.fsum(priced) / model.counts.scored * 100, COST_DECIMALS) if priced else None
    return PricedCost(unpriced, len(priced), per_100)


def _priced_calls(runs: ModelRuns) -> list[float]:
    """The costs of the priced calls of the scored cases, every run."""
    scored = [case for run in runs.runs for case in run.cases if case.status == "scored"]
    costs = [call.cost_usd for case in scored for call in case.api_calls]
    return [usd for usd in costs if usd is not None and math.isfinite(usd)]


def _failing(runs: ModelRuns) -> tuple[CaseList, ...]:
    """The cases whose verdict over the runs is fail, then errored (`case_verdict`: the flaky ones
    are listed with the repeated runs); worded for one run or several."""
    labels = verdict_labels(runs.repeated)
    verdicts = [(case.id, case_verdict(case.outcomes)) for case in runs.cases]
    listed: tuple[CaseVerdict, ...] = ("fail", "errored")
    lists = [(labels[verdict], [case for case, said in verdicts if said == verdict]) for verdict in listed]
    return tuple(CaseList(label, tuple(ids)) for label, ids in lists if ids)


def verdict_labels(repeated: bool) -> dict[CaseVerdict, str]:
    """How the lists of cases name a verdict, for one run or several (`failing in every run`)."""
    if not repeated:
        return {"fail": "failing", "errored": "errored"}
    return {"fail": "failing in every run", "flaky": "flaky", "errored": "errored in some run"}


def _groups(models: list[ModelResult]) -> tuple[GroupRow, ...]:
    rows = []
    for group in ordered_groups(name for model in models for name in model.groups):
        rates = []
        for model in models:
            metrics = model.groups.get(group)
            rates.append(None if metrics is None or metrics.overall.rate is None else metrics.overall)
        rows.append(
            GroupRow(
                group=group,
                label=group_label(group),
                cells=tuple(group_cell(model, group) for model in models),
                rates=tuple(rates),
            )
        )
    return tuple(rows)


def _rerecord(models: list[ModelRuns]) -> tuple[Rerecord, ...]:
    """Every run with cases to record: run 1 of each model first (best model first), then the
    later runs; a later run never recorded at all is `missing`."""
    found = [
        Rerecord(model.model, number, stale, unrecorded, number > 1 and unrecorded_run(cases))
        for model in models
        for number, cases in enumerate(model.run_cases(), start=1)
        for stale, unrecorded in [needs_recording(cases)]
        if stale or unrecorded
    ]
    return tuple(sorted(found, key=lambda entry: entry.run > 1))


def _not_plotted(models: list[ModelResult]) -> tuple[tuple[str, str], ...]:
    found = [(model.model, _plotted(model)) for model in models]
    return tuple((name, why) for name, why in found if why is not None)


def _plotted(model: ModelResult) -> str | None:
    """Why a model is not on the score-against-cost plot; None when it is."""
    usd = model.metrics.cost_per_100_cases_usd
    if not model.has_scores or model.metrics.overall.rate is None:
        return no_scores_note(model.counts)
    if usd is None or not math.isfinite(usd):
        return "no cost: a call was unpriced"
    return None


def _plot_point(model: ModelResult) -> PlotPoint:
    rate, usd = model.metrics.overall.rate, model.metrics.cost_per_100_cases_usd
    assert rate is not None and usd is not None
    return PlotPoint(model.model, usd, rate, model.metrics.overall.ci95)


# --- the case matrix -----------------------------------------------------------------------------


def _matrix(runs: ModelRuns) -> dict[str, MatrixCell]:
    return {entry.id: _matrix_cell(runs, entry, results) for entry, results in runs.by_case()}


def _matrix_cell(runs: ModelRuns, entry: CaseRuns, results: list[CaseResult | None]) -> MatrixCell:
    k = runs.k
    return MatrixCell(
        status=case_verdict(entry.outcomes),
        run_statuses=tuple(map(run_verdict, results)),
        tally=(runs_tally(entry, k) if entry.scored else f"0 of {k} scored") if runs.repeated else None,
        passes=entry.passes,
        scored=entry.scored,
        unscored=unscored_runs(entry),
        unscored_which=unscored_which(entry),
        results=tuple(results),
    )

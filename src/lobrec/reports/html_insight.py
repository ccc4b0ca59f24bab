"""What a score means, for the HTML report: failure kinds per model, the tiers and the run's
resolution, and `auto`'s routing (per run against its candidates and the oracle, per case its
choices). The rows come from the report view, as the terminal and Markdown reports show them;
here they are shaped for `templates/_insight.html.j2`, outcomes as the matrix's statuses."""

from __future__ import annotations

from dataclasses import dataclass

from lobrec.core.metrics.repeats import CaseVerdict, case_verdict
from lobrec.core.metrics.results import RoutedCase, RunOutcome
from lobrec.reports.view import ReportView, RoutingTable


def outcome_status(outcome: RunOutcome | None) -> CaseVerdict:
    """A run outcome as the matrix says it (`case_verdict`); None, a model not recorded, `unrecorded`."""
    return case_verdict([outcome or "unrecorded"])


@dataclass(frozen=True)
class RoutedRow:
    """One case through Nex: its choices with each one's own verdict, Nex's, the best candidate's."""

    case_id: str
    nex: CaseVerdict
    chosen: list[tuple[str, CaseVerdict]]
    """(model, its own verdict on the case)."""
    best: str | None
    best_status: CaseVerdict


def _routed_row(case: RoutedCase) -> RoutedRow:
    chosen = [(name, outcome_status(case.chosen_outcomes.get(name))) for name in case.chosen]
    return RoutedRow(
        case.id, outcome_status(case.outcome), chosen, case.best, outcome_status(case.best_outcome)
    )


@dataclass(frozen=True)
class RoutingView:
    model: str
    runs: list[tuple[str, list[list[str]]]]
    """Per run: its heading, rows of Nex, each candidate, Nex's choices answered directly, the oracle."""
    notes: list[str]
    cases: list[RoutedRow]


@dataclass(frozen=True)
class Insight:
    kinds_header: list[str]
    kinds_rows: list[list[str]]
    resolution: str
    routing: list[RoutingView]
    routing_header: list[str]

    @property
    def empty(self) -> bool:
        return not (self.kinds_rows or self.resolution or self.routing)


def _routing_run(table: RoutingTable) -> tuple[str, list[list[str]]]:
    return table.heading[0].upper() + table.heading[1:], list(map(list, table.rows))


def insight(view: ReportView) -> Insight:
    routing = [
        RoutingView(
            model.name,
            list(map(_routing_run, model.routing)),
            list(model.routing_notes),
            list(map(_routed_row, model.routed_cases)),
        )
        for model in view.models
        if model.routed_cases is not None
    ]
    return Insight(
        list(view.failure_header),
        list(map(list, view.failure_rows)),
        view.resolution,
        routing,
        list(view.routing_header),
    )

"""The leaderboard's rules, which the report view applies: its columns (each a stable key, a
heading and how to get a model's text and sort value), the ranking (best overall rate first,
models without scores last), the re-record rule, and the sentences that explain a model's row.

They decide what the view holds, not how a format prints it: the formats take them through
`view.report_view`, never from here. Numbers are written by `_format`, so every format agrees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from lobrec.core.metrics.compare import RATE_METRICS
from lobrec.core.metrics.results import CaseResult, Counts, Metrics, ModelResult, Rate, RunResult
from lobrec.core.words import counted
from lobrec.reports._format import DASH, cost, latency, percent, rate_counts
from lobrec.reports._text import printable

SortValue = float | str | None
"""What a column sorts a model by: a number, a text, or None for nothing to sort (last)."""


@dataclass(frozen=True)
class Column:
    """One leaderboard column: a stable `key` (what sorting, headings and formats look it up by;
    never the label, which may be reworded), its heading, and how to get its text from a model."""

    key: str
    label: str
    value: Callable[[ModelResult], str]
    numeric: bool = True
    metric: str | None = None
    """The `Metrics` field of a rate column (for its counts and interval)."""
    count: bool = False
    """A case count rather than a measure (a narrow terminal prints these below the table)."""
    sort: Callable[[ModelResult], SortValue] | None = None
    """The exact value the column sorts by; None sorts by the text shown."""
    first: Literal["asc", "desc"] = "asc"
    """The order of a first sort: the best first (highest rate, lowest cost, A to Z)."""

    def sort_value(self, model: ModelResult) -> SortValue:
        return self.value(model) if self.sort is None else self.sort(model)

    @property
    def text_sort(self) -> bool:
        """Sorted as text (A to Z) rather than as numbers."""
        return self.sort is None or not self.numeric


def rate_value(model: ModelResult, metric: str) -> float | None:
    """A rate of the model, or None when it has no scores (every rate is then a dash)."""
    rate: Rate = getattr(model.metrics, metric)
    return rate.rate if model.has_scores else None


def _rate_column(metric: str, label: str, lower: bool) -> Column:
    return Column(
        metric,
        label + (" ↓" if lower else ""),
        lambda model: percent(rate_value(model, metric)),
        metric=metric,
        sort=lambda model: rate_value(model, metric),
        first="asc" if lower else "desc",
    )


def _scored(model: ModelResult) -> str:
    return f"{model.counts.scored}/{model.counts.cases}"


def _scored_share(model: ModelResult) -> float | None:
    return model.counts.scored / model.counts.cases if model.counts.cases else None


def _stale(model: ModelResult) -> int:
    return model.counts.stale + model.counts.unrecorded


LEADERBOARD: tuple[Column, ...] = (
    Column("model", "Model", lambda model: model.model, numeric=False, sort=lambda model: model.model),
    *(_rate_column(metric, label, lower) for metric, label, lower in RATE_METRICS),
    Column(
        "latency",
        "p50 latency",
        lambda model: latency(model.metrics.latency_p50_ms),
        sort=lambda model: model.metrics.latency_p50_ms,
    ),
    Column(
        "cost",
        "Cost/100 cases",
        lambda model: cost(model.metrics.cost_per_100_cases_usd),
        sort=lambda model: model.metrics.cost_per_100_cases_usd,
    ),
    Column("scored", "Scored", _scored, count=True, sort=_scored_share, first="desc"),
    Column(
        "errored",
        "Errored",
        lambda model: str(model.counts.errored),
        count=True,
        sort=lambda model: model.counts.errored,
    ),
    Column("stale", "Stale", lambda model: str(_stale(model)), count=True, sort=_stale),
)
"""The leaderboard, left to right; a model name is outside text, cleaned by each format.
`Stale` counts stale and unrecorded cases: both need recording."""


def ranked(run: RunResult) -> list[ModelResult]:
    """Models best first by overall rate; models without scores last; ties keep the run's order."""

    def key(model: ModelResult) -> tuple[int, float]:
        rate = model.metrics.overall.rate
        if not model.has_scores or rate is None:
            return (1, 0.0)
        return (0, -rate)

    return sorted(run.models, key=key)


def count_line(model: ModelResult) -> str:
    """The counts for one model, in words."""
    counts = model.counts
    return (
        f"{counts.scored} of {counted(counts.cases, 'case')} scored; {counts.errored} errored, "
        f"{counts.stale} stale, {counts.unrecorded} unrecorded"
    )


def no_scores_note(counts: Counts) -> str:
    """Why a model has no scores, in words taken from its counts alone (the one home of this
    sentence): `every case errored` only when every case did; `8 cases errored, 72 not recorded`
    after a model that failed fast; `no case recorded` after a Ctrl-C before its first case."""
    kinds = [(counts.errored, "errored"), (counts.stale, "stale"), (counts.unrecorded, "not recorded")]
    present = [(count, word) for count, word in kinds if count]
    if not present:
        return "no scores: no case to judge"
    if len(present) == 1 and present[0][0] == counts.cases:
        word = present[0][1]
        return "no scores: no case recorded" if word == "not recorded" else f"no scores: every case {word}"
    listed = ", ".join(
        f"{counted(count, 'case') if index == 0 else count} {word}"
        for index, (count, word) in enumerate(present)
    )
    return f"no scores: {listed}"


def model_notes(model: ModelResult, quote: Callable[[str], str] = printable) -> list[str]:
    """Things a reader must know to read a model's row; `quote` makes gateway-given names safe."""
    notes = []
    if not model.has_scores:
        notes.append(no_scores_note(model.counts))
    if model.temperature_ignored:
        notes.append("temperature ignored (the API dropped it for this model)")
    if len(model.answered_by) > 1:
        parts = ", ".join(
            f"{quote(name)} ({count})"
            for name, count in sorted(model.answered_by.items(), key=lambda item: (-item[1], item[0]))
        )
        notes.append(f"calls answered by {parts}")
    return notes


def needs_recording(cases: Iterable[CaseResult]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ids of the cases to record again: (stale, unrecorded), in the run's order. The one rule
    behind every report's "Needs re-recording" list."""
    stale, unrecorded = [], []
    for case in cases:
        if case.status == "stale":
            stale.append(case.id)
        elif case.status == "unrecorded":
            unrecorded.append(case.id)
    return tuple(stale), tuple(unrecorded)


# --- groups --------------------------------------------------------------------------------------


def group_cell(model: ModelResult, group: str) -> str:
    """A model's overall rate on one group with its counts: `85.7% (12/14)`, or a dash."""
    metrics: Metrics | None = model.groups.get(group)
    if metrics is None or metrics.overall.total == 0:
        return DASH
    return f"{percent(metrics.overall.rate)} ({rate_counts(metrics.overall)})"

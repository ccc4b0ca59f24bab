"""Formatting shared by the terminal, Markdown and HTML reports, so the three always agree.

Every number a report shows goes through one function here: a rate with nothing to apply to is
a dash in all three, a cost has the same precision in all three, and the leaderboard has the same
columns in the same order. Text that came from a model or a gateway goes through `printable`
(`reports/_text.py`, the one rule for outside text) first, so a control character is shown, never
obeyed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple

from lobrec.core.compare import RATE_METRICS
from lobrec.core.results import CaseResult, Counts, Metrics, ModelResult, Rate, RunResult
from lobrec.core.suite import GROUPS
from lobrec.core.words import counted
from lobrec.reports._text import printable

DASH = "—"
LOWER_IS_BETTER_NOTE = "↓ lower is better"
GLOSSARY = "docs/reports.md#glossary"
"""Where every report sends a reader for its terms (tier, resolution, pass^K, Nex, the failure kinds)."""
KEY = (
    f"{LOWER_IS_BETTER_NOTE} · Stale counts stale and unrecorded cases · {DASH} nothing to rate · "
    f"terms: {GLOSSARY}"
)
"""The line under every leaderboard that explains its marks."""


def provenance(run: RunResult) -> str:
    """What judged the run and what recorded it, in every report: the suite's name, version and
    origin ("bundled" or the --suite path), lobrec's version, and the suite versions the cassettes
    were recorded with (from their manifests). Older results files lack some parts; they are left out."""
    suite = f"suite {run.suite.name} {run.suite.version}"
    if run.suite.source is not None:
        suite += f" ({run.suite.source})"
    line = f"Judged with {suite}" + (f" by lobrec {run.lobrec_version}" if run.lobrec_version else "")
    recorded = sorted({r.suite.version for model in run.models for r in model.recorded}, key=_version_key)
    if recorded:
        line += f"; cassettes recorded with suite {', '.join(recorded)}"
    return printable(line + ".")


def _version_key(version: str) -> tuple[int, ...]:
    from lobrec.core.suite import SEMVER, version_order

    return version_order(version) if SEMVER.match(version) else (-1,)


def fixed(value: float, places: int = 1) -> str:
    """`value` with `places` decimals, rounded half up (away from zero) on the number as written, as
    a spreadsheet rounds: 81.25 (13/16) is `81.3`, never the `81.2` of binary round-half-even. The
    one rounding rule of every rate and difference in the reports (docs/reports.md)."""
    if not math.isfinite(value):
        return f"{value}"
    step = Decimal(1).scaleb(-places)
    text = str(Decimal(repr(value)).quantize(step, rounding=ROUND_HALF_UP))
    return "0" + text[2:] if text.startswith("-0") and not text.strip("-0.") else text


def percent(rate: float | None) -> str:
    """A rate in percent with one decimal (half up), or a dash when it had nothing to apply to."""
    return DASH if rate is None else f"{fixed(rate)}%"


def points(value: float, *, signed: bool = False) -> str:
    """A difference in percentage points with one decimal (half up): `9.8 pp`, `10.0 pp`, `+2.5 pp`."""
    text = fixed(value)
    return f"{'+' if signed and not text.startswith('-') and float(text) else ''}{text} pp"


def rate_counts(rate: Rate) -> str:
    """`12/14`, the counts behind a rate; a dash when there was nothing to count."""
    return DASH if rate.total == 0 else f"{rate.passed}/{rate.total}"


def _decimals_for(value: float) -> int:
    """Two decimals for cents and up, else enough for three significant digits (max 6)."""
    if value == 0 or abs(value) >= 0.1:
        return 2
    return min(6, 2 - math.floor(math.log10(abs(value))))


def cost(usd: float | None) -> str:
    """Dollars: `$1.25`, `$0.0312`; a dash when any call was unpriced."""
    if usd is None:
        return DASH
    return f"${usd:.{_decimals_for(usd)}f}"


def latency(ms: float | None) -> str:
    """`850 ms` under a second, `1.24 s` from a second up."""
    if ms is None:
        return DASH
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def _shown(value: float, unit: str, extra: int) -> tuple[float, str, int]:
    """`value` rounded as printed with `extra` more decimals: (the printed number, the text, its
    decimals in the delta's unit)."""
    if unit == "pp":
        places = 1 + extra
        text = fixed(value, places)
        return float(text), f"{text}%", places
    if unit == "ms":
        shown = round(value, extra)
        if shown < 1000:
            return shown, f"{shown:.{extra}f} ms", extra
        places = 2 + extra
        seconds = round(value / 1000, places)
        return seconds * 1000, f"{seconds:.{places}f} s", max(0, places - 3)
    if unit == "usd":
        places = _decimals_for(value) + extra
        shown = round(value, places)
        return shown, f"${shown:.{places}f}", places
    raise ValueError(f"unknown unit {unit!r}")


_EXTRA_DECIMALS = 3
"""How many decimals a pair of values may gain so that two different values print differently."""


class Change(NamedTuple):
    """Two values and their difference as printed, in agreement: the difference is the one between
    the printed values, so `23 ms → 24 ms` never reads `0 ms worse`."""

    a: str
    b: str
    delta: str
    shown: float | None
    """The difference of the printed values (None when either is missing): what better or worse
    is judged on, so a printed 0 is neither."""


def _pair(a: float, b: float, unit: str, extra: int) -> tuple[str, str, float, int]:
    """Both values printed with `extra` more decimals, their printed difference and its decimals."""
    (ra, ta, da), (rb, tb, db) = _shown(a, unit, extra), _shown(b, unit, extra)
    places = max(da, db) if rb != ra else {"pp": 1, "ms": 0, "usd": 2}[unit]
    return ta, tb, round(rb - ra, places), places


def change(a: float | None, b: float | None, unit: str) -> Change:
    """`a`, `b` and `b - a` as text: with more decimals when two different values would otherwise
    print alike, and the difference taken from the printed values."""
    if a is None or b is None:
        plain = {"pp": percent, "ms": latency, "usd": cost}[unit]
        return Change(plain(a), plain(b), DASH, None)
    for extra in range(_EXTRA_DECIMALS + 1):
        ta, tb, shown, places = _pair(a, b, unit, extra)
        # Enough decimals when different values print differently and the printed difference is
        # the true one to within half its last place (23.3 → 23.5 ms is +0.2 ms, not +1 ms).
        if (ta != tb or a == b) and abs(shown - (b - a)) <= 0.5 * 10**-places + 1e-9:
            break
    else:  # no precision does both: printed plainly, the difference of what is printed
        ta, tb, shown, places = _pair(a, b, unit, 0)
    size = fixed(abs(shown), places) if unit == "pp" else f"{abs(shown):.{places}f}"
    text = {"pp": f"{size} pp", "ms": f"{size} ms", "usd": f"${size}"}[unit]
    sign = "+" if shown > 0 else "-" if shown < 0 else ""
    return Change(ta, tb, sign + text, shown)


# --- the leaderboard's shape ---------------------------------------------------------------------


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

_GROUP_LABELS = {
    "selection": "Selection",
    "arguments": "Arguments",
    "near_misses": "Near misses",
    "no_call": "No call needed",
    "parallel": "Parallel",
    "chains": "Chains",
}


def group_label(group: str) -> str:
    return _GROUP_LABELS.get(group, printable(group))


def ordered_groups(groups: Iterable[str]) -> list[str]:
    """The suite's group order first, then any other group names alphabetically."""
    present = set(groups)
    return [g for g in GROUPS if g in present] + sorted(present - set(GROUPS))


def group_cell(model: ModelResult, group: str) -> str:
    """A model's overall rate on one group with its counts: `85.7% (12/14)`, or a dash."""
    metrics: Metrics | None = model.groups.get(group)
    if metrics is None or metrics.overall.total == 0:
        return DASH
    return f"{percent(metrics.overall.rate)} ({rate_counts(metrics.overall)})"

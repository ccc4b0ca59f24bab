"""The gates `record` and `rescore` apply after a run: a CI job must never pass on cases nobody judged.

Each gate looks at the results alone and says, in one line, which models fail it:

- `no_scores`: a model with not one judged (scored) case, whatever the others are (errored,
  unreadable, of another major suite version, stale, unrecorded, not started): nothing was judged,
  so no option allows it (docs/methodology.md, "Judged or not green");
- `errored`: a model with more errored cases than `--max-errored` allows (default none), counted
  over every run of a repeated model; cases the caller excuses (unreadable cassettes, recordings
  of another major suite version: each has its own gate and allowance) are not counted;
- `fail_under`: a model whose overall score is under `--fail-under`, shown as the reports show it, with
  more decimals when it would otherwise print as the threshold (`cli._gates.score_against`).

Which exit code each gate gives, and which wins, is the CLI's (`lobrec.cli._gates`); the rule here
is what fails.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Literal

import msgspec

from lobrec.core.metrics.results import ModelResult, RunResult

Gate = Literal["no_scores", "errored", "fail_under"]


class Allowance(msgspec.Struct, frozen=True, kw_only=True):
    """`--max-errored`: a count of errored cases per model, or a share of its cases (all runs)."""

    count: int | None = None
    percent: Fraction | None = None

    def allows(self, errored: int, cases: int) -> bool:
        if self.percent is not None:
            return errored * 100 <= self.percent * cases
        return errored <= (self.count or 0)

    def __str__(self) -> str:
        if self.percent is not None:
            return f"{float(self.percent):g}%"
        return str(self.count or 0)


NO_ERRORS = Allowance(count=0)
_ALLOWANCE = re.compile(r"(\d+)|(\d+(?:\.\d+)?)%")


def parse_allowance(text: str, flag: str = "--max-errored") -> Allowance:
    """`3` (cases) or `5%` (of a model's cases, every run together, 0 to 100); ValueError naming
    `flag` else (none for a configuration file's value, whose key the caller names)."""
    found = _ALLOWANCE.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{flag} {text!r}: expected a count of cases (3) or a percentage (5%)".lstrip())
    if found.group(1) is not None:
        return Allowance(count=int(found.group(1)))
    share = Fraction(found.group(2))
    if share > 100:
        raise ValueError(f"{flag} {text!r}: a percentage is at most 100%".lstrip())
    return Allowance(percent=share)


def parse_score_percent(text: str, flag: str = "--fail-under") -> float:
    """A score threshold: `80` and `80%` alike, 0 to 100; ValueError naming `flag` else."""
    number = text.strip().removesuffix("%").strip()
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= 100 or not number:
        raise ValueError(f"{flag} {text!r}: expected a percentage from 0 to 100 (80 or 80%)".lstrip())
    return value


class GateFailure(msgspec.Struct, frozen=True, kw_only=True):
    gate: Gate
    line: str


def _errored(model: ModelResult, excused: Mapping[str, int]) -> int:
    return max(0, model.counts.errored - excused.get(model.model, 0))


def _no_scores(models: list[ModelResult]) -> list[ModelResult]:
    return [m for m in models if m.counts.scored == 0]


def _not_judged(model: ModelResult) -> str:
    """What a model's cases are instead of judged, from its counts: `8 errored, 72 unrecorded of 80`."""
    counts = model.counts
    parts = [(counts.errored, "errored"), (counts.stale, "stale"), (counts.unrecorded, "unrecorded")]
    shown = ", ".join(f"{count} {word}" for count, word in parts if count) or "none run"
    return f"{model.model} ({shown} of {counts.cases})"


def _over(models: list[ModelResult], allowance: Allowance, excused: Mapping[str, int]) -> GateFailure | None:
    over = [m for m in models if not allowance.allows(_errored(m, excused), m.counts.cases)]
    if not over:
        return None
    names = ", ".join(f"{m.model} ({_errored(m, excused)} of {m.counts.cases})" for m in over)
    return GateFailure(
        gate="errored",
        line=f"errored cases over --max-errored {allowance}: {names}; "
        "their cases were not judged (record them again with --retry-errored)",
    )


def _under(score: float | None, fail_under: float) -> bool:
    return score is not None and score < fail_under


def _below(
    models: list[ModelResult], fail_under: float, shown: Callable[[float | None], str]
) -> GateFailure | None:
    below = [m for m in models if m.has_scores and _under(m.metrics.overall.rate, fail_under)]
    if not below:
        return None
    names = ", ".join(f"{m.model} ({shown(m.metrics.overall.rate)})" for m in below)
    return GateFailure(gate="fail_under", line=f"overall score below {fail_under:g}%: {names}")


def failed_gates(
    run: RunResult,
    *,
    fail_under: float | None,
    allowance: Allowance = NO_ERRORS,
    excused: Mapping[str, int] | None = None,
    shown: Callable[[float | None], str],
) -> list[GateFailure]:
    """Every gate the run fails, one line each, naming every model that fails it.

    `excused` counts, per model, errored cases another gate answers for (unreadable cassettes,
    recordings of another major suite version).
    `shown` writes a score as the reports do (`95.4%`, never `95.4167%`).
    """
    excused = excused or {}
    dead = _no_scores(run.models)
    failures: list[GateFailure | None] = []
    if dead:
        names = ", ".join(_not_judged(m) for m in dead)
        failures.append(
            GateFailure(gate="no_scores", line=f"no case judged: {names}; no option passes a model with none")
        )
    failures.append(_over([m for m in run.models if m not in dead], allowance, excused))
    if fail_under is not None:
        failures.append(_below(run.models, fail_under, shown))
    return [failure for failure in failures if failure is not None]

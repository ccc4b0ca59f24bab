"""A leaderboard over time: several results files in order, models aligned across them, each step tested.

A leaderboard kept for months has one results file per run. `build_history` lines the files up in
the order given (docs/reports.md, "History": lobrec never reorders them), finds each model in every
file that holds it, and tests each of its steps, from one file holding it to the next, with the
paired test `lobrec diff` uses (`lobrec.core.metrics.compare.compare`: exact McNemar, the exact sign test
with repeats) on the cases both files hold. A step is flagged better or worse only when that test
says the difference is real; any other difference in the overall rate is shown, unflagged.

Two things can change between files besides the model: the recordings and the suite.

- A model whose `recorded` provenance (its run manifests) is identical in both files was **rescored**:
  the same recordings re-judged. Different provenance is a new **recording**; a file without
  provenance (written before lobrec 0.3.0) leaves it **unknown**.
- Across suite versions, only the cases whose request and checks did not change (and that are in
  both versions) are compared, which needs both versions' suite files (`diff_suites`). Without
  them, or when the suite was renamed or its system prompt changed, the step is **not
  comparable**: its rates are shown, no test is run. One version with two content hashes (a
  `--group` subset has its own) is one version: the versioning rule makes its cases alike.

Pure: results and suites in, a `History` out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

import msgspec

from lobrec.core.metrics.compare import Comparison, compare
from lobrec.core.metrics.results import ModelResult, Record, RunResult, SuiteRef
from lobrec.core.metrics.runs import runs_of
from lobrec.core.suite.format import Suite
from lobrec.core.suite.versioning import Kind, diff_suites

Provenance = Literal["rescored", "recorded", "unknown"]
Verdict = Literal["better", "worse", "none"]

LEFT_OUT_KINDS: tuple[Kind, ...] = ("added", "removed", "request", "checks")
"""The suite changes that take a case out of a step across versions: its verdict may have moved
because the case did, not the model."""


class HistoryRun(Record, frozen=True, kw_only=True):
    """One results file, in its place in the order given."""

    run: int
    """1 for the first file given."""
    label: str
    """The file as given on the command line."""
    suite: SuiteRef
    recorded_at: str | None
    """The newest start of any recording the file cites (its models' `recorded`); null without
    provenance."""
    models: int
    suite_changed: bool
    """The judging suite differs from the previous file's in name or version (`same_suite`: another
    content hash of one version is the same suite)."""
    recorded_earlier: list[str]
    """Models whose recordings here are older than in an earlier file holding them: a recording
    never goes back in time (a rescore keeps its dates), so were the files given out of order?"""


class Step(Record, frozen=True, kw_only=True):
    """A model from the previous file holding it (`since`) to this one: what changed, and the test."""

    since: int
    provenance: Provenance
    suite_changed: bool
    comparable: bool
    reason: str
    """Why the step is not comparable, or what a suite change left out; empty otherwise."""
    cases: int
    """The cases the test paired (scored on both sides, among those compared)."""
    left_out: int
    """Cases of the earlier suite that a suite change took out of the comparison."""
    test: Literal["mcnemar", "sign"]
    worse: int
    """Paired cases that did worse (passed, then failed; with repeats, a lower pass rate)."""
    better: int
    p_value: float | None
    """Null when the step is not comparable."""
    verdict: Verdict
    """`better` or `worse` only when the test is significant at 5%."""
    delta: float | None
    """The overall rate in this file minus in the earlier one, percentage points (each file's own
    figure, over all its scored cases); null when either has none."""


class Point(Record, frozen=True, kw_only=True):
    """A model in one file."""

    run: int
    overall: float | None
    """The file's overall rate (the mean over runs with repeats); null without scores."""
    scored: int
    cases: int
    repeats: int
    """K: the model's runs in that file."""
    step: Step | None
    """Null at the model's first file."""


class ModelHistory(Record, frozen=True, kw_only=True):
    model: str
    points: list[Point]
    """One per file holding the model, in the files' order."""


class History(Record, frozen=True, kw_only=True):
    runs: list[HistoryRun]
    models: list[ModelHistory]
    """Models of the last file first, ranked as there; then the others, latest first."""


class Scope(Record, frozen=True, kw_only=True):
    """Which cases a step compares: all (`cases` null), some, or none (`reason` says why)."""

    cases: frozenset[str] | None
    comparable: bool
    reason: str
    left_out: int


def same_suite(a: SuiteRef, b: SuiteRef) -> bool:
    """Same name and version: by the versioning rule (docs/suite-format.md) one version of a suite
    judges each case alike, whatever subset of it a file was judged with."""
    return (a.name, a.version) == (b.name, b.version)


def find_suite(ref: SuiteRef, suites: Sequence[tuple[str, Suite]]) -> Suite | None:
    """The suite text of `ref` among (fingerprint, suite) pairs: same name and version, the one with
    the file's content hash first (a `--group` subset has its own hash; the whole version serves)."""
    matching = [
        (fingerprint, suite)
        for fingerprint, suite in suites
        if (suite.name, suite.version) == (ref.name, ref.version)
    ]
    exact = [suite for fingerprint, suite in matching if fingerprint == ref.sha256]
    either = exact or [suite for _, suite in matching]
    return either[0] if either else None


HASH_NOTE = "same suite version, another content hash (a --group subset, or an edit without a version bump)"


def _not_comparable(reason: str) -> Scope:
    return Scope(cases=frozenset(), comparable=False, reason=reason, left_out=0)


def step_scope(old: SuiteRef, new: SuiteRef, suites: Sequence[tuple[str, Suite]]) -> Scope:
    """The cases a step from suite `old` to suite `new` may compare (see the module docstring)."""
    if same_suite(old, new):
        differ = old.sha256 is not None and new.sha256 is not None and old.sha256 != new.sha256
        return Scope(cases=None, comparable=True, reason=HASH_NOTE if differ else "", left_out=0)
    if old.name != new.name:
        return _not_comparable(f"suite renamed from {old.name} to {new.name}")
    return _across_versions(old, new, suites)


def _not_found(missing: list[str]) -> Scope:
    which = "its file" if len(missing) == 1 else "their files"
    return _not_comparable(
        f"suite {' and '.join(missing)} not found: give {which} with --suite to compare the cases "
        "whose checks did not change"
    )


def _kept(before: Suite, after: Suite) -> tuple[frozenset[str], int] | None:
    """The cases in both versions whose request and checks held, and how many of `before`'s did
    not; None when the system prompt changed (every request did)."""
    changes = diff_suites(before, after)
    if any(change.kind == "suite" and change.what == "system prompt" for change in changes.changes):
        return None
    out = {case for kind in LEFT_OUT_KINDS for case in changes.cases(kind)}
    old_ids = {case.id for case in before.cases}
    return frozenset(old_ids & {case.id for case in after.cases}) - out, len(old_ids & out)


def _across_versions(old: SuiteRef, new: SuiteRef, suites: Sequence[tuple[str, Suite]]) -> Scope:
    """Two versions of one suite: the cases in both whose request and checks held, from their texts."""
    before, after = find_suite(old, suites), find_suite(new, suites)
    if before is None or after is None:
        return _not_found([ref.version for ref, text in ((old, before), (new, after)) if text is None])
    kept = _kept(before, after)
    if kept is None:
        return _not_comparable(f"the system prompt changed from {old.version} to {new.version}")
    cases, left_out = kept
    if not cases:
        return _not_comparable(f"no case kept its request and checks from {old.version} to {new.version}")
    reason = f"{left_out} cases left out: changed from {old.version} to {new.version}" if left_out else ""
    return Scope(cases=cases, comparable=True, reason=reason, left_out=left_out)


def restrict(model: ModelResult, ids: frozenset[str]) -> ModelResult:
    """The model with only the cases in `ids` (every run's), for a test on those cases alone."""
    replace = msgspec.structs.replace
    repeats = model.repeats
    if repeats is not None:
        repeats = replace(
            repeats,
            cases=[case for case in repeats.cases if case.id in ids],
            per_run=[
                replace(run, cases=[case for case in run.cases if case.id in ids]) for run in repeats.per_run
            ],
        )
    return replace(model, cases=[case for case in model.cases if case.id in ids], repeats=repeats)


def provenance(old: ModelResult, new: ModelResult) -> Provenance:
    """`rescored` when both files cite the same recordings, `unknown` when either cites none."""
    if not old.recorded or not new.recorded:
        return "unknown"
    return "rescored" if old.recorded == new.recorded else "recorded"


def _overall(model: ModelResult) -> float | None:
    return model.metrics.overall.rate if model.has_scores else None


def paired_test(old: ModelResult, new: ModelResult, scope: Scope) -> Comparison | None:
    """`compare` on the scope's cases (None when the step is not comparable)."""
    if not scope.comparable:
        return None
    if scope.cases is not None:
        old, new = restrict(old, scope.cases), restrict(new, scope.cases)
    return compare(old, new)


def verdict(result: Comparison | None) -> Verdict:
    """`better` or `worse` for the later file only when the test is significant, else `none`."""
    if result is None or not result.significant:
        return "none"
    return "better" if result.c > result.b else "worse"


def step(
    since: int,
    old: tuple[SuiteRef, ModelResult],
    new: tuple[SuiteRef, ModelResult],
    suites: Sequence[tuple[str, Suite]],
) -> Step:
    """The step of one model from the file numbered `since` (its suite and entry) to the next."""
    (old_suite, before), (new_suite, after) = old, new
    scope = step_scope(old_suite, new_suite, suites)
    result = paired_test(before, after, scope)
    a, b = _overall(before), _overall(after)
    repeated = runs_of(before).repeated or runs_of(after).repeated  # compare's own rule
    return Step(
        since=since,
        provenance=provenance(before, after),
        suite_changed=not same_suite(old_suite, new_suite),
        comparable=scope.comparable,
        reason=scope.reason,
        cases=0 if result is None else result.paired,
        left_out=scope.left_out,
        test=result.test if result is not None else "sign" if repeated else "mcnemar",
        worse=0 if result is None else result.b,
        better=0 if result is None else result.c,
        p_value=None if result is None else result.p_value,
        verdict=verdict(result),
        delta=None if a is None or b is None else round(b - a, 4),
    )


def _instant(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def newest_recording(models: Sequence[ModelResult]) -> tuple[datetime, str] | None:
    """The latest `started_at` these models cite, as an instant and as written (unreadable stamps
    are passed over)."""
    stamps = [(_instant(r.started_at), r.started_at) for model in models for r in model.recorded]
    known = [(moment, text) for moment, text in stamps if moment is not None]
    return max(known) if known else None


def _runs(files: Sequence[tuple[str, RunResult]]) -> list[HistoryRun]:
    runs: list[HistoryRun] = []
    latest: dict[str, datetime] = {}
    for index, (label, run) in enumerate(files):
        earlier = []
        for model in run.models:
            newest = newest_recording([model])
            if newest is not None and model.model in latest and newest[0] < latest[model.model]:
                earlier.append(model.model)
            if newest is not None:
                latest[model.model] = max(newest[0], latest.get(model.model, newest[0]))
        newest = newest_recording(run.models)
        previous = runs[-1] if runs else None
        runs.append(
            HistoryRun(
                run=index + 1,
                label=label,
                suite=run.suite,
                recorded_at=None if newest is None else newest[1],
                models=len(run.models),
                suite_changed=previous is not None and not same_suite(previous.suite, run.suite),
                recorded_earlier=list(dict.fromkeys(earlier)),
            )
        )
    return runs


def _order(models: dict[str, ModelHistory]) -> list[ModelHistory]:
    """The last file's models first, best first; then the others, by their last file, latest first."""
    first_seen = {name: place for place, name in enumerate(models)}

    def key(history: ModelHistory) -> tuple[int, int, float, int]:
        last = history.points[-1]
        scored = last.overall is not None
        return (-last.run, 0 if scored else 1, -(last.overall or 0.0), first_seen[history.model])

    return sorted(models.values(), key=key)


def build_history(
    files: Sequence[tuple[str, RunResult]], suites: Sequence[tuple[str, Suite]] = ()
) -> History:
    """The history of the (label, results) files in the order given; `suites` are the suite texts
    known (with their fingerprints), for steps across suite versions."""
    found: dict[str, list[Point]] = {}
    last_seen: dict[str, tuple[int, SuiteRef, ModelResult]] = {}
    for index, (_, run) in enumerate(files):
        number = index + 1
        seen: set[str] = set()
        for model in run.models:
            if model.model in seen:  # a file naming a model twice: its first entry counts
                continue
            seen.add(model.model)
            previous = last_seen.get(model.model)
            change = None
            if previous is not None:
                since, old_suite, before = previous
                change = step(since, (old_suite, before), (run.suite, model), suites)
            found.setdefault(model.model, []).append(
                Point(
                    run=number,
                    overall=_overall(model),
                    scored=model.counts.scored,
                    cases=model.counts.cases,
                    repeats=model.run_count,
                    step=change,
                )
            )
            last_seen[model.model] = (number, run.suite, model)
    histories = {name: ModelHistory(model=name, points=points) for name, points in found.items()}
    return History(runs=_runs(files), models=_order(histories))


__all__ = [
    "LEFT_OUT_KINDS",
    "History",
    "HistoryRun",
    "ModelHistory",
    "Point",
    "Scope",
    "Step",
    "build_history",
    "find_suite",
    "newest_recording",
    "paired_test",
    "provenance",
    "restrict",
    "same_suite",
    "step",
    "step_scope",
    "verdict",
]

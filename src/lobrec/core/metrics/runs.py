"""One model's runs as one shape, whether it was recorded once or K times.

The results file keeps a model recorded once exactly as it always was (no `repeats` key), and a
model recorded K > 1 times with a `repeats` section beside run 1's top-level fields. Code that asks
"what happened in each run" should not have to know which: `runs_of` gives every model the same
view, K >= 1 runs, built from the top-level fields for K = 1 (by the same rules `combine_runs`
uses for K > 1) and read from `repeats` otherwise. Consumers iterate runs; `repeated` says whether
there was more than one, for the few places whose wording differs.
"""

from __future__ import annotations

from lobrec.core.memo import per_object
from lobrec.core.metrics.repeats import case_runs, flaky, metric_spreads, pass_at_k, pass_hat_k
from lobrec.core.metrics.results import (
    CaseResult,
    CaseRuns,
    Counts,
    Metrics,
    ModelResult,
    Rate,
    Record,
    Spread,
)


class ModelRun(Record, kw_only=True, frozen=True):
    """One run of a model, judged on its own, with its cases (run 1's too, unlike `RunMetrics`)."""

    run: int
    """1..K; run 1 is the model folder itself, run n its `runs/<n>/` folder."""
    counts: Counts
    has_scores: bool
    temperature_ignored: bool
    metrics: Metrics
    cases: list[CaseResult]


class ModelRuns(Record, kw_only=True, frozen=True):
    """A model's K >= 1 runs: each run, each case's k of K, the flaky cases, pass^K, pass@K and the
    spread of each metric over the runs (for K = 1: one value each, no sd)."""

    model: str
    runs: list[ModelRun]
    """Run 1 first; never empty."""
    cases: list[CaseRuns]
    """Each case over the runs, run 1's order first, then cases only later runs hold."""
    flaky: list[str]
    """Cases that passed in a scored run and failed in another (always empty for K = 1)."""
    pass_hat_k: Rate
    """Of the cases scored in every run, those that passed in every run."""
    pass_at_k: Rate
    """Of the cases scored in every run, those that passed in at least one."""
    spread: dict[str, Spread]
    """Per metric over the runs; a results file may lack an entry (`.get` it)."""

    @property
    def k(self) -> int:
        """K, the number of runs."""
        return len(self.runs)

    @property
    def repeated(self) -> bool:
        """Recorded more than once (the model has a `repeats` section)."""
        return len(self.runs) > 1

    def run_cases(self) -> list[list[CaseResult]]:
        """Each run's cases, run 1 first."""
        return [run.cases for run in self.runs]

    def by_case(self) -> list[tuple[CaseRuns, list[CaseResult | None]]]:
        """Each case's k of K with its result in every run (None where a run does not hold it)."""
        lookup = [{case.id: case for case in run.cases} for run in self.runs]
        return [(entry, [by_id.get(entry.id) for by_id in lookup]) for entry in self.cases]

    def pass_rates(self) -> dict[str, tuple[int, int]]:
        """(passes, runs scored) per case scored in at least one run."""
        return {case.id: (case.passes, case.scored) for case in self.cases if case.scored}


@per_object
def runs_of(model: ModelResult) -> ModelRuns:
    """The model's runs as one view: from `repeats` when it has them, else from its top-level fields.

    Built once per model object (`per_object`): the tiers, the routing view and every report ask."""
    repeats = model.repeats
    if repeats is not None and repeats.per_run:  # a file with no runs listed is read as run 1 alone
        return ModelRuns(
            model=model.model,
            runs=[
                ModelRun(
                    run=entry.run,
                    counts=entry.counts,
                    has_scores=entry.has_scores,
                    temperature_ignored=entry.temperature_ignored,
                    metrics=entry.metrics,
                    cases=model.cases if index == 0 else entry.cases,
                )
                for index, entry in enumerate(repeats.per_run)
            ],
            cases=repeats.cases,
            flaky=repeats.flaky,
            pass_hat_k=repeats.pass_hat_k,
            pass_at_k=repeats.pass_at_k,
            spread=repeats.spread,
        )
    per_case = case_runs([model.cases])
    return ModelRuns(
        model=model.model,
        runs=[
            ModelRun(
                run=1,
                counts=model.counts,
                has_scores=model.has_scores,
                temperature_ignored=model.temperature_ignored,
                metrics=model.metrics,
                cases=model.cases,
            )
        ],
        cases=per_case,
        flaky=flaky(per_case),
        pass_hat_k=pass_hat_k(per_case, 1),
        pass_at_k=pass_at_k(per_case, 1),
        spread=metric_spreads([model.metrics]),
    )


def run_cases(model: ModelResult) -> list[list[CaseResult]]:
    """Each run's cases, run 1 first: `runs_of(model).run_cases()`, for callers not yet on the view."""
    return runs_of(model).run_cases()


__all__ = ["ModelRun", "ModelRuns", "run_cases", "runs_of"]

"""A run's results put together from each model's judged cases: one home for record and rescore.

Record and rescore must write the same results file for the same cassettes, byte for byte, so both
build it here: per-model metrics, models sorted by name, what needs every model at once (tiers,
`auto`'s routing), each model's repeated runs combined, and the provenance read from the manifests.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import msgspec

from lobrec._version import __version__
from lobrec.cassette.format import Manifest
from lobrec.cassette.manifest import suite_fingerprint
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import CaseResult, ModelResult, Recording, RunResult, SuiteRef
from lobrec.core.metrics.routing import ROUTER, routing
from lobrec.core.metrics.runs import runs_of
from lobrec.core.metrics.tiers import rank_run
from lobrec.core.suite.format import Suite
from lobrec.running.runner import temperature_ignored


class RunFolder(Protocol):
    """One run folder of one model, as its cases were judged (`lobrec.running.replay.ReplayModel`)."""

    @property
    def model(self) -> str: ...

    @property
    def run(self) -> int: ...

    @property
    def directory(self) -> Path: ...

    @property
    def manifest(self) -> Manifest | None: ...


def entry(suite: Suite, model: str, cases: list[CaseResult]) -> ModelResult:
    """One model's (one run's) entry: its cases and their metrics."""
    return model_result(suite, model, cases, temperature_ignored(cases))


def build_run_result(suite: Suite, cases_by_model: dict[str, list[CaseResult]]) -> RunResult:
    """Per-model metrics, models sorted by name, so record and rescore give identical files."""
    models = [entry(suite, model, cases) for model, cases in sorted(cases_by_model.items())]
    return finish_run(suite, RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=models))


def finish_run(suite: Suite, run: RunResult) -> RunResult:
    """What needs every model of the run at once: tiers, the resolution, and `auto`'s routing."""
    models = [
        model
        if model.model != ROUTER
        else msgspec.structs.replace(model, routing=routing(suite, model, run.models))
        for model in run.models
    ]
    return rank_run(msgspec.structs.replace(run, models=models))


def by_model(
    suite: Suite, folders: Sequence[RunFolder], replayed: Sequence[list[CaseResult]]
) -> dict[str, list[CaseResult]]:
    """Each model's cases in suite order; two directories of one model share one list (the later
    directory's result of a case wins)."""
    results: dict[str, dict[str, CaseResult]] = {}
    for folder, cases in zip(folders, replayed, strict=True):
        results.setdefault(folder.model, {}).update((case.id, case) for case in cases)
    order = {case.id: n for n, case in enumerate(suite.cases)}
    return {model: sorted(found.values(), key=lambda r: order[r.id]) for model, found in results.items()}


def assemble(suite: Suite, folders: Sequence[RunFolder], entries: list[ModelResult]) -> RunResult:
    """The results from one entry per run folder: folders of one model and one run (two spellings of
    a name) are merged as `by_model` does, then each model's runs are put together."""
    where: dict[str, dict[int, list[int]]] = {}
    for index, folder in enumerate(folders):
        where.setdefault(folder.model, {}).setdefault(folder.run, []).append(index)
    results = []
    for model in sorted(where):
        runs = where[model]
        per_run = []
        for number in range(1, max(runs) + 1):
            indexes = runs[number]  # each folder lists its runs 1..K without gaps (run_directories)
            if len(indexes) == 1:
                per_run.append(entries[indexes[0]])
                continue
            (merged,) = by_model(
                suite, [folders[i] for i in indexes], [entries[i].cases for i in indexes]
            ).values()
            per_run.append(entry(suite, model, merged))
        results.append(combine_runs(suite, per_run))
    return finish_run(
        suite, RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=results)
    )


def with_provenance(run: RunResult, suite: Suite, folders: Sequence[RunFolder]) -> RunResult:
    """The run stamped with what judged it (lobrec's version, the suite's content hash) and, per model,
    the manifests its cases came from: all read from the inputs, so rescores stay byte-identical."""
    recorded: dict[str, list[Recording]] = {}
    for folder in sorted(folders, key=lambda r: (r.run, str(r.directory))):
        manifest = folder.manifest
        if manifest is None:
            continue
        recorded.setdefault(folder.model, []).append(
            Recording(
                run=folder.run,
                suite=SuiteRef(name=manifest.suite.name, version=manifest.suite.version),
                lobrec_version=manifest.lobrec_version,
                started_at=manifest.started_at,
                finished_at=manifest.finished_at,
            )
        )
    return msgspec.structs.replace(
        run,
        lobrec_version=__version__,
        suite=msgspec.structs.replace(run.suite, sha256=suite_fingerprint(suite)),
        models=[  # the manifests read change none of the model's runs: their view is kept
            runs_of.carry(model, msgspec.structs.replace(model, recorded=recorded.get(model.model, [])))
            for model in run.models
        ],
    )

"""`lobrec.core.metrics.history` names the test `lobrec diff` ran: a model whose `repeats` section lists
no runs is one run (`runs_of`), so its steps are McNemar's, as `compare` says."""

from __future__ import annotations

from pathlib import Path

import msgspec

from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.history import build_history
from lobrec.core.metrics.results import decode_results

EXPECTED = Path(__file__).resolve().parents[2] / "fixtures" / "expected-results.json"


def test_a_repeats_section_without_runs_is_tested_as_one_run() -> None:
    run = decode_results(EXPECTED.read_bytes())
    models = []
    for model in run.models:
        if model.model == "fixture/flaky":
            assert model.repeats is not None
            model = msgspec.structs.replace(model, repeats=msgspec.structs.replace(model.repeats, per_run=[]))
        models.append(model)
    run = msgspec.structs.replace(run, models=models)
    history = build_history([("a.json", run), ("b.json", run)])
    flaky = next(entry for entry in history.models if entry.model == "fixture/flaky")
    step = flaky.points[1].step
    assert step is not None
    entry = next(model for model in run.models if model.model == "fixture/flaky")
    assert compare(entry, entry).test == "mcnemar"
    assert (step.test, step.comparable, step.verdict) == ("mcnemar", True, "none")
    original = decode_results(EXPECTED.read_bytes())
    repeated = build_history([("a.json", original), ("b.json", original)])
    flaky = next(entry for entry in repeated.models if entry.model == "fixture/flaky")
    assert flaky.points[1].step is not None and flaky.points[1].step.test == "sign"  # three runs

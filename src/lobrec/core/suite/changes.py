"""What a suite change did to the scores (the results' `suite_changes` section, `rescore
--against`): the same cassettes judged under OLD and NEW, side by side. What changed in the suite
files themselves, and the bump it needs, is `versioning`.

Re-judging across a minor version needs no re-recording: the checks change, the requests do not
(a case whose request changed is stale under NEW and left out). So per model the comparison is the
metric deltas, and the cases whose pass/fail flipped among those whose checks changed; a flip
anywhere else would mean the judge is not deterministic. Pure: two runs and a diff in, a
SuiteChanges out.
"""

from __future__ import annotations

from lobrec.core.metrics.compare import metric_deltas
from lobrec.core.metrics.results import (
    ModelResult,
    ModelSuiteChange,
    RateChange,
    RunResult,
    SuiteChanges,
    SuiteRef,
)
from lobrec.core.suite.versioning import SuiteDiff


def _passed(model: ModelResult) -> dict[str, bool]:
    return {case.id: case.passed for case in model.cases if case.status == "scored"}


def model_change(old: ModelResult, new: ModelResult, checks_changed: list[str]) -> ModelSuiteChange:
    """One model's deltas (new - old) and its flips among the cases whose checks changed."""
    before, after = _passed(old), _passed(new)
    flipped = [
        case for case in checks_changed if case in before and case in after and before[case] != after[case]
    ]
    return ModelSuiteChange(
        model=new.model,
        deltas=[
            RateChange(metric=item.metric, old=item.a, new=item.b, delta=item.delta)
            for item in metric_deltas(old, new)
        ],
        pass_to_fail=[case for case in flipped if before[case]],
        fail_to_pass=[case for case in flipped if after[case]],
    )


def suite_changes(diff: SuiteDiff, old: RunResult, new: RunResult) -> SuiteChanges:
    """The suite_changes section: the diff's case lists and, per model in both runs, what moved."""
    checks_changed = diff.cases("checks")
    old_models = {model.model: model for model in old.models}
    return SuiteChanges(
        old=SuiteRef(name=old.suite.name, version=old.suite.version),
        new=SuiteRef(name=new.suite.name, version=new.suite.version),
        required_bump=diff.required,
        added=diff.cases("added"),
        removed=diff.cases("removed"),
        request_changed=diff.cases("request"),
        checks_changed=checks_changed,
        models=[
            model_change(old_models[model.model], model, checks_changed)
            for model in new.models
            if model.model in old_models
        ],
    )

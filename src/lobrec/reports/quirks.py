"""The "provider quirks" note: a score that leaned on a wire-format tolerance says so."""

from __future__ import annotations

from collections import Counter

from lobrec.core.metrics.results import ModelResult


def quirk_counts(model: ModelResult) -> Counter[str]:
    """How often each quirk was accepted: per call for a call's quirks, per reply for the rest."""
    counts: Counter[str] = Counter()
    for case in model.cases:
        for step in case.steps:
            from_calls = [quirk for call in step.calls for quirk in call.quirks]
            if from_calls:
                counts.update(from_calls)
            if step.quirks:
                counts.update(quirk for quirk in step.quirks if quirk not in from_calls)
    return counts


def quirks_note(model: ModelResult) -> list[str]:
    """`["provider quirks: content filter (1), missing arguments (3)"]`, or `[]` when none."""
    counts = quirk_counts(model)
    if not counts:
        return []
    return ["provider quirks: " + ", ".join(f"{name} ({count})" for name, count in sorted(counts.items()))]

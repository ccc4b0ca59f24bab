"""The tiers step alone: `lobrec.core.metrics.tiers.tiers` over 10, 100 and 1,000 models, in this process.

The models are the committed fixture results (`fixtures/expected-results.json`) copied under new
names, fresh objects for every run, so each run builds every model's outcomes again. Every pair is
tested (Holm's step needs all the raw p-values): 499,500 pairs at 1,000 models, each two bitsets.
The baseline is one pass reading every case of every model once, the least any method must do.
"""

from __future__ import annotations

import time

import msgspec

from bench._measure import MS, SECONDS, Report, Row, Stats
from bench.models import ROOT, model_name
from lobrec.core.metrics.results import ModelResult, decode_results
from lobrec.core.metrics.tiers import tiers

SIZES = (10, 100, 1000)
QUICK_SIZES = (3, 5, 8)


def _models(count: int, bases: list[ModelResult]) -> list[ModelResult]:
    return [
        msgspec.structs.replace(bases[index % len(bases)], model=model_name(index), routing=None)
        for index in range(count)
    ]


def _one_pass(models: list[ModelResult]) -> int:
    return sum(case.passed for model in models for case in model.cases)


def bench(report: Report, sizes: tuple[int, ...], runs: int) -> None:
    bases = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes()).models
    for size in sizes:
        step, floor = [], []
        for _ in range(runs):
            models = _models(size, bases)
            started = time.perf_counter()
            _one_pass(models)
            floor.append(time.perf_counter() - started)
            started = time.perf_counter()
            found = tiers(models)
            step.append(time.perf_counter() - started)
            if len(found) != size:
                raise SystemExit(f"bench: tiers of {size} models gave {len(found)} tiers")
        pairs = size * (size - 1) // 2
        stats = Stats.of(step)
        report.add(
            Row(
                section=f"tiers {size} models",
                figure=f"tiers(), {pairs:,} pairs",
                stats=stats,
                unit=MS if stats.median < 1 else SECONDS,
                baseline_name="one pass over the cases",
                baseline=Stats.of(floor).median,
                note=f"{stats.median / pairs * 1e6:.2f} µs per pair, outcomes built included; {runs} runs",
            )
        )

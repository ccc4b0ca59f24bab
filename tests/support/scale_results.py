"""A leaderboard-sized run without recording it: the committed fixtures' models copied under
`MODEL@NN` names (as the fake gateway's labelled copies answer), each recorded `runs` times.

For the HTML report's size and behaviour at scale (issue 26: a hundred models recorded three
times), in tests and in `make bench`. A copy's runs are its model's run 1 repeated, except
fixture/flaky's, whose own three runs differ: the copies of it are flaky as it is.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import ModelResult, RunResult, decode_results
from lobrec.core.metrics.tiers import rank_run
from lobrec.core.suite.format import Suite
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]


def _copy(model: ModelResult, name: str, runs: int, suite: Suite) -> ModelResult:
    if model.repeats is not None:
        return msgspec.structs.replace(model, model=name)
    once = msgspec.structs.replace(model, model=name, routing=None)
    return combine_runs(suite, [once] * runs)


def leaderboard_run(models: int, runs: int = 3) -> tuple[RunResult, Suite]:
    """`models` copies of the fixture models, in turn, with tiers and the resolution computed."""
    fixtures = decode_results((ROOT / "fixtures" / "expected-results.json").read_bytes())
    suite = load_suite(ROOT / "suite" / "suite.json")
    bases = fixtures.models
    copies = []
    for index in range(models):
        base = bases[index % len(bases)]
        copies.append(_copy(base, f"{base.model}@{index:02d}", runs, suite))
    return rank_run(msgspec.structs.replace(fixtures, models=copies)), suite

"""`make record-fixtures`: re-record the committed fixture cassettes and their expected results.

`python scripts/record_fixtures.py auto fake/alpha fake/beta` re-records only the named folders
(and rewrites the expected results), so adding a fixture does not churn the others' cassettes.

Records the five fixture models and `fixture/flaky` (three runs) against the in-process fake gateway
on the current suite, into `fixtures/cassettes/`, and `fixture/plausible` (which answers with the suite's own
wrong answers) on suite 1.0.0 (`suite/history/1.0.0.json`: the requests are the same bytes), so the
1.0.0 -> 1.1.0 comparison shows what the tightened checks catch. It then rescores them all and
writes `fixtures/expected-results.json`. CI rescores the same cassettes and compares byte for byte,
so any change in a number is a reviewed diff.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import msgspec

from lobrec.cassette.layout import model_dir_name
from lobrec.core.metrics.results import ModelResult, encode_results
from lobrec.core.suite.format import Suite
from lobrec.fakegateway import FakeGateway
from lobrec.running.gateway import resolve_gateway
from lobrec.running.recording import RecordOptions, record
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["fixture/oracle", "fixture/silent", "fixture/eager", "fixture/sloppy", "fixture/no-temperature"]
ON_1_0_0 = ["fixture/plausible"]
"""Recorded with the 1.0.0 suite file: cassettes made before 1.1.0 existed, as a user's would be."""
ROUTED = ["auto", "fake/alpha", "fake/beta"]
"""`auto` and the models it routes to, recorded together, so `make demo` shows the routing view."""
REPEATED = {"fixture/flaky": 3}
"""Recorded with `--repeat K`, so `make demo` shows runs, pass^K, pass@K and the flaky cases."""
PORT = 47213
"""A fixed port keeps the recorded request URIs stable between re-recordings."""


def record_repeated(suite: Suite, url: str, cassettes: Path) -> None:
    """The repeated models, one run after another (the fake's flaky answers follow the run)."""
    for model, runs in REPEATED.items():
        options = RecordOptions(models=[model], cassettes=cassettes, concurrency=8, repeat=runs)
        asyncio.run(record(suite, resolve_gateway(url, {}), options))


def _record(suite: Suite, url: str, cassettes: Path, models: list[str]) -> list[ModelResult]:
    if not models:
        return []
    options = RecordOptions(models=models, cassettes=cassettes, concurrency=8)
    return asyncio.run(record(suite, resolve_gateway(url, {}), options)).run.models


def main(only: list[str]) -> int:
    suite = load_suite(ROOT / "suite" / "suite.json")
    cassettes = ROOT / "fixtures" / "cassettes"
    old = load_suite(ROOT / "suite" / "history" / "1.0.0.json")
    every = [*MODELS, *ON_1_0_0, *REPEATED, *ROUTED]
    unknown = [model for model in only if model not in every]
    if unknown:
        print(f"not a fixture model: {', '.join(unknown)} (known: {', '.join(every)})", file=sys.stderr)
        return 2
    chosen = only or every

    def picked(models: Any) -> list[str]:
        return [model for model in models if model in chosen]

    for model in chosen:
        shutil.rmtree(cassettes / model_dir_name(model), ignore_errors=True)
    with FakeGateway(suite, port=PORT, latency_ms=5) as gateway:
        recorded_models = _record(suite, gateway.url, cassettes, picked(MODELS))
        _record(old, gateway.url, cassettes, picked(ON_1_0_0))
        recorded_models += _record(suite, gateway.url, cassettes, picked(ROUTED))
        if picked(REPEATED):
            record_repeated(suite, gateway.url, cassettes)
    recorded = {model.model: model for model in recorded_models}
    replayed = asyncio.run(rescore(suite, cassettes))
    data = encode_results(replayed.run)
    # Tiers rank a model among the run's models: a recording holds fewer, so they are left out here.
    if any(
        msgspec.json.encode(msgspec.structs.replace(m, tier=None))
        != msgspec.json.encode(msgspec.structs.replace(recorded[m.model], tier=None))
        for m in replayed.run.models
        if m.model in recorded
    ):
        print("record and rescore disagree: not writing fixtures", file=sys.stderr)
        return 1
    (ROOT / "fixtures").mkdir(exist_ok=True)
    (ROOT / "fixtures" / "expected-results.json").write_bytes(data)
    for model in replayed.run.models:
        print(f"{model.model}: overall {model.metrics.overall.rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

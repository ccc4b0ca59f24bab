"""`make record-fixtures`: re-record the committed fixture cassettes and their expected results.

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

import msgspec

from lobrec.cassettes import model_dir_name
from lobrec.core.results import encode_results
from lobrec.core.suite import Suite
from lobrec.fakegateway import FakeGateway
from lobrec.gateway import resolve_gateway
from lobrec.recording import RecordOptions, record
from lobrec.replay import rescore
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["fixture/oracle", "fixture/silent", "fixture/eager", "fixture/sloppy", "fixture/no-temperature"]
ON_1_0_0 = ["fixture/plausible"]
"""Recorded with the 1.0.0 suite file: cassettes made before 1.1.0 existed, as a user's would be."""
REPEATED = {"fixture/flaky": 3}
"""Recorded with `--repeat K`, so `make demo` shows runs, pass^K, pass@K and the flaky cases."""
PORT = 47213
"""A fixed port keeps the recorded request URIs stable between re-recordings."""


def record_repeated(suite: Suite, url: str, cassettes: Path) -> None:
    """The repeated models, one run after another (the fake's flaky answers follow the run)."""
    for model, runs in REPEATED.items():
        options = RecordOptions(models=[model], cassettes=cassettes, concurrency=8, repeat=runs)
        asyncio.run(record(suite, resolve_gateway(url, {}), options))


def main() -> int:
    suite = load_suite(ROOT / "suite" / "suite.json")
    cassettes = ROOT / "fixtures" / "cassettes"
    old = load_suite(ROOT / "suite" / "history" / "1.0.0.json")
    for model in [*MODELS, *ON_1_0_0, *REPEATED]:
        shutil.rmtree(cassettes / model_dir_name(model), ignore_errors=True)
    with FakeGateway(suite, port=PORT, latency_ms=5) as gateway:
        options = RecordOptions(models=MODELS, cassettes=cassettes, concurrency=8)
        outcome = asyncio.run(record(suite, resolve_gateway(gateway.url, {}), options))
        options = RecordOptions(models=ON_1_0_0, cassettes=cassettes, concurrency=8)
        asyncio.run(record(old, resolve_gateway(gateway.url, {}), options))
        record_repeated(suite, gateway.url, cassettes)
    replayed = asyncio.run(rescore(suite, cassettes))
    data = encode_results(replayed.run)
    recorded = {model.model: model for model in outcome.run.models}
    if any(
        msgspec.json.encode(m) != msgspec.json.encode(recorded[m.model])
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
    sys.exit(main())

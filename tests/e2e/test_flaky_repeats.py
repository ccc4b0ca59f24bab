"""fixture/flaky recorded 5 times through the fake gateway and rescored as one repeated model.

The fake counts the runs of each request body, so five `record` calls in a row against one gateway
are runs 1 to 5; each is recorded into its own folder (the library `record`, no `--repeat`), and
runs 2..5 are moved into `runs/<n>/`. The expected figures are worked out by hand from the fake's
script (docs/fake-gateway.md): the six cycle cases fail run k when (k + i) % 3 == 0, i their index
in the cycle; arg-09 passes run 1 only; near-08 never passes; every other case always passes.

    run  fails                                   overall
    1    near-03, sel-07, near-08                77/80
    2    arg-02, chain-02, arg-09, near-08       76/80
    3    sel-03, par-04, arg-09, near-08         76/80
    4    near-03, sel-07, arg-09, near-08        76/80
    5    arg-02, chain-02, arg-09, near-08       76/80
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from lobrec.cassettes import model_dir_name
from lobrec.core.metrics import rate
from lobrec.core.results import ModelResult
from lobrec.fakegateway import FLAKY, FLAKY_CASES, FakeGateway, flaky_passes
from lobrec.gateway import Gateway
from lobrec.recording import RecordOptions, record
from lobrec.replay import rescore
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite(ROOT / "suite" / "suite.json")
RUNS = 5
PASSES = {"sel-03": 4, "arg-02": 3, "near-03": 3, "par-04": 4, "chain-02": 3, "sel-07": 3, "arg-09": 1}


@pytest.fixture(scope="module")
def flaky(tmp_path_factory: pytest.TempPathFactory) -> ModelResult:
    base = tmp_path_factory.mktemp("flaky")
    root = base / "cassettes"
    model_dir = root / model_dir_name(FLAKY)
    with FakeGateway(SUITE) as gateway:
        for number in range(1, RUNS + 1):
            target = root if number == 1 else base / f"run{number}"
            options = RecordOptions(models=[FLAKY], cassettes=target)
            asyncio.run(
                record(SUITE, Gateway(base_url=gateway.url, api_key="lsk-flaky-repeats-7c1e9a4d"), options)
            )
            if number > 1:
                (model_dir / "runs").mkdir(exist_ok=True)
                shutil.move(target / model_dir_name(FLAKY), model_dir / "runs" / str(number))
    (model,) = asyncio.run(rescore(SUITE, root)).run.models
    return model


def test_the_script_is_what_the_table_above_says() -> None:
    assert {case: sum(flaky_passes(case, k) for k in range(1, RUNS + 1)) for case in FLAKY_CASES} == {
        **PASSES,
        "near-08": 0,
    }


def test_k_of_5_per_case_and_the_flaky_list(flaky: ModelResult) -> None:
    repeats = flaky.repeats
    assert repeats is not None and repeats.runs == RUNS
    by_id = {case.id: case for case in repeats.cases}
    assert all(case.scored == RUNS for case in repeats.cases)
    assert {case_id: by_id[case_id].passes for case_id in PASSES} == PASSES
    assert by_id["near-08"].passes == 0
    assert all(case.passes == RUNS for case in repeats.cases if case.id not in FLAKY_CASES)
    assert by_id["arg-09"].outcomes == ["passed", "failed", "failed", "failed", "failed"]
    assert by_id["sel-03"].outcomes == ["passed", "passed", "failed", "passed", "passed"]
    suite_order = [case.id for case in SUITE.cases]
    assert repeats.flaky == sorted(PASSES, key=suite_order.index)


def test_pass_hat_5_and_pass_at_5(flaky: ModelResult) -> None:
    assert flaky.repeats is not None
    assert flaky.repeats.pass_hat_k == rate(72, 80)  # 80 less the 8 scripted cases
    assert flaky.repeats.pass_at_k == rate(79, 80)  # all but near-08
    assert (flaky.repeats.pass_hat_k.rate, flaky.repeats.pass_at_k.rate) == (90.0, 98.75)


def test_per_run_metrics_and_their_spread(flaky: ModelResult) -> None:
    assert flaky.repeats is not None
    overall = [entry.metrics.overall for entry in flaky.repeats.per_run]
    assert [(rate.passed, rate.total) for rate in overall] == [
        (77, 80),
        (76, 80),
        (76, 80),
        (76, 80),
        (76, 80),
    ]
    figure = flaky.repeats.spread["overall"]
    # 96.25, 95, 95, 95, 95: mean 95.25; squares 1 + 4 * 0.0625 = 1.25 over 4 runs: sd sqrt(0.3125).
    assert (figure.mean, figure.min, figure.max) == (95.25, 95.0, 96.25)
    assert figure.sd == round(0.3125**0.5, 4) == 0.559
    assert (flaky.metrics.overall.rate, flaky.metrics.overall.passed, flaky.metrics.overall.total) == (
        95.25,
        381,
        400,
    )
    assert flaky.counts.scored == 400 and flaky.counts.errored == 0

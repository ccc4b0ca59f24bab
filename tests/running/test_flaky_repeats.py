"""fixture/flaky recorded with `lobrec record --repeat 5` against the fake gateway process, rescored.

The fake counts the runs of each request body, and record starts a case's run n only after its run
n - 1 (the queue goes run by run), so the fake's run k is the recording's run k. The expected
figures are worked out by hand from the fake's script (docs/fake-gateway.md): the six cycle cases
fail run k when (k + i) % 3 == 0, i their index in the cycle; arg-09 passes run 1 only; near-08
never passes; every other case always passes.

    run  fails                                   overall
    1    near-03, sel-07, near-08                77/80
    2    arg-02, chain-02, arg-09, near-08       76/80
    3    sel-03, par-04, arg-09, near-08         76/80
    4    near-03, sel-07, arg-09, near-08        76/80
    5    arg-02, chain-02, arg-09, near-08       76/80
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lobrec.cassette.layout import model_dir_name
from lobrec.core.metrics.rates import rate
from lobrec.core.metrics.results import ModelResult
from lobrec.fakegateway import FLAKY, FLAKY_CASES, flaky_passes
from lobrec.running.replay import rescore
from lobrec.suite_file import load_suite
from tests.support.cli import run_lobrec
from tests.support.gateway import running_gateway

pytestmark = pytest.mark.process  # a fake gateway process serves the module

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite(ROOT / "suite" / "suite.json")
RUNS = 5
PASSES = {"sel-03": 4, "arg-02": 3, "near-03": 3, "par-04": 4, "chain-02": 3, "sel-07": 3, "arg-09": 1}


COPY = f"{FLAKY}@copy"


@pytest.fixture(scope="module")
def recorded(
    tmp_path_factory: pytest.TempPathFactory, _clean_proxy_environment: None
) -> tuple[ModelResult, ...]:
    """fixture/flaky and a labelled copy of it, recorded together five times each."""
    root = tmp_path_factory.mktemp("flaky") / "cassettes"
    with running_gateway(ROOT / "suite" / "suite.json") as gateway:
        done = run_lobrec(
            [
                "record",
                "--model",
                FLAKY,
                "--model",
                COPY,
                "--repeat",
                str(RUNS),
                "--base-url",
                gateway.url,
                "--cassettes",
                str(root),
            ]
        )
    assert done.returncode == 0, done.stderr.decode()
    assert sorted(path.name for path in (root / model_dir_name(FLAKY) / "runs").iterdir()) == [
        "2",
        "3",
        "4",
        "5",
    ]
    return tuple(asyncio.run(rescore(SUITE, root)).run.models)


@pytest.fixture(scope="module")
def flaky(recorded: tuple[ModelResult, ...]) -> ModelResult:
    return next(model for model in recorded if model.model == FLAKY)


def test_a_labelled_copy_is_as_flaky_as_its_model(recorded: tuple[ModelResult, ...]) -> None:
    """`fixture/flaky@copy` answers exactly as fixture/flaky: the same outcomes, run by run."""
    by_name = {model.model: model for model in recorded}
    assert sorted(by_name) == [FLAKY, COPY]
    original, copy = by_name[FLAKY].repeats, by_name[COPY].repeats
    assert original is not None and copy is not None
    assert [(case.id, case.outcomes) for case in copy.cases] == [
        (case.id, case.outcomes) for case in original.cases
    ]
    assert {case.id: case.passes for case in copy.cases if case.id in PASSES} == PASSES
    assert copy.flaky == original.flaky


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

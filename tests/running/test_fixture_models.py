"""Acceptance: the fixture models score what the suite implies, recorded through the real CLI.

The fake gateway runs as its own process on the real suite; `lobrec record` runs as its own process
too. `fixture/oracle` answers with every reference answer, so it must score 100% on every rate and
0% made-up tool; `fixture/silent` never calls a tool, so its scores follow from the suite's shape.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lobrec.core.metrics.results import ModelResult, decode_results
from lobrec.core.suite.format import CallStep, NoCallStep, Suite
from lobrec.fakegateway import start_fake_gateway_process, stop_fake_gateway_process
from lobrec.suite_file import load_suite
from tests.support.cli import run_lobrec

pytestmark = pytest.mark.process  # a fake gateway process serves the module

ROOT = Path(__file__).resolve().parents[2]
SUITE_PATH = ROOT / "suite" / "suite.json"
LOBREC = str(Path(sys.executable).with_name("lobrec"))


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE_PATH)


@pytest.fixture(scope="module")
def gateway_url() -> Iterator[str]:
    process, url = start_fake_gateway_process(SUITE_PATH)
    try:
        yield url
    finally:
        stop_fake_gateway_process(process)


@pytest.fixture(scope="module")
def recorded(gateway_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModelResult]:
    out = tmp_path_factory.mktemp("record")
    completed = run_lobrec(
        [
            "record",
            "--model",
            "fixture/oracle",
            "--model",
            "fixture/silent",
            "--base-url",
            gateway_url,
            "--cassettes",
            str(out / "cassettes"),
            "--json",
            str(out / "results.json"),
            "--concurrency",
            "16",
        ],
        text=True,
        env=dict(os.environ),
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    run = decode_results((out / "results.json").read_bytes())
    return {model.model: model for model in run.models}


def test_oracle_scores_100_on_every_rate(recorded: dict[str, ModelResult], suite: Suite) -> None:
    oracle = recorded["fixture/oracle"]
    assert oracle.counts.scored == len(suite.cases) == 80
    rates = {
        name: getattr(oracle.metrics, name).rate
        for name in ("overall", "right_tool", "valid_arguments", "chains", "parallel", "no_call_needed")
    }
    assert rates == dict.fromkeys(rates, 100.0)
    assert oracle.metrics.made_up_tool.rate == 0.0
    assert oracle.metrics.made_up_tool.total > 0


def test_silent_scores_what_the_suite_implies(recorded: dict[str, ModelResult], suite: Suite) -> None:
    silent = recorded["fixture/silent"].metrics
    no_call_first = [c for c in suite.cases if isinstance(c.steps[0], NoCallStep)]
    with_call_step = [c for c in suite.cases if any(isinstance(s, CallStep) for s in c.steps)]
    multi_step = [c for c in suite.cases if len(c.steps) >= 2]
    parallel = [c for c in suite.cases if any(isinstance(s, CallStep) and len(s.calls) >= 2 for s in c.steps)]

    assert (silent.overall.passed, silent.overall.total) == (len(no_call_first), len(suite.cases))
    assert (silent.right_tool.passed, silent.right_tool.total) == (0, len(with_call_step))
    assert (silent.chains.passed, silent.chains.total) == (0, len(multi_step))
    assert (silent.parallel.passed, silent.parallel.total) == (0, len(parallel))
    assert (silent.no_call_needed.passed, silent.no_call_needed.total) == (
        len(no_call_first),
        len(no_call_first),
    )
    assert silent.valid_arguments.rate is None and silent.valid_arguments.total == 0
    assert silent.made_up_tool.rate is None and silent.made_up_tool.total == 0

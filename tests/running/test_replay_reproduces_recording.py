"""Replay reproduces the recording: whatever retry delays, timeout, concurrency, repeat and faults a
recording was made with, `rescore` gives every case of every run the status, reason and verdicts
`record` gave it, and the fixes rescore prints (`--missing`, `--retry-errored`) select exactly the
cases they name.

Recordings are made through the fake gateway process on 127.0.0.1 with generated settings and
fault rules; retries never wait (`no_sleep`), so a handful of examples stay fast.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from lobrec.core.metrics.results import RunResult
from lobrec.core.metrics.runs import runs_of
from lobrec.running.gateway import Gateway
from lobrec.running.recording import RecordOptions, plan, record_waiting_with
from lobrec.running.replay import rescore
from lobrec.running.runner import RetryPolicy, no_sleep
from lobrec.suite_file import load_suite
from tests.support.examples import costly
from tests.support.gateway import FakeGatewayProcess

MODEL = "fixture/oracle"
FAULTS = ["reset", "truncate", "hang", "429", "500", "502", "503", "504", "not_json", "400"]
HANG_S = 0.3
"""A hang's length: past the shorter time-out drawn (a timed-out attempt), within the longer."""

fault_rules = st.lists(
    st.fixed_dictionaries(
        {
            "case": st.sampled_from(["sel-01", "arg-01", "chain-01", "none-01"]),
            "faults": st.lists(st.sampled_from(FAULTS), max_size=4),
            "then": st.sampled_from(["ok", "ok", "reset", "503"]),
            "hang_seconds": st.just(HANG_S),
        }
    ),
    max_size=3,
)
recording_settings = st.fixed_dictionaries(
    {
        "delays": st.lists(st.sampled_from([0.0, 0.01, 0.1, 1.0]), max_size=4).map(tuple),
        "timeout": st.sampled_from([0.2, 5.0]),
        "concurrency": st.integers(1, 8),
        "repeat": st.integers(1, 2),
    }
)


def outcomes(run: RunResult) -> dict[tuple[str, int, str], Any]:
    """Every case of every run of every model: its status, reason and step verdicts."""
    found = {}
    for model in run.models:
        for each in runs_of(model).runs:
            for case in each.cases:
                found[(model.model, each.run, case.id)] = (case.status, case.reason, case.steps)
    return found


@costly(10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=fault_rules, shape=recording_settings)
def test_rescore_gives_what_record_gave(
    fake_gateway_process: FakeGatewayProcess, rules: list[dict[str, Any]], shape: dict[str, Any]
) -> None:
    gateway = fake_gateway_process
    gateway.reset()
    gateway.faults([{"model": MODEL, **rule} for rule in rules])
    suite = load_suite(gateway.suite_path)
    folder = Path(tempfile.mkdtemp(prefix="lobrec-replay-"))
    try:
        options = RecordOptions(
            models=[MODEL],
            cassettes=folder,
            concurrency=shape["concurrency"],
            repeat=shape["repeat"],
            policy=RetryPolicy(timeout_s=shape["timeout"], delays_s=shape["delays"]),
        )
        live = Gateway(base_url=gateway.url, api_key=None)
        recorded = asyncio.run(record_waiting_with(no_sleep, suite, live, options))
        replayed = asyncio.run(rescore(suite, folder))
        assert outcomes(replayed.run) == outcomes(recorded.run)

        # The printed fixes find what they name: --retry-errored the errored cases, --missing the
        # stale or unrecorded ones, run by run.
        cases = outcomes(replayed.run)
        for flag, statuses in (("retry_errored", {"errored"}), ("missing", {"stale", "unrecorded"})):
            chosen = RecordOptions(models=[MODEL], cassettes=folder, **{flag: True})
            picked = {(p.model, p.run, c.id) for p in plan(suite, chosen) for c in p.cases}
            named = {key for key, (status, _, _) in cases.items() if status in statuses}
            assert picked == named, flag
    finally:
        shutil.rmtree(folder)

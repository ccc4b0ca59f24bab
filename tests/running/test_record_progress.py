"""Progress of a record of several models at once, against the fake gateway process: each
model's count (the per-model breakdown of `lobrec.running.progress`), as a CI log shows it."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from lobrec.running.gateway import Gateway
from lobrec.running.progress import RunProgress
from lobrec.running.recording import RecordOptions, record
from lobrec.suite_file import load_suite
from tests.support.gateway import FakeGatewayProcess


def test_a_real_record_of_two_models_prints_each_models_count(
    fake_gateway: FakeGatewayProcess, small_suite_path: Path, tmp_path: Path
) -> None:
    """`record` of two models against the fake gateway process, progress as in a CI log."""
    suite = load_suite(small_suite_path)
    console = Console(file=io.StringIO(), force_terminal=False, width=300)
    options = RecordOptions(models=["fixture/oracle", "fixture/silent"], cassettes=tmp_path / "c")
    gateway = Gateway(base_url=fake_gateway.url, api_key=None)
    with RunProgress("recording", total=None, console=console, plain_every_s=0) as progress:
        asyncio.run(record(suite, gateway, options, progress))
    last = console.file.getvalue().splitlines()[-1]  # type: ignore[attr-defined]
    cases = len(suite.cases)
    assert last.startswith(f"recording: {2 * cases}/{2 * cases} done, 0 errored, 0 in flight")
    assert last.endswith(f"; fixture/oracle {cases}/{cases}, fixture/silent {cases}/{cases}")

"""`fixture/flaky` over HTTP: the gateway counts runs per request body, as `record --repeat` sees them.

The gateway runs as its own process on the real suite (the flaky cases are its ids); every test
starts from a reset, which forgets the run counts. The answer expected at run k is the brain's
`answer(suite, body, run=k)`, and whether it passes is checked with the real judge against
`flaky_passes`, so both the counting and the rule are seen through a real socket.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion, request_body
from lobrec.core.suite.format import Case
from lobrec.fakegateway import FLAKY, FLAKY_CASES, answer, flaky_passes
from lobrec.suite_file import load_suite
from tests.support.gateway import FakeGatewayProcess, running_gateway

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
SUITE_PATH = ROOT / "suite" / "suite.json"
SUITE = load_suite(SUITE_PATH)
TIMEOUT = httpx.Timeout(10.0)


@pytest.fixture(scope="module")
def _flaky_process(_clean_proxy_environment: None) -> Iterator[FakeGatewayProcess]:
    with running_gateway(SUITE_PATH) as gateway:
        yield gateway


@pytest.fixture
def gateway(_flaky_process: FakeGatewayProcess) -> FakeGatewayProcess:
    """The module's gateway with no fault rules, an empty log and no runs counted."""
    _flaky_process.reset()
    return _flaky_process


def _case(case_id: str) -> Case:
    case = SUITE.case(case_id)
    assert case is not None, case_id
    return case


def _body(case_id: str) -> bytes:
    """The runner's first request for a case (the suite's cases start with the system prompt)."""
    case = _case(case_id)
    return request_body(FLAKY, list(case.messages), SUITE.offered_tools(case))


def _post(client: httpx.Client, gateway: FakeGatewayProcess, body: bytes) -> httpx.Response:
    return client.post(f"{gateway.url}/chat/completions", content=body)


def _passes(case_id: str, body: bytes) -> bool:
    case = _case(case_id)
    return judge_step(case.steps[0], parse_completion(body), SUITE.offered_tools(case), 0).passed


def test_each_time_the_same_request_comes_it_is_the_next_run(gateway: FakeGatewayProcess) -> None:
    runs = range(1, 7)
    with httpx.Client(timeout=TIMEOUT) as client:
        for case_id in FLAKY_CASES:
            body = _body(case_id)
            for run in runs:
                response = _post(client, gateway, body)
                assert (response.status_code, response.content) == (200, answer(SUITE, body, run=run).body)
                assert _passes(case_id, response.content) is flaky_passes(case_id, run), (case_id, run)


def test_runs_are_counted_per_request_body(gateway: FakeGatewayProcess) -> None:
    first, second = _body("near-03"), _body("sel-07")
    with httpx.Client(timeout=TIMEOUT) as client:
        got = [_post(client, gateway, body).content for body in (first, second, second, first, first)]
    assert got == [
        answer(SUITE, first, run=1).body,
        answer(SUITE, second, run=1).body,
        answer(SUITE, second, run=2).body,
        answer(SUITE, first, run=2).body,
        answer(SUITE, first, run=3).body,
    ]


def test_a_reset_starts_the_runs_again(gateway: FakeGatewayProcess) -> None:
    body = _body("arg-09")
    with httpx.Client(timeout=TIMEOUT) as client:
        before = [_passes("arg-09", _post(client, gateway, body).content) for _ in range(2)]
        gateway.reset()
        after = [_passes("arg-09", _post(client, gateway, body).content) for _ in range(2)]
    assert (before, after) == ([True, False], [True, False])


def test_a_request_that_gets_a_fault_is_not_a_run(gateway: FakeGatewayProcess) -> None:
    gateway.faults([{"model": FLAKY, "case": "near-03", "faults": ["429", "503"]}])
    body = _body("near-03")
    with httpx.Client(timeout=TIMEOUT) as client:
        statuses = [_post(client, gateway, body).status_code for _ in range(2)]
        runs = [_post(client, gateway, body).content for _ in range(2)]
    assert (statuses, runs) == ([429, 503], [answer(SUITE, body, run=run).body for run in (1, 2)])


def test_identical_requests_at_once_are_different_runs(gateway: FakeGatewayProcess) -> None:
    body, count = _body("near-03"), 6
    with httpx.Client(timeout=TIMEOUT) as client, ThreadPoolExecutor(count) as pool:
        got = list(pool.map(lambda _: _post(client, gateway, body).content, range(count)))
    assert sorted(got) == sorted(answer(SUITE, body, run=run).body for run in range(1, count + 1))
    assert sum(_passes("near-03", content) for content in got) == 4

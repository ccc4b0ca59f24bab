"""What every test folder shares: Hypothesis profiles, the `process` mark, the fake gateway fixtures.

**Hypothesis.** Example counts come from the profile, never from a test: a property whose every
example runs a whole command draws a share of the profile's count (`tests/support/examples.costly`).
Profiles, chosen by `LOBREC_HYPOTHESIS` (or `LOBREC_DERANDOMIZE=1`, which CI sets):

- `dev` (the default): 100 examples, a new draw each run; found failures are pinned with `@example`.
- `ci`: 100 examples drawn from a seed fixed by each test's own source, so CI replays what the last
  local `LOBREC_DERANDOMIZE=1 make test` saw.
- `soak`: 2,000 examples, a new draw: for hunting (`LOBREC_HYPOTHESIS=soak make test-fast`).

No profile has a deadline: a per-example deadline is a timed assertion, and speed is measured in
bench/.

**The `process` mark.** A test that starts a process (the fake gateway, Chromium, `lobrec` as a
process, a wheel build) is marked `process`; `make test-fast` runs the others. Under
`LOBREC_NO_PROCESSES=1` (which `make test-fast` sets) starting a process fails the test with a line
that says to mark it, so the fast set cannot drift into slow work unnoticed.

**Fixtures.** The fake gateway process and its small suite (`tests/support/gateway.py`), the
staged faults (`tests/support/faults.py`) and the installed lobrec (`dists`, `installed`: the wheel
and sdist built once per session, `tests/support/installed.py`) are fixtures for every folder.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.faults import raw_server, recorded, whole_suite_gateway, whole_suite_path
from tests.support.gateway import (
    _clean_proxy_environment,
    fake_gateway,
    fake_gateway_process,
    small_suite_path,
)

__all__ = [
    "_clean_proxy_environment",
    "fake_gateway",
    "fake_gateway_process",
    "raw_server",
    "recorded",
    "small_suite_path",
    "whole_suite_gateway",
    "whole_suite_path",
]

settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile("ci", deadline=None, max_examples=100, derandomize=True, print_blob=True)
settings.register_profile("soak", deadline=None, max_examples=2000)
settings.load_profile(
    os.environ.get("LOBREC_HYPOTHESIS") or ("ci" if os.environ.get("LOBREC_DERANDOMIZE") else "dev")
)

PROCESS_FIXTURES = frozenset({"fake_gateway", "fake_gateway_process", "raw_server", "whole_suite_gateway"})
"""Fixtures that start a process: a test that uses one is marked `process` without saying so."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if PROCESS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.process)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Under LOBREC_NO_PROCESSES (`make test-fast`, which deselects the `process` tests), starting a
    process fails the test that tried, with a line that names it and the mark it needs; a fixture of
    any scope counts, since the guard is in place once collection ends, before the first test runs."""
    if not os.environ.get("LOBREC_NO_PROCESSES"):
        return
    if getattr(session.config.option, "numprocesses", None) and not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the pytest-xdist controller starts the workers; each worker guards its own tests

    def refuse(*args: object, **kwargs: object) -> None:
        test = os.environ.get("PYTEST_CURRENT_TEST", "a test").split(" ")[0]
        raise AssertionError(
            f"{test} starts a process: mark it `process` (tests/conftest.py) "
            "so that `make test-fast` leaves it to `make test`"
        )

    subprocess.Popen._execute_child = refuse  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """lobrec's sdist and wheel, built once per session, shared by the pytest-xdist workers."""
    from tests.support.installed import build, shared_once

    return shared_once(tmp_path_factory, "dists", build)


@pytest.fixture(scope="session")
def installed(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh venv per distribution with lobrec installed from it; the venvs' bin folders."""
    from tests.support.installed import install, shared_once

    return shared_once(tmp_path_factory, "venvs", lambda home: install(dists, {k: home / k for k in dists}))

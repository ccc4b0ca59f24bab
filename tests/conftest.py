"""Settings every test shares.

Hypothesis's per-example deadline is a timed assertion: on a loaded 2-core machine a fast property
can miss 200 ms and fail for reasons that are not lobrec's. Speed is measured in bench/, so no
property test has a deadline.

Where `LOBREC_DERANDOMIZE` is set (`.ci/run` sets it), the examples are drawn from a seed fixed by
each test's own source, so CI replays what the last local `LOBREC_DERANDOMIZE=1 make test` saw;
everywhere else each run draws new examples, which is how the surrogate and the version-less
results file were found. A failure found either way is pinned with `@example`.

The installed lobrec (`dists`, `installed`) is built once per session for every test that needs it.
"""

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("lobrec", deadline=None)
settings.register_profile("lobrec-ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("lobrec-ci" if os.environ.get("LOBREC_DERANDOMIZE") else "lobrec")


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """lobrec's sdist and wheel, built once per session (`tests.installed`)."""
    from tests.installed import build

    return build(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def installed(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh venv per distribution with lobrec installed from it; the venvs' bin folders."""
    from tests.installed import install

    return install(dists, {kind: tmp_path_factory.mktemp(f"venv-{kind}") for kind in dists})

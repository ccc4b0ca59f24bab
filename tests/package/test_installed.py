"""lobrec as a user gets it: the wheel and the sdist, each built once per session and installed into
a fresh venv (`tests.support.installed`), run from an empty folder far from this checkout. docs/ci.md's
recipes, run with the same installed wheel, are tests/docs/test_ci_recipes.py.

pip installs the dependencies from the package index (its cache makes a second run quick); nothing
else leaves the machine: the gateway is `lobrec fake-gateway` on 127.0.0.1, started from the
installed tool.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lobrec import __version__
from tests.support.installed import FakeGateway, clean_env, run

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
BUNDLED = "suite lobstack-tools " + json.loads((ROOT / "suite" / "suite.json").read_bytes())["version"]


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_tool_rescores_and_records_from_an_empty_folder(
    kind: str, installed: dict[str, Path], tmp_path: Path
) -> None:
    bin_dir = installed[kind]
    lobrec = str(bin_dir / "lobrec")
    env = clean_env(bin_dir)
    work = tmp_path / "empty"
    work.mkdir()

    version = run([lobrec, "--version"], work, env).stdout
    assert version.startswith(f"lobrec {__version__}, {BUNDLED} (bundled: ")
    assert "site-packages/lobrec/_suite/suite.json" in version
    assert run([str(bin_dir / "python"), "-m", "lobrec", "-h"], work, env).stdout.startswith(
        "Usage: lobrec [OPTIONS] COMMAND"
    )
    run([lobrec, "suite", "check"], work, env)  # the bundled suite, found from anywhere
    # the build-time pattern translations ship beside the suite and are today's translator's
    used = run(
        [
            str(bin_dir / "python"),
            "-c",
            "from lobrec.suite_file import suite_dir; from lobrec.translations import remember_bundled; "
            "print(suite_dir(), remember_bundled(suite_dir()))",
        ],
        work,
        env,
    ).stdout
    assert "site-packages/lobrec/_suite True" in used, used

    # The committed cassettes, copied to the same relative path: the same results file, byte for byte.
    shutil.copytree(FIXTURES, work / "fixtures" / "cassettes")
    done = run([lobrec, "rescore", "fixtures/cassettes", "--json", "results.json"], work, env, check=False)
    assert done.returncode == 0, done.stderr
    assert (work / "results.json").read_bytes() == EXPECTED.read_bytes()
    assert f"Judged with {BUNDLED} (bundled) by lobrec {__version__}" in done.stdout + done.stderr

    fake = FakeGateway(bin_dir, work)
    try:
        done = run(
            [
                *[lobrec, "record", "--model", "fixture/oracle", "--base-url", fake.url],
                *["--cassettes", "rec", "--json", "recorded.json", "--fail-under", "100"],
            ],
            work,
            env,
            check=False,
        )
    finally:
        fake.stop()
    assert done.returncode == 0, done.stderr
    assert (work / "rec" / "fixture%2Foracle" / "manifest.json").is_file()
    recorded = (work / "recorded.json").read_text()
    assert '"source": "bundled"' in recorded and '"rate": 100.0' in recorded

"""docs/ci.md, run as written: every shell step of its GitHub workflows (`run:`) and GitLab jobs
(`script:`), in order, in a temporary git repository with the installed wheel (`tests.support.installed`,
built once per session).

Each job runs with only the variables it defines itself, the test replacing the values of some of
them (`LOBREC_SPEC` is the wheel, `LOBREC_MODEL` a fake model) and adding what the CI system
provides and what stands in for the network (`LOBSTACK_BASE_URL`: the installed fake gateway on
127.0.0.1; `LOBREC_PUSH_URL`: a bare repository in a temporary folder). Steps run under `bash -euo
pipefail`, so a variable another job defines is an error here as it is in CI.

The refresh recipe is run on a project whose `[tool.lobrec]` says `fail-under = 80`, with a model
that fails that gate and one with an errored case: it must still record and push, and the gate
recipe must then fail on those cassettes, its job summary starting with the failed gates.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.support.installed import FakeGateway, clean_env, run

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"
CI_DOC = ROOT / "docs" / "ci.md"
ERRORED_CASE = "arg-05"
"""The case the fake gateway refuses (a 400, never retried) while `fixture/oracle` is recorded."""


def _blocks() -> list[dict[str, Any]]:
    return [
        yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", CI_DOC.read_text(), re.DOTALL)
    ]


def github_job(name: str) -> dict[str, Any]:
    """The GitHub Actions job `name` of docs/ci.md."""
    return next(block["jobs"][name] for block in _blocks() if name in block.get("jobs", {}))


def gitlab_job(name: str) -> dict[str, Any]:
    """The GitLab CI job `name` of docs/ci.md."""
    return next(block[name] for block in _blocks() if "jobs" not in block and name in block)


def steps_of(job: dict[str, Any]) -> list[str]:
    """A job's shell steps in order: each GitHub `run:`, or each GitLab `script:` line."""
    if "steps" in job:
        return [step["run"] for step in job["steps"] if "run" in step]
    return list(job["script"])


def job_env(job: dict[str, Any], bin_dir: Path, given: dict[str, str], **provided: str) -> dict[str, str]:
    """The job's own variables (GitHub `env:`, GitLab `variables:`), `given` replacing some of their
    values, and what the CI system or the test's stand-ins provide. A GitHub expression (`${{
    secrets.X }}`) is not evaluated here: a secret is absent, as it is from a fork's run."""
    defined = {name: str(value) for name, value in (job.get("env") or job.get("variables") or {}).items()}
    assert set(given) <= set(defined), f"the job does not define {sorted(set(given) - set(defined))}"
    own = {name: value for name, value in (defined | given).items() if "${{" not in value}
    return clean_env(bin_dir) | own | provided


def _steps(steps: list[str], repo: Path, env: dict[str, str]) -> None:
    for step in steps:
        run(["bash", "-euo", "pipefail", "-c", step], repo, env)


def _user_repo(path: Path, models: list[str], config: str = "") -> Path:
    """A user's repository holding some committed fixture models in cassettes/ (and a pyproject.toml)."""
    path.mkdir()
    for model in models:
        shutil.copytree(FIXTURES / model, path / "cassettes" / model)
    if config:
        (path / "pyproject.toml").write_text(config)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=path, check=True)
    subprocess.run([*git, "commit", "-qm", "cassettes"], cwd=path, check=True)
    return path


@pytest.fixture
def gateway(installed: dict[str, Path], tmp_path: Path) -> Iterator[FakeGateway]:
    """The installed fake gateway, refusing one case of `fixture/oracle` with a 400 (errored)."""
    fake = FakeGateway(installed["wheel"], tmp_path)
    rule = {"model": "fixture/oracle", "case": ERRORED_CASE, "faults": ["400"], "then": "400"}
    httpx.post(fake.url.removesuffix("/v1") + "/__fake__/faults", json={"rules": [rule]}).raise_for_status()
    yield fake
    fake.stop()


def test_the_gate_passes_a_passing_run_and_its_summary_says_so(
    installed: dict[str, Path], dists: dict[str, Path], tmp_path: Path
) -> None:
    wheel = {"LOBREC_SPEC": str(dists["wheel"])}
    jobs = {"github": github_job("rescore"), "gitlab": gitlab_job("lobrec")}
    for name, job in jobs.items():
        repo = _user_repo(tmp_path / name, ["fixture%2Foracle", "fixture%2Fflaky"])
        summary = tmp_path / f"{name}-summary.md"
        summary.write_text("## An earlier step\n")
        _steps(steps_of(job), repo, job_env(job, installed["wheel"], wheel, GITHUB_STEP_SUMMARY=str(summary)))
        assert (repo / "out" / "results.json").is_file()
        assert (repo / "out" / "report.html").read_text().startswith("<!doctype html>")
        assert 'tests="' in (repo / "out" / "junit.xml").read_text()
    assert summary.read_text() == "## An earlier step\n"  # GitLab writes no job summary
    text = (tmp_path / "github-summary.md").read_text().removeprefix("## An earlier step\n")
    assert text.startswith("### lobrec passed: lobstack-tools ")
    # A passing run with failed cases (fixture/flaky's) must not turn a check red through JUnit.
    (junit,) = [step for step in jobs["github"]["steps"] if "junit" in step.get("uses", "")]
    assert junit["with"]["annotate_only"] is True and junit["with"]["fail_on_failure"] is False


def test_refresh_records_past_failing_gates_and_the_pull_request_is_gated(
    installed: dict[str, Path], dists: dict[str, Path], gateway: FakeGateway, tmp_path: Path
) -> None:
    """The project's own `fail-under = 80` and an errored case do not stop the refresh (both CI
    systems record, GitHub leaves the cassettes for its pull-request action, GitLab pushes them);
    the gate recipe then fails on them and says which gates, first thing in the job summary."""
    bare = tmp_path / "server.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "config", "receive.advertisePushOptions", "true"], check=True)
    config = "[tool.lobrec]\nfail-under = 80\n"
    models = ["fixture%2Foracle", "fixture%2Fsloppy"]
    refresh = {"github": github_job("refresh"), "gitlab": gitlab_job("lobrec-refresh")}
    gate = {"github": github_job("rescore"), "gitlab": gitlab_job("lobrec")}
    for name, job in refresh.items():
        repo = _user_repo(tmp_path / name, models, config)
        for model in ("fixture/sloppy", "fixture/oracle"):  # under 80%; one case errored
            given = {"LOBREC_SPEC": str(dists["wheel"]), "LOBREC_MODEL": model}
            env = job_env(
                job, installed["wheel"], given, LOBSTACK_BASE_URL=gateway.url, LOBREC_PUSH_URL=str(bare)
            )
            _steps(steps_of(job), repo, env)
        changed = run(["git", "status", "--porcelain"], repo, env).stdout
        if name == "github":  # the pull-request step is an action (`uses:`): shown, not run
            assert "cassettes/fixture%2Fsloppy/manifest.json" in changed
            assert "cassettes/fixture%2Foracle/manifest.json" in changed
        else:
            pushed = run(["git", "--git-dir", str(bare), "show", "--stat", "lobrec/refresh"], tmp_path, env)
            assert "cassettes/fixture%2Foracle/manifest.json" in pushed.stdout

        # The pull request's gate: the rescore step fails, errored (5) winning over the low score (1).
        summary = tmp_path / f"{name}-summary.md"
        checks = job_env(
            gate[name],
            installed["wheel"],
            {"LOBREC_SPEC": str(dists["wheel"])},
            GITHUB_STEP_SUMMARY=str(summary),
        )
        *before, rescore = steps_of(gate[name])
        _steps(before, repo, checks)
        done = run(["bash", "-euo", "pipefail", "-c", rescore], repo, checks, check=False)
        assert done.returncode == 5, done.stderr
        assert "gate failed: overall score below 80%: fixture/sloppy" in done.stderr
        errored = [line for line in done.stderr.splitlines() if "gate failed: errored" in line]
        assert len(errored) == 1 and "fixture/oracle (1 of 80)" in errored[0]
    lines = (tmp_path / "github-summary.md").read_text().splitlines()
    assert lines[0].startswith("### lobrec failed: lobstack-tools ")
    gates = [line for line in lines[1:] if line.startswith("- gate failed: ")]
    assert len(gates) == 2 and lines[2:4] == gates
    assert any("fixture/sloppy" in line for line in gates) and any("fixture/oracle" in line for line in gates)

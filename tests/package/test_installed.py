"""lobrec as a user gets it: the wheel and the sdist, each built once and installed into a fresh venv,
run from an empty folder far from this checkout; and docs/ci.md's recipe run step by step with the
installed wheel in a temporary git repository.

pip installs the dependencies from the package index (its cache makes a second run quick); nothing
else leaves the machine: the gateway is `lobrec fake-gateway` on 127.0.0.1, started from the
installed tool, and the recipe's `git push` goes to a bare repository in a temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lobrec import __version__

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
BUNDLED = "suite lobstack-tools " + json.loads((ROOT / "suite" / "suite.json").read_bytes())["version"]
CI_DOC = ROOT / "docs" / "ci.md"


def _env(bin_dir: Path, **extra: str) -> dict[str, str]:
    """A clean environment: the venv first on PATH, no key, no proxy, no gateway but the one given."""
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR", "PIP_INDEX_URL")}
    keep |= {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_PROXY": "*"}
    keep |= {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    return keep | extra


def _run(
    args: list[str], cwd: Path, env: dict[str, str], check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel, built once per session as `python -m build` builds them."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT, dict(os.environ))
    (wheel,) = out.glob("lobrec-*.whl")
    (sdist,) = out.glob("lobrec-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def installed(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh venv per distribution, each with lobrec installed from it; the venvs' bin folders."""
    homes = {kind: tmp_path_factory.mktemp(f"venv-{kind}") for kind in dists}

    def install(kind: str) -> None:
        venv.create(homes[kind], with_pip=True)
        bin_dir = homes[kind] / "bin"
        quiet = ["--quiet", "--disable-pip-version-check", "--no-compile"]  # byte-compiling is half the time
        _run(
            [str(bin_dir / "python"), "-m", "pip", "install", *quiet, str(dists[kind])],
            homes[kind],
            _env(bin_dir),
        )

    with ThreadPoolExecutor(len(dists)) as pool:  # the two installs mostly wait on pip's downloads
        list(pool.map(install, dists))
    return {kind: home / "bin" for kind, home in homes.items()}


class FakeGateway:
    """`lobrec fake-gateway` from an installed lobrec, on a free loopback port."""

    def __init__(self, bin_dir: Path, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [str(bin_dir / "lobrec"), "fake-gateway", "--port", "0"],
            cwd=cwd,
            env=_env(bin_dir),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+/v1)", line)
        assert found, f"the fake gateway said {line!r}"
        self.url = found.group(1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def gateway(installed: dict[str, Path], tmp_path: Path) -> Iterator[FakeGateway]:
    fake = FakeGateway(installed["wheel"], tmp_path)
    yield fake
    fake.stop()


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_tool_rescores_and_records_from_an_empty_folder(
    kind: str, installed: dict[str, Path], tmp_path: Path
) -> None:
    bin_dir = installed[kind]
    lobrec = str(bin_dir / "lobrec")
    env = _env(bin_dir)
    work = tmp_path / "empty"
    work.mkdir()

    version = _run([lobrec, "--version"], work, env).stdout
    assert version.startswith(f"lobrec {__version__}, {BUNDLED} (bundled: ")
    assert "site-packages/lobrec/_suite/suite.json" in version
    assert _run([str(bin_dir / "python"), "-m", "lobrec", "-h"], work, env).stdout.startswith(
        "Usage: lobrec [OPTIONS] COMMAND"
    )
    _run([lobrec, "suite", "check"], work, env)  # the bundled suite, found from anywhere

    # The committed cassettes, copied to the same relative path: the same results file, byte for byte.
    shutil.copytree(FIXTURES, work / "fixtures" / "cassettes")
    done = _run([lobrec, "rescore", "fixtures/cassettes", "--json", "results.json"], work, env, check=False)
    assert done.returncode == 0, done.stderr
    assert (work / "results.json").read_bytes() == EXPECTED.read_bytes()
    assert f"Judged with {BUNDLED} (bundled) by lobrec {__version__}" in done.stdout + done.stderr

    fake = FakeGateway(bin_dir, work)
    try:
        done = _run(
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


# --- docs/ci.md, run -------------------------------------------------------------------------------


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


def github_steps(block: str) -> list[str]:
    """Each `run: |` step's script, in order."""
    steps, lines = [], block.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "run: |":
            indent = len(line) - len(line.lstrip())
            body = []
            for following in lines[i + 1 :]:
                if following.strip() and len(following) - len(following.lstrip()) <= indent:
                    break
                body.append(following.strip())
            steps.append("\n".join(body).strip())
    return steps


def gitlab_steps(block: str) -> list[str]:
    """Each `script:` line, in order."""
    steps, inside = [], False
    for line in block.splitlines():
        if line.strip() == "script:":
            inside = True
        elif inside and line.strip().startswith("- "):
            steps.append(line.strip()[2:])
        elif inside and line.strip():
            inside = False
    return steps


def _user_repo(path: Path, models: list[str]) -> Path:
    """A user's repository holding some committed fixture models in cassettes/."""
    path.mkdir()
    for model in models:
        shutil.copytree(FIXTURES / model, path / "cassettes" / model)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=path, check=True)
    subprocess.run([*git, "commit", "-qm", "cassettes"], cwd=path, check=True)
    return path


def _steps(steps: list[str], repo: Path, env: dict[str, str]) -> None:
    for step in steps:
        _run(["bash", "-euo", "pipefail", "-c", step], repo, env)


def test_ci_doc_gate_runs_as_written(
    installed: dict[str, Path], dists: dict[str, Path], tmp_path: Path
) -> None:
    blocks = _yaml_blocks(CI_DOC.read_text())
    github = next(b for b in blocks if "  rescore:" in b)
    gitlab = next(b for b in blocks if b.startswith("lobrec:"))
    assert len(github_steps(github)) == 3 and len(gitlab_steps(gitlab)) == 4
    for name, steps in (("github", github_steps(github)), ("gitlab", gitlab_steps(gitlab))):
        repo = _user_repo(tmp_path / name, ["fixture%2Foracle", "fixture%2Fflaky"])
        summary = tmp_path / f"{name}-summary.md"
        env = _env(installed["wheel"], LOBREC_SPEC=str(dists["wheel"]), GITHUB_STEP_SUMMARY=str(summary))
        _steps(steps, repo, env)
        assert (repo / "out" / "results.json").is_file()
        assert (repo / "out" / "report.html").read_text().startswith("<!doctype html>")
        assert 'tests="' in (repo / "out" / "junit.xml").read_text()
        if name == "github":
            assert f"Judged with {BUNDLED} (bundled)" in summary.read_text()


def test_ci_doc_gate_fails_on_a_low_score(
    installed: dict[str, Path], dists: dict[str, Path], tmp_path: Path
) -> None:
    """The recipe's gate is a gate: a model under 80% fails the job."""
    github = next(b for b in _yaml_blocks(CI_DOC.read_text()) if "  rescore:" in b)
    repo = _user_repo(tmp_path / "repo", ["fixture%2Fsloppy"])
    env = _env(installed["wheel"], LOBREC_SPEC=str(dists["wheel"]), GITHUB_STEP_SUMMARY=str(tmp_path / "s"))
    install, audit, rescore = github_steps(github)
    _steps([install, audit], repo, env)
    done = _run(["bash", "-euo", "pipefail", "-c", rescore], repo, env, check=False)
    assert done.returncode == 1, done.stderr
    assert "overall score below 80%: fixture/sloppy" in done.stderr


def test_ci_doc_refresh_records_and_pushes(
    installed: dict[str, Path], dists: dict[str, Path], gateway: FakeGateway, tmp_path: Path
) -> None:
    blocks = _yaml_blocks(CI_DOC.read_text())
    github = next(b for b in blocks if "  refresh:" in b)
    gitlab = next(b for b in blocks if b.startswith("lobrec-refresh:"))
    base = _env(
        installed["wheel"],
        LOBREC_SPEC=str(dists["wheel"]),
        LOBREC_MODEL="fixture/oracle",
        LOBSTACK_BASE_URL=gateway.url,
    )

    # GitHub: the shell steps run; the pull-request step is an action (`uses:`), shown, not run.
    repo = _user_repo(tmp_path / "github", ["fixture%2Foracle"])
    _steps(github_steps(github), repo, base)
    assert "uses: peter-evans/create-pull-request" in github
    changed = _run(["git", "status", "--porcelain", "cassettes/"], repo, base).stdout
    assert "cassettes/fixture%2Foracle/manifest.json" in changed

    # GitLab: every line runs, the push to a bare repository standing in for the server.
    bare = tmp_path / "server.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "config", "receive.advertisePushOptions", "true"], check=True)
    repo = _user_repo(tmp_path / "gitlab", ["fixture%2Foracle"])
    _steps(gitlab_steps(gitlab), repo, base | {"LOBREC_PUSH_URL": str(bare)})
    pushed = _run(["git", "--git-dir", str(bare), "show", "--stat", "lobrec/refresh"], tmp_path, base).stdout
    assert "Cassettes recorded again by lobrec" in pushed
    assert "cassettes/fixture%2Foracle/manifest.json" in pushed

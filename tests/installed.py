"""lobrec as a user installs it: the wheel and the sdist built once per test session, each installed
into a fresh venv, and what runs it there (a clean environment, the installed fake gateway).

pip installs the dependencies from the package index (its cache makes a second run quick); nothing
else leaves the machine. The fixtures `dists` and `installed` are in tests/conftest.py, session
scoped, so tests/e2e/test_installed.py and tests/docs/test_ci_recipes.py share one build.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clean_env(bin_dir: Path, **extra: str) -> dict[str, str]:
    """A clean environment: the venv first on PATH, no key, no proxy, no gateway but the one given."""
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR", "PIP_INDEX_URL")}
    keep |= {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_PROXY": "*"}
    keep |= {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    return keep | extra


def run(
    args: list[str], cwd: Path, env: dict[str, str], check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def build(out: Path) -> dict[str, Path]:
    """The sdist and the wheel, as `python -m build` builds them."""
    run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT, dict(os.environ))
    (wheel,) = out.glob("lobrec-*.whl")
    (sdist,) = out.glob("lobrec-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def install(dists: dict[str, Path], homes: dict[str, Path]) -> dict[str, Path]:
    """A fresh venv per distribution in `homes`, each with lobrec installed from it; their bin folders."""

    def one(kind: str) -> None:
        venv.create(homes[kind], with_pip=True)
        bin_dir = homes[kind] / "bin"
        quiet = ["--quiet", "--disable-pip-version-check", "--no-compile"]  # byte-compiling is half the time
        run(
            [str(bin_dir / "python"), "-m", "pip", "install", *quiet, str(dists[kind])],
            homes[kind],
            clean_env(bin_dir),
        )

    with ThreadPoolExecutor(len(dists)) as pool:  # the two installs mostly wait on pip's downloads
        list(pool.map(one, dists))
    return {kind: home / "bin" for kind, home in homes.items()}


class FakeGateway:
    """`lobrec fake-gateway` from an installed lobrec, on a free loopback port."""

    def __init__(self, bin_dir: Path, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [str(bin_dir / "lobrec"), "fake-gateway", "--port", "0"],
            cwd=cwd,
            env=clean_env(bin_dir),
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

"""lobrec as a user installs it: the wheel and the sdist built once per test session, each installed
into a fresh venv, and what runs it there (a clean environment, the installed fake gateway).

pip installs the dependencies from the package index (its cache makes a second run quick); nothing
else leaves the machine. The fixtures `dists` and `installed` are in tests/conftest.py, session
scoped, so tests/package/test_installed.py and tests/docs/test_ci_recipes.py share one build (one per
session, across pytest-xdist workers too: `shared_once`).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import venv
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


def shared_once(
    factory: pytest.TempPathFactory, name: str, make: Callable[[Path], dict[str, Path]]
) -> dict[str, Path]:
    """`make(folder)` once per test session: under pytest-xdist the first worker makes it under a lock
    in the folder the workers share, and the others read what it made."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder, made = root / f"shared-{name}", root / f"shared-{name}.json"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if made.exists():
            return {key: Path(value) for key, value in json.loads(made.read_text()).items()}
        folder.mkdir(exist_ok=True)
        value = make(folder)
        made.write_text(json.dumps({key: str(path) for key, path in value.items()}))
        return value


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

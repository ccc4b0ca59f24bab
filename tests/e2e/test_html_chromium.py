"""The HTML report in a real browser: headless Chromium renders it, runs its script, opens a cell.

Chromium is the Debian package `chromium`. When it is missing the tests skip, except under CI
(the `CI` environment variable set), where they fail: CI installs it, so its absence is a broken
build, not a reason to pass.

Chromium runs with networking features off and a throwaway profile; the report's own
Content-Security-Policy forbids any load, so the page renders from the file alone.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from lobrec.reports.html import render_html
from tests.sample_results import sample_run, sample_suite

pytestmark = pytest.mark.slow

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# A page of white compresses to a few kilobytes; the rendered report is well over 100 KB.
NON_TRIVIAL_PNG_BYTES = 30_000


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    message = "chromium is not installed (Debian: apt-get install -y chromium); the HTML e2e tests need it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.html"
    path.write_text(render_html(sample_run(), sample_suite()), encoding="utf-8")
    return path


def run_chromium(chromium: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp_path / "profile"
    env = {**os.environ, "HOME": str(tmp_path)}
    # The timeout only stops a hung browser from hanging the suite; nothing is asserted about time.
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        timeout=180,
        check=False,
        env=env,
    )


def test_screenshot_renders_the_report(chromium: str, report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    done = run_chromium(
        chromium, tmp_path, f"--screenshot={shot}", "--window-size=1400,1800", report.as_uri()
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 1800)
    assert len(data) > NON_TRIVIAL_PNG_BYTES


def dump_dom(chromium: str, tmp_path: Path, url: str) -> str:
    done = run_chromium(chromium, tmp_path, "--virtual-time-budget=2000", "--dump-dom", url)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode("utf-8")


def test_address_opens_a_cell_showing_its_verdict(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri() + "#open=m0-arg-line-range")
    assert '<details class="cell" id="m0-arg-line-range" open="">' in dom
    assert dom.count('open="">') == 1
    assert 'end_line: expected 20, got "20" (a string is not a number)' in dom
    assert '<li class="failing"><span class="mark">✗</span> <code>end_line = 20</code></li>' in dom


def test_without_an_address_no_cell_is_open(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri())
    assert '<details class="cell" id="m0-arg-line-range">' in dom
    assert 'open=""' not in dom


def test_model_reply_stays_text_in_the_browser(chromium: str, report: Path, tmp_path: Path) -> None:
    dom = dump_dom(chromium, tmp_path, report.as_uri() + "#open=m0-nocall-greeting")
    assert '<details class="cell" id="m0-nocall-greeting" open="">' in dom
    assert "Hello! &lt;script&gt;alert(1)&lt;/script&gt; \\x1b[31mI am fine\\x1b[0m, thanks &amp; you?" in dom
    assert "<script>alert(1)" not in dom
    assert dom.count("<script") == 1

"""Where exports go: `--summary` adds to its file (the CI job-summary convention), two exports to
`-` are refused before anything runs, and outside text in Markdown pings nobody.

Each test runs the real `lobrec` command; the live one records against the fake gateway process.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from lobrec.cli import Exit
from tests.support.cli import run_lobrec
from tests.support.gateway import FakeGatewayProcess

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cassettes"


def lobrec(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_lobrec(args, env=dict(os.environ), cwd=cwd, text=True)


def test_summary_appends_to_what_earlier_steps_wrote(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("## Build\n\nearlier step\n")
    for _ in range(2):
        result = lobrec("rescore", str(FIXTURES), "--summary", str(summary), "--jobs", "1")
        assert result.returncode == Exit.OK, result.stderr
    text = summary.read_text()
    assert text.startswith("## Build\n\nearlier step\n### lobrec passed: ")
    assert text.count("### lobrec passed: ") == 2
    one = text.removeprefix("## Build\n\nearlier step\n")
    assert one == one[: len(one) // 2] * 2  # the same summary twice, neither cut


def test_a_summary_file_that_does_not_exist_is_made(tmp_path: Path) -> None:
    summary = tmp_path / "new.md"
    assert lobrec("rescore", str(FIXTURES), "--summary", str(summary), "--jobs", "1").returncode == Exit.OK
    assert summary.read_text().startswith("### lobrec passed: ")


def test_two_exports_to_stdout_are_refused_before_anything_runs(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    for args in (
        ["rescore", str(FIXTURES), "--csv", "-", "--jsonl", "-", "--json", str(results)],
        ["record", "-m", "x", "--base-url", "http://127.0.0.1:9/v1", "--cassettes", str(tmp_path / "c"),
         "--summary", "-", "--markdown", "-", "--json", str(results)],
    ):  # fmt: skip
        result = lobrec(*args)
        assert result.returncode == Exit.BAD_INPUT
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and "write to stdout (-)" in lines[0], lines
        assert not results.exists()
    assert not (tmp_path / "c").exists()


def test_one_export_to_stdout_is_fine(tmp_path: Path) -> None:
    result = lobrec("rescore", str(FIXTURES), "--csv", "-", "--jobs", "1")
    assert result.returncode == Exit.OK
    assert result.stdout.startswith("model,case_id,")


MENTION = re.compile(r"(?<![\w&])[@#]\w")
"""An `@name` or `#12` GitHub would link (a zero-width space after the sign stops it)."""


def test_outside_text_pings_nobody_in_markdown_or_the_summary(
    fake_gateway: FakeGatewayProcess, tmp_path: Path
) -> None:
    """The fake gateway's 404 repeats the model name: `@octocat#12` reaches every errored reason."""
    markdown, summary = tmp_path / "report.md", tmp_path / "summary.md"
    result = lobrec(
        "record", "-m", "@octocat#12", "--base-url", fake_gateway.url, "--cassettes", str(tmp_path / "c"),
        "--suite", str(fake_gateway.suite_path), "--markdown", str(markdown), "--summary", str(summary),
    )  # fmt: skip
    assert result.returncode != Exit.OK
    for path in (markdown, summary):
        text = path.read_text()
        assert "octocat" in text
        assert "@&#8203;octocat\\#&#8203;12" in text
        own = {"### lobrec", "### Tool", "#### "}  # the report's own headings
        found = [
            m.group() for m in MENTION.finditer(text) if not any(text[m.start() :].startswith(h) for h in own)
        ]
        assert found == [], (path.name, found)
    assert "does not exist" in summary.read_text()  # the gateway's reason is there, defused
    assert summary.read_text().startswith("### lobrec failed: ")  # verdict first, even with no model scored
    assert "- gate failed: @&#8203;octocat\\#&#8203;12: never answered" in summary.read_text()

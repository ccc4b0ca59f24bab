"""What a user at a terminal is told (issues 12 and 13): why cases errored, and commands that work.

Driven through the real `lobrec` command in a subprocess against the fake gateway process.
"""

from __future__ import annotations

import json
import re
import shlex
import socket
from pathlib import Path
from typing import Any

import pytest

from lobrec.cassette.layout import model_dir_name
from tests.support.cli import run_lobrec


def test_a_misspelt_model_costs_one_line_and_leaves_no_folder(fake_gateway: Any, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    done = run_lobrec(
        [
            "record",
            "--model",
            "fixture/orcale",
            "--base-url",
            fake_gateway.url,
            "--suite",
            str(fake_gateway.suite_path),
            "--cassettes",
            str(cassettes),
        ]
    )

    assert done.returncode == 3
    stderr = [line for line in done.stderr.decode().splitlines() if not line.startswith("recording")]
    assert stderr[0].startswith("lobrec: fixture/orcale: its first 3 cases all errored: ")  # as it happened
    (line,) = stderr[1:]
    assert line.startswith("lobrec: fixture/orcale: never answered: the gateway knows no model ")
    command = line.partition("did you mean fixture/oracle? Run: ")[2]
    assert shlex.split(command)[:4] == ["lobrec", "record", "--model", "fixture/oracle"]
    assert "nothing was kept" in line
    assert done.stdout == b""  # no leaderboard, no list of cases never started
    assert not cassettes.exists()


def test_a_hostile_model_name_is_shown_as_text_and_quoted_in_the_command(
    fake_gateway: Any, tmp_path: Path
) -> None:
    """A contributed folder named with escape sequences: the stale line shows them spelled out,
    and the command it prints, pasted into a shell, passes the name as one word."""
    model = "\x1b]0;PWNED\x07\x1b[2J; touch pwned"
    cassettes = tmp_path / "cassettes"
    directory = cassettes / model_dir_name(model)
    directory.mkdir(parents=True)
    manifest = {
        "model": model,
        "suite": {"name": fake_gateway.suite.name, "version": fake_gateway.suite.version},
        "lobrec_version": "x",
        "started_at": "2026-10-21T00:00:00+00:00",
        "finished_at": None,
        "cases": {},
    }
    (directory / "manifest.json").write_text(json.dumps(manifest))

    done = run_lobrec(["rescore", str(cassettes), "--suite", str(fake_gateway.suite_path)])

    stderr = done.stderr.decode()
    assert done.returncode == 3, stderr  # nothing of the model was judged
    assert "\x1b" not in stderr and "\x07" not in stderr
    (line,) = [line for line in stderr.splitlines() if "Record them with: " in line]
    command = line.partition("Record them with: ")[2]
    words = shlex.split(command.replace("\\x1b", "\x1b").replace("\\x07", "\x07"))
    assert words[:4] == ["lobrec", "record", "--model", model]
    assert words[4:] == ["--cassettes", str(cassettes), "--suite", str(fake_gateway.suite_path), "--missing"]


@pytest.mark.parametrize(
    "delays", ["nan", "-1", "", "1,,2", "inf"], ids=["nan", "negative", "empty", "gap", "inf"]
)
def test_retry_delays_must_be_finite_seconds(delays: str) -> None:
    done = run_lobrec(
        ["record", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--retry-delays", delays]
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"lobrec: --retry-delays {delays!r}: expected seconds separated by commas, e.g. 1,2,4\n"
    )


def test_a_partial_run_counts_the_cases_it_was_not_asked_for_in_one_line(
    fake_gateway: Any, tmp_path: Path
) -> None:
    done = run_lobrec(
        [
            "record",
            "--model",
            "fixture/oracle",
            "--base-url",
            fake_gateway.url,
            "--suite",
            str(fake_gateway.suite_path),
            "--cassettes",
            str(tmp_path / "cassettes"),
            "--case",
            fake_gateway.suite.cases[0].id,
        ]
    )

    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    skipped = len(fake_gateway.suite.cases) - 1
    assert (
        f"Partial run (--case): {skipped} cases not asked for have no recording yet and are left out of "
        "every rate." in " ".join(out.split())
    )
    assert "Needs re-recording" not in out


def test_rescore_of_a_folder_without_models_says_so_and_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_lobrec(["rescore", str(empty), "--fail-under", "50"])
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: {empty}: no model folders (a model folder holds manifest.json); nothing to rescore\n",
    )


def test_rescore_of_one_models_folder_names_the_folder_to_give() -> None:
    root = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"
    one = root / model_dir_name("fixture/oracle")
    done = run_lobrec(["rescore", str(one)])
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: {one}: this is one model's folder (it holds manifest.json); give the folder that "
        f"holds the model folders: {root}\n",
    )


@pytest.mark.parametrize(
    ("option", "name"),
    [
        ("--json", "results.json"),
        ("--markdown", "report.md"),
        ("--html", "report.html"),
        ("--csv", "steps.csv"),
        ("--jsonl", "steps.jsonl"),
        ("--junit", "junit.xml"),
        ("--summary", "summary.md"),
    ],
)
def test_a_report_path_that_is_a_folder_is_a_one_line_error_and_leaves_nothing(
    tmp_path: Path, option: str, name: str
) -> None:
    """The option is named, and the file name suggested matches it (`--html out` → out/report.html)."""
    target = tmp_path / "out"
    target.mkdir()
    root = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"
    done = run_lobrec(["rescore", str(root), option, str(target)])
    assert (done.returncode, done.stderr.decode().splitlines()[-1]) == (
        2,
        f"lobrec: {option} {target}: is a folder; give the report a file name (e.g. {target / name})",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"] and not any(target.iterdir())


def test_record_refuses_a_folder_for_a_report_before_it_records(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    cassettes = tmp_path / "cassettes"
    done = run_lobrec(
        [
            *("record", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"),
            *("--cassettes", str(cassettes), "--html", str(target)),
        ]
    )
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: --html {target}: is a folder; give the report a file name "
        f"(e.g. {target / 'report.html'})\n",
    )
    assert not cassettes.exists()


def test_cassettes_that_is_a_file_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "cassettes"
    path.write_text("")
    done = run_lobrec(
        ["record", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--cassettes", str(path)]
    )
    assert (done.returncode, done.stderr.decode()) == (
        2,
        f"lobrec: --cassettes {path}: is a file, not a folder\n",
    )


# --- help and wording (issue 13 item 7) ----------------------------------------------------------

COMMANDS = [
    [],
    ["record"],
    ["rescore"],
    ["diff"],
    ["audit"],
    ["config"],
    ["fake-gateway"],
    ["suite"],
    ["suite", "check"],
    ["suite", "diff"],
    ["suite", "show"],
]
PLACEHOLDER = re.compile(r"<[a-z][a-z_\[\] ]*>|[{}]")
"""typer's own placeholders: `<list[str]>`, `<float range>`, `<path>`, `{cassettes_dir}`."""


def help_of(command: list[str]) -> str:
    done = run_lobrec([*command, "--help"])
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    return done.stdout.decode()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda words: " ".join(["lobrec", *words]))
def test_help_has_real_metavars_and_whole_sentences(command: list[str]) -> None:
    text = help_of(command)
    assert not PLACEHOLDER.findall(text), PLACEHOLDER.findall(text)
    summary = text.split("\n\n")[1]  # the paragraph after the usage line
    assert summary.strip().endswith("."), summary
    if "Commands:" in text:  # each command's line is its whole summary, never cut with "..."
        rows = text.partition("Commands:\n")[2].strip().splitlines()
        assert rows and all(row.endswith(".") and not row.endswith("...") for row in rows), rows


def test_record_help_says_where_the_key_and_the_url_come_from() -> None:
    text = " ".join(help_of(["record"]).split())
    assert "LOBSTACK_API_KEY" in text and "LOBSTACK_BASE_URL" in text


def test_fake_gateway_help_lists_its_models() -> None:
    from lobrec.fakegateway import MODELS

    text = " ".join(help_of(["fake-gateway"]).split())
    assert "fixture/oracle" in text
    assert all(model in text for model in MODELS)


def test_fake_gateway_errors_are_one_lobrec_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    remote = run_lobrec(["fake-gateway", "--host", "0.0.0.0", "--suite", str(missing)])
    unreadable = run_lobrec(["fake-gateway", "--suite", str(missing)])
    assert (remote.returncode, remote.stdout, remote.stderr.decode()) == (
        2,
        b"",
        "lobrec: refusing to listen on 0.0.0.0, which is not a loopback address; "
        "pass --allow-remote to serve other machines\n",
    )
    assert (unreadable.returncode, unreadable.stdout, unreadable.stderr.decode()) == (
        2,
        b"",
        f"lobrec: {missing}: cannot read the suite file: No such file or directory\n",
    )


def test_fake_gateway_on_a_taken_port_is_one_lobrec_line(fake_gateway: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_lobrec(["fake-gateway", "--port", str(port), "--suite", str(fake_gateway.suite_path)])
    stderr = done.stderr.decode()
    assert (done.returncode, done.stdout) == (2, b""), stderr
    assert stderr.startswith(f"lobrec: cannot listen on 127.0.0.1:{port}: ") and stderr.count("\n") == 1

"""Model output is hostile text: ANSI escapes and HTML in a reply are shown, never obeyed.

Cassettes are recorded (without sockets) from a gateway whose replies carry terminal escapes (clear
screen, set window title, bell, blink, colours), rich markup and HTML (`<script>`, `<img onerror>`)
in every field a report shows: the answering model's name, the reply text, tool names, argument
values, and a gateway error message. The model string itself is hostile too. Then the real
`lobrec rescore` writes the terminal leaderboard, the Markdown, HTML and JSON reports, and none of
them holds a live escape sequence or tag; each shows the text spelled out instead.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from lobrec.cassette.layout import model_dir_name
from lobrec.core.suite.format import Suite
from lobrec.fakegateway import answer
from lobrec.suite_file import load_suite
from tests.reports.html.test_html_report import drill_down_text
from tests.support.cli import cli_env, run_lobrec
from tests.support.faults import record_with_handler

MODEL = "evil\x1b[31m/<i>model</i>[bold]"
SCRIPT = "<script>alert(1)</script>"
ANSWERED_BY = ["\x1b[31mred\x1b[0m" + SCRIPT + "[bold]x[/bold]", "\x1b]0;pwned\x07title"]
CONTENT = "<img src=x onerror=alert(2)>\x1b[2J\x1b[5mblink"
TOOL = "<b>x</b>\x1b[1m"
ARGUMENT = "<script>alert(3)</script>\x1b[2J"
ERROR = "\x1b[31m<script>alert(4)</script>\x9b2J"

LIVE = ["\x1b[31mred", "\x1b[31m/", "\x1b]0;", "\x07", "\x1b[2J", "\x1b[5m", "\x1b[1m\n", "\x9b"]
"""The hostile sequences as a terminal would obey them (lobrec's own colours are other codes)."""
TAGS = ["<script>alert(", "<img src=x", "<b>x</b>", "<i>model</i>"]
"""The hostile markup as a browser would obey it (the report's own inline script is not one)."""


def hostile_gateway(suite: Suite) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        reply = answer(suite, request.content, "fixture/oracle")
        completion = json.loads(reply.body)
        user = body["messages"][1]["content"]
        message = completion["choices"][0]["message"]
        completion["model"] = ANSWERED_BY[len(user) % 2]
        if user.startswith("Show me lines"):  # sel-01: a wrong argument value, and text
            message["tool_calls"][0]["function"]["arguments"] = json.dumps({"path": ARGUMENT})
            message["content"] = CONTENT
        elif user.startswith("What's the weather"):  # arg-01: a made-up tool name
            message["tool_calls"][0]["function"]["name"] = TOOL
        elif user.startswith("Open a.txt"):  # par-01: an error status with a hostile message
            error = {"error": {"message": ERROR, "type": "x", "code": None}}
            return httpx.Response(400, json=error)
        elif user.startswith("Thanks"):  # none-01: hostile text where text is right
            message["content"] = CONTENT
        return httpx.Response(200, json=completion)

    return handle


@pytest.fixture(scope="module")
def hostile(small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    suite = load_suite(small_suite_path)
    root = tmp_path_factory.mktemp("hostile") / "cassettes"
    asyncio.run(record_with_handler(suite, root, MODEL, hostile_gateway(suite)))
    return root


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "forced-colour terminal"])
def test_reports_show_hostile_text_as_text(
    hostile: Path, small_suite_path: Path, tmp_path: Path, terminal: bool
) -> None:
    out = {kind: tmp_path / f"report.{kind}" for kind in ("html", "md", "json")}
    env = cli_env(FORCE_COLOR="1", TERM="xterm-256color") if terminal else cli_env(TERM="dumb")
    done = run_lobrec(
        [
            "rescore",
            str(hostile),
            "--suite",
            str(small_suite_path),
            "--html",
            str(out["html"]),
            "--markdown",
            str(out["md"]),
            "--json",
            str(out["json"]),
            "--max-errored",
            "1",  # par-01's hostile 400 errors it, on purpose
        ],
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode()
    console = (done.stdout + done.stderr).decode()
    html, markdown, results = (out[kind].read_text(encoding="utf-8") for kind in ("html", "md", "json"))

    # Nothing a terminal or a browser would obey, anywhere.
    for text in (console, html, markdown):
        for sequence in LIVE:
            assert sequence not in text, (sequence, text[:300])
    for text in (html, markdown):
        for tag in TAGS:
            assert tag not in text, tag
    assert "\x1b" not in html + markdown + results
    if not terminal:
        assert "\x1b" not in console  # not even lobrec's own colours on a pipe

    # ... and every hostile string is shown, spelled out.
    assert "answered by \\x1b[31mred\\x1b[0m<script>alert(1)</script>[bold]x[/bold] (" in console
    assert "\\x1b]0;pwned\\x07title (" in console
    assert "evil\\x1b[31m/<i>model</i>[bold]" in console
    for shown in (
        "&lt;img src=x onerror=alert(2)&gt;\\x1b[2J\\x1b[5mblink",
        "&lt;script&gt;alert(3)&lt;/script&gt;\\u001b[2J",  # inside JSON, as JSON spells it
        "&lt;b&gt;x&lt;/b&gt;\\x1b[1m",
        "\\x1b[31m&lt;script&gt;alert(4)&lt;/script&gt;\\x9b2J",
        "evil\\x1b[31m/&lt;i&gt;model&lt;/i&gt;[bold]",
    ):
        assert shown in html or shown in drill_down_text(html), shown
    assert "evil\\\\x1b\\[31m/\\<i\\>model\\</i\\>\\[bold\\]" in markdown
    assert json.loads(results)["models"][0]["model"] == MODEL  # the data keeps the exact text


# --- paths and names the commands print (issue 12 item 5) ----------------------------------------

PWNED = "\x1b]0;PWNED\x07\x1b[2J"
"""Retitle the terminal, ring, clear the screen: a model named so lives in folder `FOLDER`."""
FOLDER = "%1B%5D0%3BPWNED%07%1B%5B2J"
SPELLED = "\\x1b]0;PWNED\\x07\\x1b[2J"


def inert(done: Any) -> str:
    """stdout and stderr together, after checking that neither holds a raw ESC or BEL byte."""
    raw = done.stdout + done.stderr
    assert b"\x1b" not in raw and b"\x07" not in raw, raw[:400]
    return raw.decode()


@pytest.fixture(scope="module")
def pwned(small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model folder of a model named `PWNED` (its replies hostile too)."""
    suite = load_suite(small_suite_path)
    root = tmp_path_factory.mktemp("pwned") / "cassettes"
    asyncio.run(record_with_handler(suite, root, PWNED, hostile_gateway(suite)))
    assert (root / FOLDER).is_dir()
    return root / FOLDER


@pytest.mark.parametrize("markdown", [False, True], ids=["terminal", "markdown to stdout"])
def test_diff_shows_hostile_model_names_as_text(
    hostile: Path, pwned: Path, small_suite_path: Path, markdown: bool
) -> None:
    a = hostile / model_dir_name(MODEL)
    args = ["diff", str(a), str(pwned), "--suite", str(small_suite_path)]
    done = run_lobrec([*args, "--markdown", "-"] if markdown else args)
    text = inert(done)
    assert done.returncode == 0, text
    assert SPELLED in done.stderr.decode() if markdown else SPELLED in done.stdout.decode()
    if markdown:  # the table on stderr, the Markdown (which escapes \\, [ and ]) on stdout
        assert r"\\x1b\]0;PWNED\\x07\\x1b\[2J" in done.stdout.decode()


def test_diff_of_a_folder_named_with_escapes_names_it_as_text(pwned: Path, tmp_path: Path) -> None:
    folder = tmp_path / PWNED
    folder.mkdir()
    done = run_lobrec(["diff", str(folder), str(pwned)])
    assert (done.returncode, inert(done)) == (
        2,
        f"lobrec: {tmp_path}/{SPELLED}: not a model cassette directory (no manifest.json); "
        "name e.g. cassettes/auto\n",
    )


@pytest.fixture
def hostile_suites(small_suite_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The small suite and a copy named `PWNED` with a case id holding it, both in a folder of
    that name: `OLD`, `NEW`."""
    folder = tmp_path / PWNED
    folder.mkdir()
    old = folder / "old.json"
    old.write_bytes(small_suite_path.read_bytes())
    data = json.loads(small_suite_path.read_bytes())
    data["name"] = f"small{PWNED}"
    data["cases"][0]["id"] = f"sel-01{PWNED}"
    data["cases"][0]["note"] = f"a note{PWNED}\nover two lines"
    new = folder / "new.json"
    new.write_text(json.dumps(data), encoding="utf-8")
    return old, new


@pytest.mark.parametrize(
    "command",
    [
        ["suite", "check", "{folder}/missing.json"],
        ["suite", "check", "{new}"],
        ["suite", "check", "{new}", "--against", "{old}"],
        ["suite", "diff", "{old}", "{new}"],
        ["suite", "diff", "{folder}/missing.json", "{new}"],
        ["suite", "show", "--suite", "{new}"],
        ["suite", "show", f"sel-01{PWNED}", "--suite", "{new}"],
        ["suite", "show", f"nope{PWNED}", "--suite", "{new}"],
        ["audit", "{folder}"],
        ["rescore", "{folder}"],
    ],
    ids=[
        "check a missing file",
        "check",
        "check --against",
        "diff",
        "diff a missing file",
        "show",
        "show a case",
        "show an unknown case",
        "audit",
        "rescore",
    ],
)
def test_suite_commands_show_hostile_paths_names_and_ids_as_text(
    hostile_suites: tuple[Path, Path], command: list[str]
) -> None:
    old, new = hostile_suites
    values = {"folder": str(old.parent), "old": str(old), "new": str(new)}
    done = run_lobrec([word.format(**values) if "{" in word else word for word in command])
    assert SPELLED in inert(done)  # shown, spelled out, not obeyed

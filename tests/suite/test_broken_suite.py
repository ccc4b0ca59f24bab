"""A broken suite file: one line naming the file and where in it, exit 2, and nothing runs.

Each row breaks a copy of the small suite in one way. `lobrec record` and `lobrec rescore` (real
subprocesses) must print exactly one line, `lobrec: FILE: WHERE: ...` (a path, or a case id and the
path inside it), exit 2, send no request to the gateway, and write nothing; `lobrec.load_suite`, the
library's way in, refuses the same file with the same words.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import lobrec
from lobrec.cli import app
from lobrec.core.suite.format import CASE_ID_RULE
from tests.support.cli import cli_env, run_lobrec

IN_CASE = "steps[0].calls[0].checks[0]"


def _json(change: Callable[[dict], None]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        suite = json.loads(data)
        change(suite)
        return json.dumps(suite, indent=2).encode()

    return edit


def _check(suite: dict) -> dict:
    return suite["cases"][0]["steps"][0]["calls"][0]["checks"][0]


ROWS: list[tuple[str, Callable[[bytes], bytes], str]] = [
    ("syntax error", lambda data: data[: len(data) // 2], "not valid JSON: Input data was truncated"),
    (
        "not JSON at all",
        lambda data: b"cases:\n  - id: sel-01\n",
        "not valid JSON: JSON is malformed: invalid character (byte 0)",
    ),
    (
        "a repeated key",
        lambda data: data.replace(b"{", b'{"version": "9.9.9", ', 1),
        "the key 'version' appears more than once",
    ),
    (
        "wrong type",
        _json(lambda s: s["cases"][0].update(tools="read_file")),
        "case sel-01: Expected `array`, got `str` - at `tools`",
    ),
    (
        "unknown field",
        _json(lambda s: _check(s).update(valeu="README.md")),
        f"case sel-01: Object contains unknown field `valeu` - at `{IN_CASE}`",
    ),
    (
        "unknown check kind",
        _json(lambda s: _check(s).update(kind="equals")),
        f"case sel-01: Invalid value 'equals' - at `{IN_CASE}.kind`; a check's kind is one of: eq, subset, "
        "regex, oneOf, contains, present, absent, range",
    ),
    (
        "unknown step kind",
        _json(lambda s: s["cases"][0]["steps"][0].update(expect="calls")),
        "case sel-01: Invalid value 'calls' - at `steps[0].expect`; a step's expect is one of: call, no_call",
    ),
    (
        "a case that is not an object",
        _json(lambda s: s["cases"].insert(1, 7)),
        "Expected `object`, got `int` - at `$.cases[1]`",
    ),
    (
        "check without its argument",
        _json(lambda s: _check(s).pop("arg")),
        f"case sel-01: Object missing required field `arg` - at `{IN_CASE}`",
    ),
    (
        "check on an argument the tool does not have",
        _json(lambda s: _check(s).update(arg="pth")),
        f"case sel-01: {IN_CASE}: argument 'pth' is not a parameter of read_file",
    ),
    (
        "a check pattern with no linear-time translation (nested lookaround)",
        _json(
            lambda s: _check(s).clear() or _check(s).update(kind="regex", arg="path", pattern="^(?!x(?!y))")
        ),
        f"case sel-01: {IN_CASE}: pattern '^(?!x(?!y))' cannot be used: lookaround has no linear-time "
        "translation here: it is supported only as ^(?=...) or ^(?!...) at the start, (?<=...) or (?<!...) "
        "first, and (?=...) or (?!...) last in an alternative, never nested",
    ),
    (
        "expected call to a tool the case does not offer",
        _json(lambda s: s["cases"][0]["steps"][0]["calls"][0].update(name="get_weather")),
        "case sel-01: steps[0].calls[0].name: 'get_weather' is not a tool this case offers",
    ),
    (
        "a tool schema the validator refuses",
        _json(lambda s: s["tools"][0]["function"]["parameters"].update(patternProperties={"x": {}})),
        "tools[0] (read_file): parameters: unsupported keyword 'patternProperties' at $",
    ),
    (
        "two cases with one id",
        _json(lambda s: s["cases"][1].update(id=s["cases"][0]["id"])),
        "cases[1]: id 'sel-01' is also cases[0]",
    ),
    (
        "two case ids that differ only in letter case",
        _json(lambda s: s["cases"][1].update(id=s["cases"][0]["id"].upper())),
        "cases[1]: id 'SEL-01' differs from cases[0]'s 'sel-01' only in case: on a case-insensitive file "
        "system (macOS, Windows) both would be one cassette file",
    ),
    (
        "a case id that cannot name a cassette file",
        _json(lambda s: s["cases"][0].update(id="../sel-01")),
        f"cases[0]: id '../sel-01' cannot name a cassette file (<id>.json): it holds a path separator '/'; "
        f"{CASE_ID_RULE}",
    ),
    (
        "a suite version that is not a version",
        _json(lambda s: s.update(version="draft")),
        "version: 'draft' is not a semantic version (MAJOR.MINOR.PATCH)",
    ),
]


@pytest.mark.parametrize(("edit", "message"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_record_with_a_broken_suite_runs_nothing(
    fake_gateway: Any, tmp_path: Path, edit: Callable[[bytes], bytes], message: str
) -> None:
    """The real command, as a subprocess: one line, exit 2, no request, no file."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(edit(fake_gateway.suite_path.read_bytes()))
    args = ["record", "--model", "fixture/oracle", "--base-url", fake_gateway.url, "--suite", str(broken)]
    args += ["--cassettes", str(tmp_path / "cassettes"), "--json", str(tmp_path / "results.json")]

    done = run_lobrec(args, env=cli_env())

    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", f"lobrec: {broken}: {message}\n")
    assert fake_gateway.log() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json"]


@pytest.mark.parametrize(("edit", "message"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_rescore_with_a_broken_suite_runs_nothing(
    small_suite_path: Path, tmp_path: Path, edit: Callable[[bytes], bytes], message: str
) -> None:
    """The same through `lobrec rescore` (in-process, to stay quick)."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(edit(small_suite_path.read_bytes()))
    (tmp_path / "cassettes").mkdir()
    args = [
        "rescore",
        str(tmp_path / "cassettes"),
        "--suite",
        str(broken),
        "--json",
        str(tmp_path / "r.json"),
    ]

    result = CliRunner().invoke(app, args)

    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"lobrec: {broken}: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "cassettes"]


@pytest.mark.parametrize(("edit", "message"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_the_library_refuses_what_the_cli_refuses(
    small_suite_path: Path, tmp_path: Path, edit: Callable[[bytes], bytes], message: str
) -> None:
    """`lobrec.load_suite`, which a program hands to `lobrec.record` or `lobrec.rescore`, applies
    every rule the commands apply, in the same words (the CLI adds only `lobrec: `)."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(edit(small_suite_path.read_bytes()))

    with pytest.raises(lobrec.SuiteError) as refused:
        lobrec.load_suite(broken)

    assert str(refused.value) == f"{broken}: {message}"

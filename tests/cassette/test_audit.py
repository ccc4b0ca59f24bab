"""`lobrec audit`: credentials and malformed files in a cassette directory, one finding per line.

A clean recording (made through the real fake-gateway process, with a key set) has no findings.
Every hostile file of `test_hostile_cassettes.ROWS` is a finding, and so is every credential row
below; no finding ever prints the secret it found.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from lobrec.cassette.audit import audit
from lobrec.cassette.layout import model_dir_name
from lobrec.cli._command import Command
from lobrec.cli.audit import audit_command
from lobrec.core.suite.format import Suite
from lobrec.running.gateway import Gateway
from lobrec.running.recording import RecordOptions, record
from lobrec.suite_file import load_suite
from tests.cassette.test_hostile_cassettes import MODEL, ROWS, Hostile, planted

KEY = "lsk-canary-4f9d2c7be1a04c3f"
SK = "sk-proj-" + "A1b2C3d4" * 5
GHP = "ghp_" + "x1Y2z3W4" * 5


def app() -> typer.Typer:
    """`lobrec audit` as lobrec registers it: the command function on a typer app, with the command
    layer's class (`Command`, whose handler turns an error into its line and exit)."""
    application = typer.Typer()
    application.command(cls=Command)(audit_command)
    return application


def lines(root: Path, **kwargs: Any) -> list[str]:
    return [str(finding) for finding in audit(root, **kwargs)]


def test_a_real_recording_is_clean(fake_gateway: Any, tmp_path: Path) -> None:
    """Recorded with a key through the fake gateway process: nothing to report, exit 0."""
    root = tmp_path / "cassettes"
    options = RecordOptions(models=[MODEL, "auto"], cassettes=root)
    gateway = Gateway(base_url=fake_gateway.url, api_key=KEY)
    asyncio.run(record(load_suite(fake_gateway.suite_path), gateway, options))
    (root / "README.md").write_text("Cassettes recorded with lobrec.\n")

    assert lines(root, secrets=[KEY]) == []
    result = CliRunner().invoke(app(), [str(root)], env={"LOBSTACK_API_KEY": KEY})
    assert (result.exit_code, result.stdout) == (0, f"{root}: no findings\n")


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_every_hostile_file_is_a_finding(recorded: tuple[Suite, Path], tmp_path: Path, row: Hostile) -> None:
    suite, _ = recorded
    root, path = planted(recorded, tmp_path, row)
    expected = row.audit if row.audit is not None else row.reason
    assert expected is not None
    assert lines(root, suite_version=suite.version) == [expected.format(file=path, tmp=tmp_path)]


# --- credentials and stray files ------------------------------------------------------------------


def _in_cassette(change: Callable[[dict], None]) -> Callable[[Path], Path]:
    def plant(model_dir: Path) -> Path:
        path = model_dir / "sel-01.json"
        data = json.loads(path.read_bytes())
        change(data)
        path.write_text(json.dumps(data, indent=2))
        return path

    return plant


def _request(data: dict) -> dict:
    return data["interactions"][0]["request"]


def _response(data: dict) -> dict:
    return data["interactions"][0]["response"]


def _content(text: str) -> Callable[[dict], None]:
    """Put `text` into the recorded reply's message content (inside the body's JSON)."""

    def change(data: dict) -> None:
        body = json.loads(_response(data)["body"]["string"])
        body["choices"][0]["message"]["content"] = text
        _response(data)["body"]["string"] = json.dumps(body)

    return change


def _file(name: str, text: str, top: bool = False) -> Callable[[Path], Path]:
    def plant(model_dir: Path) -> Path:
        path = (model_dir.parent if top else model_dir) / name
        path.write_text(text)
        return path

    return plant


def _unlisted(model_dir: Path) -> Path:
    manifest = model_dir / "manifest.json"
    data = json.loads(manifest.read_bytes())
    del data["cases"]["sel-01"]
    manifest.write_text(json.dumps(data))
    return model_dir / "sel-01.json"


def _listed_missing(model_dir: Path) -> Path:
    (model_dir / "sel-01.json").unlink()
    return model_dir / "manifest.json"


I0 = "$.interactions[0]"
CREDENTIALS: list[tuple[str, Callable[[Path], Path], list[str], str | None]] = [
    (
        "Authorization request header",
        _in_cassette(lambda d: _request(d)["headers"].update({"Authorization": [f"Bearer {KEY}"]})),
        [
            f"{{file}}: {I0}.request.headers.Authorization: a credential header in a request",
            f"{{file}}: {I0}.request.headers.Authorization[0]: holds the value of LOBSTACK_API_KEY",
            f"{{file}}: {I0}.request.headers.Authorization[0]: "
            "looks like a bearer token (Bearer…, 34 characters)",
        ],
        KEY,
    ),
    (
        "api-key request header",
        _in_cassette(lambda d: _request(d)["headers"].update({"api-key": [KEY]})),
        [
            f"{{file}}: {I0}.request.headers.api-key: a credential header in a request",
            f"{{file}}: {I0}.request.headers.api-key[0]: holds the value of LOBSTACK_API_KEY",
        ],
        KEY,
    ),
    (
        "another request header",
        _in_cassette(lambda d: _request(d)["headers"].update({"user-agent": ["curl/8"]})),
        [
            f"{{file}}: {I0}.request.headers.user-agent: "
            "a request header lobrec never records (only content-type)"
        ],
        None,
    ),
    (
        "set-cookie response header",
        _in_cassette(lambda d: _response(d)["headers"].update({"set-cookie": ["session=abc"]})),
        [f"{{file}}: {I0}.response.headers.set-cookie: a credential header in a response"],
        None,
    ),
    (
        "sk- key in a reply body",
        _in_cassette(_content(f"use {SK} for this")),
        [f"{{file}}: {I0}.response.body.string: looks like an sk- API key (sk-pro…, 48 characters)"],
        SK,
    ),
    (
        "bearer string in a request body",
        _in_cassette(
            lambda d: _request(d).update({"body": _request(d)["body"].replace("README", f"Bearer {GHP}")})
        ),
        [
            f"{{file}}: {I0}.request.body: looks like a GitHub token (ghp_x1…, 44 characters)",
            f"{{file}}: {I0}.request.body: looks like a bearer token (Bearer…, 55 characters)",
        ],
        GHP,
    ),
    (
        "api_key pair in a reply",
        _in_cassette(_content('config: api_key = "Zx81kQp0Lm"')),
        [f"{{file}}: {I0}.response.body.string: looks like an API key assignment (api_ke…, 22 characters)"],
        "Zx81kQp0Lm",
    ),
    (
        "the exact LOBSTACK_API_KEY value",
        _in_cassette(_content(f"key={KEY}")),
        [f"{{file}}: {I0}.response.body.string: holds the value of LOBSTACK_API_KEY"],
        KEY,
    ),
    (
        "credential in a URL query",
        _in_cassette(lambda d: _request(d).update({"uri": _request(d)["uri"] + "?key=abc"})),
        [f"{{file}}: {I0}.request.uri: not a chat-completions URL: '{{uri}}?<query>'"],
        "abc",
    ),
    (
        "token in a broken file",
        _file("par-01.json", f"not json {SK}\n"),
        [
            "{file}: not valid JSON: JSON is malformed: invalid character (byte 4)",
            "{file}: line 1: looks like an sk- API key (sk-pro…, 48 characters)",
        ],
        SK,
    ),
    (
        "token in a top-level README",
        _file("README.md", f"export OPENAI_API_KEY={SK}\n", top=True),
        ["{file}: line 1: looks like an sk- API key (sk-pro…, 48 characters)"],
        SK,
    ),
    (
        "stray top-level file",
        _file("notes.txt", "hello", top=True),
        ["{file}: not a model directory (only model directories belong here)"],
        None,
    ),
    (
        "leftover temporary file",
        _file(".sel-01.json.k3j2h1.tmp", '{"version": 1, "inter'),
        ["{file}: a temporary file left by an interrupted write; delete it"],
        None,
    ),
    (
        "file that is not a cassette name",
        _file("sel-01.yaml", "interactions: []\n"),
        ["{file}: not a cassette file name (<case-id>.json)"],
        None,
    ),
    (
        "cassette the manifest does not list",
        _unlisted,
        ["{file}: not listed in manifest.json: replay treats the case as stale"],
        None,
    ),
    (
        "manifest entry without a cassette",
        _listed_missing,
        ["{file}: $.cases.sel-01: lists case 'sel-01', which has no cassette"],
        None,
    ),
]


@pytest.mark.parametrize(
    ("plant", "expected", "secret"), [row[1:] for row in CREDENTIALS], ids=[row[0] for row in CREDENTIALS]
)
def test_credentials_and_stray_files_are_findings(
    recorded: tuple[Suite, Path],
    tmp_path: Path,
    plant: Callable[[Path], Path],
    expected: list[str],
    secret: str | None,
) -> None:
    _, good = recorded
    root = tmp_path / "cassettes"
    shutil.copytree(good, root)
    model_dir = root / model_dir_name(MODEL)
    uri = json.loads((model_dir / "sel-01.json").read_bytes())["interactions"][0]["request"]["uri"]
    path = plant(model_dir)

    found = lines(root, secrets=[KEY])

    assert found == [line.format(file=path, uri=uri) for line in expected]
    if secret is not None:
        assert not any(secret in line for line in found), "a finding must not print the secret"
        result = CliRunner().invoke(app(), [str(root)], env={"LOBSTACK_API_KEY": KEY})
        assert result.exit_code == 1
        assert secret not in result.stdout + result.stderr


def test_cli_prints_one_line_per_finding_and_exits_1(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    _, good = recorded
    root = tmp_path / "cassettes"
    shutil.copytree(good, root)
    evil = root / model_dir_name(MODEL) / "sel-01\x1b[2J.json"
    evil.write_text("{}")
    (root / model_dir_name(MODEL) / "arg-01.json").write_text("[]")

    result = CliRunner().invoke(app(), [str(root)])

    assert result.exit_code == 1
    model_dir = root / model_dir_name(MODEL)
    assert result.stdout.splitlines() == [
        f"{model_dir}/arg-01.json: not a cassette: Expected `object`, got `array`",
        f"{model_dir}/sel-01\\x1b[2J.json: not a cassette file name (<case-id>.json)",
    ]
    assert result.stderr == f"lobrec: 2 finding(s) in {root}\n"


def test_cli_refuses_a_missing_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(app(), [str(tmp_path / "nope")])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"lobrec: {tmp_path / 'nope'}: no such cassette directory\n",
    )

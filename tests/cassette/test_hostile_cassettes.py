"""Hostile or broken cassettes: each row plants one bad file in a good recording and rescores.

Cassettes arrive in pull requests, so loading one must never run code, follow a symlink, read more
than `MAX_CASSETTE_BYTES`, or turn a name from inside a file into a path. Each row gives its case
(or, for a bad manifest, its model's cases) a one-line reason naming the file, while every other
case still scores. `ROWS` is shared with `test_audit.py`: the audit must flag each of them too.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from lobrec.cassette.format import MAX_CASSETTE_BYTES
from lobrec.cassette.layout import model_dir_name
from lobrec.core.metrics.results import CaseResult, ModelResult, decode_results
from lobrec.core.suite.format import Suite
from lobrec.running.replay import rescore
from tests.support.cli import run_lobrec
from tests.support.faults import oracle_handler, record_with_handler

MODEL = "fixture/oracle"
OTHER = "auto"
TARGET = "sel-01"
PWNED = "lobrec-pwned-marker"


@dataclass(frozen=True)
class Hostile:
    """One planted file. `plant(model_dir, tmp)` writes it; `reason` is the whole reason the case
    gets, with `{file}` for the planted path; `audit` is the finding `lobrec audit` prints for it."""

    id: str
    plant: Callable[[Path, Path], Path]
    reason: str | None
    """None: the case still scores (the oddity is harmless to replay)."""
    audit: str | None = None
    """None: the same line as `reason`."""
    whole_model: bool = False
    """The manifest is bad: every case of the model is errored with the reason."""


def _cassette(model_dir: Path) -> Path:
    return model_dir / f"{TARGET}.json"


def _replace(text: bytes) -> Callable[[Path, Path], Path]:
    def plant(model_dir: Path, tmp: Path) -> Path:
        path = _cassette(model_dir)
        path.write_bytes(text.replace(b"{tmp}", str(tmp).encode()))
        return path

    return plant


def _edit(change: Callable[[dict], None]) -> Callable[[Path, Path], Path]:
    """Load the good cassette as plain JSON, change it, write it back."""

    def plant(model_dir: Path, tmp: Path) -> Path:
        path = _cassette(model_dir)
        data = json.loads(path.read_bytes())
        change(data)
        path.write_text(json.dumps(data, indent=2))
        return path

    return plant


def _symlink_out(model_dir: Path, tmp: Path) -> Path:
    path = _cassette(model_dir)
    path.unlink()
    path.symlink_to("/etc/passwd")
    return path


def _text(change: Callable[[bytes], bytes], name: str = f"{TARGET}.json") -> Callable[[Path, Path], Path]:
    """Change the good file as text (what a JSON round trip cannot write: a repeated key)."""

    def plant(model_dir: Path, tmp: Path) -> Path:
        path = model_dir / name
        path.write_bytes(change(path.read_bytes()))
        return path

    return plant


def _first_key(text: bytes, key: bytes, ghost: bytes) -> bytes:
    """`ghost` as a first spelling of `key`, before the real one (which msgspec would keep)."""
    at = text.index(b'"' + key + b'":')
    return text[:at] + b'"' + key + b'": ' + ghost + b", " + text[at:]


def _sparse(model_dir: Path, tmp: Path) -> Path:
    path = _cassette(model_dir)
    with path.open("wb") as handle:
        handle.truncate(1024**3)  # 1 GiB that takes no disk
    return path


def _fifo(model_dir: Path, tmp: Path) -> Path:
    path = _cassette(model_dir)
    path.unlink()
    os.mkfifo(path)
    return path


def _directory(model_dir: Path, tmp: Path) -> Path:
    path = _cassette(model_dir)
    path.unlink()
    path.mkdir()
    return path


def _manifest(change: Callable[[dict], None]) -> Callable[[Path, Path], Path]:
    def plant(model_dir: Path, tmp: Path) -> Path:
        path = model_dir / "manifest.json"
        data = json.loads(path.read_bytes())
        change(data)
        path.write_text(json.dumps(data, indent=2))
        return path

    return plant


def _manifest_symlink(model_dir: Path, tmp: Path) -> Path:
    path = model_dir / "manifest.json"
    outside = tmp / "outside-manifest.json"
    path.rename(outside)
    path.symlink_to(outside)
    return path


def _set(*keys: str | int, value: object) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        node = data
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value

    return change


def _first_response(*keys: str | int, value: object) -> Callable[[dict], None]:
    return _set("interactions", 0, "response", *keys, value=value)


YAML_EXEC = b'!!python/object/apply:os.system ["touch {tmp}/' + PWNED.encode() + b'"]\n'
YAML_BOMB = b"".join(
    [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n']
    + [
        f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n".encode()
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)
NOT_JSON = "{file}: not valid JSON: JSON is malformed: invalid character (byte 0)"

ROWS: list[Hostile] = [
    Hostile(
        "YAML with a !!python/object/apply tag",
        _replace(YAML_EXEC),
        NOT_JSON,
    ),
    Hostile(
        "YAML alias bomb",
        _replace(YAML_BOMB),
        NOT_JSON,
    ),
    Hostile(
        "symlink to /etc/passwd",
        _symlink_out,
        "{file}: is a symlink; cassettes must be regular files",
        "{file}: is a symlink (to /etc/passwd); cassettes must be regular files",
    ),
    Hostile(
        "1 GiB sparse file",
        _sparse,
        f"{{file}}: 1073741824 bytes is over the {MAX_CASSETTE_BYTES}-byte cassette limit",
    ),
    Hostile(
        "FIFO in place of a cassette",
        _fifo,
        "{file}: not a regular file",
    ),
    Hostile(
        "directory in place of a cassette",
        _directory,
        "{file}: not a regular file",
    ),
    Hostile(
        "not UTF-8",
        _replace(b'{"version": 1, "interactions": [], "\xff": 1}'),
        "{file}: not UTF-8 text",
    ),
    Hostile(
        "deeply nested JSON",
        _replace(b'{"version": 1, "interactions": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}"),
        "{file}: not a cassette: Expected `object`, got `array` - at `$.interactions[0]`",
    ),
    Hostile(
        "unknown field",
        _edit(_first_response("exec", value="rm -rf /")),
        "{file}: not a cassette: Object contains unknown field `exec` - at `$.interactions[0].response`",
    ),
    Hostile(
        "wrong type",
        _edit(_first_response("status", "code", value="200")),
        "{file}: not a cassette: Expected `int`, got `str` - at `$.interactions[0].response.status.code`",
    ),
    Hostile(
        "interactions not a list",
        _edit(_set("interactions", value={"0": "x"})),
        "{file}: not a cassette: Expected `array`, got `object` - at `$.interactions`",
    ),
    Hostile(
        "missing field",
        _edit(lambda data: data.pop("interactions")),
        "{file}: not a cassette: Object missing required field `interactions`",
    ),
    Hostile(
        "another format version",
        _edit(_set("version", value=2)),
        "{file}: not a cassette: cassette format version 2, expected 1",
    ),
    Hostile(
        "elapsed header that is not a number",
        _edit(_first_response("headers", "x-lobrec-elapsed-ms", value=["nan"])),
        "step 1: {file}: a recorded response cannot be replayed: x-lobrec-elapsed-ms is nan, not a duration",
        "{file}: $.interactions[0].response.headers.x-lobrec-elapsed-ms: 'nan' is not a duration in ms",
    ),
    Hostile(
        "elapsed header that is empty",
        _edit(_first_response("headers", "x-lobrec-elapsed-ms", value=[])),
        "step 1: {file}: a recorded response cannot be replayed: x-lobrec-elapsed-ms has 0 values, not one",
        "{file}: $.interactions[0].response.headers.x-lobrec-elapsed-ms: [] is not a duration in ms",
    ),
    Hostile(
        "manifest whose model is ../../x",
        _manifest(_set("model", value="../../x")),
        "{file}: model '../../x' does not belong in this directory",
        "{file}: model '../../x' does not belong in directory 'fixture%2Foracle' (expected '%2E.%2F..%2Fx')",
        whole_model=True,
    ),
    Hostile(
        "manifest that is a symlink",
        _manifest_symlink,
        "{file}: is a symlink; cassettes must be regular files",
        "{file}: is a symlink (to {tmp}/outside-manifest.json); cassettes must be regular files",
        whole_model=True,
    ),
    Hostile(
        "manifest of another major suite version",
        _manifest(_set("suite", "version", value="2.0.0")),
        "{dir}: recorded on suite {suite} 2.0.0, the suite is {suite} {version}: another major version "
        "cannot be re-judged",
        "{file}: $.suite.version: recorded on suite 2.0.0; another major version cannot be re-judged",
        whole_model=True,
    ),
    Hostile(
        "manifest whose suite version is empty",
        _manifest(_set("suite", "version", value="")),
        "{file}: suite version '' is not a version",
        "{file}: $.suite.version: '' is not a suite version",
        whole_model=True,
    ),
    Hostile(
        "manifest with wrong types",
        _manifest(_set("cases", value=[])),
        "{file}: not a manifest: Expected `object`, got `array` - at `$.cases`",
        whole_model=True,
    ),
    Hostile(
        "manifest listing a case id that is a path",
        _manifest(_set("cases", "../../../etc/passwd", value={"fingerprint": "sha256:0"})),
        None,
        "{file}: $.cases['../../../etc/passwd']: not a case id that can name a cassette file",
    ),
    Hostile(
        "repeated interactions key hiding a ghost answer",
        _text(lambda text: _first_key(text, b"interactions", b"[]")),
        "{file}: ambiguous JSON: the key 'interactions' appears more than once",
    ),
    Hostile(
        "repeated headers key hiding other headers",
        _text(lambda text: _first_key(text, b"headers", b'{"x-ghost": ["a first-key reader sees this"]}')),
        "{file}: ambiguous JSON: the key 'headers' appears more than once",
    ),
    Hostile(
        "manifest with a repeated cases key",
        _text(lambda text: _first_key(text, b"cases", b"{}"), name="manifest.json"),
        "{file}: ambiguous JSON: the key 'cases' appears more than once",
        whole_model=True,
    ),
    Hostile(
        "content-encoding gzip on a decoded body",
        _edit(_first_response("headers", "content-encoding", value=["gzip"])),
        None,
        "{file}: $.interactions[0].response.headers.content-encoding: content-encoding on a recorded "
        "body (cassettes hold decoded text; replay ignores it)",
    ),
    Hostile(
        "gateway-supplied x-lobrec-error on an answer",
        _edit(_first_response("headers", "x-lobrec-error", value=["TransportError: forged"])),
        None,
        "{file}: $.interactions[0].response: x-lobrec-error on a status-200 answer",
    ),
    Hostile(
        "request URI on a remote host",
        _edit(_set("interactions", 0, "request", "uri", value="http://attacker.example/steal")),
        None,
        "{file}: $.interactions[0].request.uri: not a chat-completions URL: 'http://attacker.example/steal'",
    ),
]


def planted(recorded: tuple[Suite, Path], tmp_path: Path, row: Hostile) -> tuple[Path, Path]:
    """A copy of the good recording with the row's file planted; returns (root, planted path)."""
    _, good = recorded
    root = tmp_path / "cassettes"
    shutil.copytree(good, root, symlinks=True)
    path = row.plant(root / model_dir_name(MODEL), tmp_path)
    return root, path


def cases_of(run_models: list[ModelResult], model: str) -> dict[str, CaseResult]:
    (found,) = [m for m in run_models if m.model == model]
    return {case.id: case for case in found.cases}


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_hostile_cassette(recorded: tuple[Suite, Path], tmp_path: Path, row: Hostile) -> None:
    suite, _ = recorded
    root, path = planted(recorded, tmp_path, row)
    before = sorted(p.name for p in tmp_path.parent.iterdir())

    run = asyncio.run(rescore(suite, root)).run

    mine, other = cases_of(run.models, MODEL), cases_of(run.models, OTHER)
    hit = set(mine) if row.whole_model else {TARGET}
    for case_id, case in mine.items():
        if case_id in hit and row.reason is not None:
            expected = row.reason.format(
                file=path, tmp=tmp_path, dir=path.parent, suite=suite.name, version=suite.version
            )
            assert (case.status, case.reason) == ("errored", expected)
            assert "\n" not in expected
        else:
            assert (case.status, case.passed) == ("scored", True), case.reason
    # `auto` answers as the model it routes to, which misses some cases: scored is what matters.
    assert all(case.status == "scored" for case in other.values())
    # Nothing was executed or written outside the cassette directory.
    assert not (tmp_path / PWNED).exists()
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before


def test_model_string_never_becomes_a_path(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    """A model recorded as `../../x` lives in `%2E.%2F..%2Fx`, inside the directory, and replays
    under its own name."""
    suite, _ = recorded
    root = tmp_path / "deep" / "cassettes"
    asyncio.run(record_with_handler(suite, root, "../../x", oracle_handler(suite, MODEL)))
    assert sorted(p.name for p in root.iterdir()) == ["%2E.%2F..%2Fx"]
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["cassettes"]
    run = asyncio.run(rescore(suite, root)).run
    assert [(m.model, m.counts.scored) for m in run.models] == [("../../x", 5)]


def test_a_symlinked_model_directory_is_never_read(recorded: tuple[Suite, Path], tmp_path: Path) -> None:
    suite, good = recorded
    root = tmp_path / "cassettes"
    shutil.copytree(good, root)
    outside = tmp_path / "outside"
    shutil.copytree(good / model_dir_name(MODEL), outside)
    (root / "evil").symlink_to(outside, target_is_directory=True)
    run = asyncio.run(rescore(suite, root)).run
    assert [m.model for m in run.models] == [OTHER, MODEL]


def test_cli_rescore_reports_every_hostile_file_and_scores_the_rest(
    recorded: tuple[Suite, Path], small_suite_path: Path, tmp_path: Path
) -> None:
    """Four bad cassettes at once through `lobrec rescore`: exit 4, one stderr line naming the
    unreadable cases, each reason in the results file, and the fifth case scored."""
    _, good = recorded
    root = tmp_path / "cassettes"
    shutil.copytree(good, root)
    model_dir = root / model_dir_name(MODEL)
    bad = {"sel-01": YAML_EXEC, "arg-01": b"\x00" * 10, "par-01": b"[]", "chain-01": b'{"version": 1}'}
    for case_id, data in bad.items():
        (model_dir / f"{case_id}.json").write_bytes(data.replace(b"{tmp}", str(tmp_path).encode()))
    out = tmp_path / "results.json"

    done = run_lobrec(["rescore", str(root), "--suite", str(small_suite_path), "--json", str(out)])

    assert done.returncode == 6
    assert done.stderr.decode().splitlines()[-1] == (
        "lobrec: gate failed: 4 unreadable cases in 1 model, as listed above "
        "(--allow-unreadable accepts them)"
    )
    assert done.stderr.decode().splitlines()[-2] == (
        "lobrec: fixture/oracle: 4 unreadable (sel-01, arg-01, par-01, chain-01). "
        f"Record them with: lobrec record --model fixture/oracle --cassettes {root} "
        f"--suite {small_suite_path} --case sel-01 --case arg-01 --case par-01 --case chain-01"
    )
    cases = cases_of(decode_results(out.read_bytes()).models, MODEL)
    assert {case_id: case.status for case_id, case in cases.items()} == {
        "sel-01": "errored",
        "arg-01": "errored",
        "par-01": "errored",
        "chain-01": "errored",
        "none-01": "scored",
    }
    assert (
        cases["par-01"].reason == f"{model_dir}/par-01.json: not a cassette: Expected `object`, got `array`"
    )
    assert not (tmp_path / PWNED).exists()

"""Suite and results files lobrec reads (issue 25, defect 7).

Every file a command is given is read as cassettes are (`lobrec.files.read_capped`): a regular
file only, never a FIFO (opened non-blocking: `suite check` of a FIFO used to wait forever) nor a
device, and never more than a cap decided from `fstat` (a 3 GB sparse file used to end in a
MemoryError traceback). A results file given to `diff` is decoded strictly and its nesting capped
before msgspec recurses into it. Each refusal is one line naming the file, exit 2.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from lobrec.cli import app
from lobrec.core.metrics.results import MAX_RESULTS_DEPTH
from lobrec.suite_file import MAX_SUITE_BYTES
from tests.support.cli import run_lobrec
from tests.support.examples import costly

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "fixtures" / "cassettes"
EXPECTED = ROOT / "fixtures" / "expected-results.json"
SUITE = ROOT / "suite" / "suite.json"
RESULTS_LIMIT = 64 * 1024 * 1024


def _plant(kind: str, path: Path) -> str:
    """Make a hostile file at `path`; return what lobrec must say about it (after `PATH: `)."""
    if kind == "FIFO":
        os.mkfifo(path)
        return "not a regular file"
    if kind == "3 GB sparse file":
        with path.open("wb") as handle:
            handle.truncate(3 * 1024**3)
        return "3221225472 bytes is over the {limit}-byte {noun} limit"
    if kind == "folder":
        path.mkdir()
        return "not a regular file"
    raise AssertionError(kind)


KINDS = ["FIFO", "3 GB sparse file", "folder"]
COMMANDS = {
    "suite check": (["suite", "check", "{file}"], "suite file", MAX_SUITE_BYTES),
    "suite show --suite": (["suite", "show", "--suite", "{file}"], "suite file", MAX_SUITE_BYTES),
    "suite diff": (["suite", "diff", "{file}", str(SUITE)], "suite file", MAX_SUITE_BYTES),
    "rescore --suite": (["rescore", str(COMMITTED), "--suite", "{file}"], "suite file", MAX_SUITE_BYTES),
    "rescore --against": (
        ["rescore", str(COMMITTED), "--against", "{file}"],
        "suite file",
        MAX_SUITE_BYTES,
    ),
    "diff A": (["diff", "{file}", "{other}"], "results file", RESULTS_LIMIT),
    "diff B": (["diff", "{other}", "{file}"], "results file", RESULTS_LIMIT),
}


@pytest.mark.parametrize(
    ("command", "kind"),
    [(command, kind) for command in COMMANDS for kind in KINDS],
    ids=[f"{command} of a {kind}" for command in COMMANDS for kind in KINDS],
)
def test_a_hostile_input_file_is_one_line(tmp_path: Path, command: str, kind: str) -> None:
    path = tmp_path / "input.json"
    words, noun, limit = COMMANDS[command]
    reason = _plant(kind, path).format(limit=limit, noun=noun)
    if command.startswith("diff") and kind == "folder":  # a folder is a side too: a model's cassettes
        reason = "not a model cassette directory (no manifest.json); name e.g. cassettes/auto"

    other = tmp_path / "one-model.json"
    other.write_text(json.dumps(_one_model(json.loads(EXPECTED.read_bytes()))))

    done = run_lobrec([word.format(file=path, other=other) for word in words])  # a hang fails the test

    assert (done.returncode, done.stdout.decode()) == (2, "")
    assert done.stderr.decode() == f"lobrec: {path}: {reason}\n"


def _one_model(run: dict[str, Any]) -> dict[str, Any]:
    return {**run, "models": run["models"][:1]}


DEEP_PREFIX = '{"models":'
CRAFTED = {
    "nested 100,000 deep": (
        lambda good: DEEP_PREFIX + "[" * 100_000 + "]" * 100_000 + "}",
        f"not a lobrec results file: nested more than {MAX_RESULTS_DEPTH} levels deep "
        f"(byte {len(DEEP_PREFIX) + MAX_RESULTS_DEPTH - 1})",
    ),
    "a case status that is no status": (
        lambda good: json.dumps(_with(good, ["models", 0, "cases", 0, "status"], "weird")),
        "not a lobrec results file: Invalid enum value 'weird' - at `$.models[0].cases[0].status`",
    ),
    "no models key": (
        lambda good: json.dumps({key: value for key, value in good.items() if key != "models"}),
        "not a lobrec results file: Object missing required field `models`",
    ),
}


def _with(document: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(document))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copy


@pytest.mark.parametrize("name", list(CRAFTED), ids=list(CRAFTED))
def test_diff_of_a_crafted_results_file_is_one_line(tmp_path: Path, name: str) -> None:
    build, reason = CRAFTED[name]
    good = _one_model(json.loads(EXPECTED.read_bytes()))
    path = tmp_path / "crafted.json"
    path.write_text(build(good))

    other = tmp_path / "one-model.json"
    other.write_text(json.dumps(good))

    result = CliRunner().invoke(app, ["diff", str(path), str(other)])

    assert (result.exit_code, result.stderr) == (2, f"lobrec: {path}: {reason}\n")


@pytest.fixture(scope="module")
def repeated_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A results file of a model with three runs (so `repeats` is there to be mangled)."""
    from tests.support.repeated import repeated_model

    root = tmp_path_factory.mktemp("repeats")
    repeated_model(root, broken={2: ["sel-01"]})
    out = root / "results.json"
    result = CliRunner().invoke(app, ["rescore", str(root), "--json", str(out)])
    assert result.exit_code in (0, 4), result.stderr
    return json.loads(out.read_bytes())


def test_diff_of_a_results_file_without_its_spread_entry_still_compares(
    tmp_path: Path, repeated_results: dict[str, Any]
) -> None:
    """The red team's KeyError: `repeats.spread` without `overall` (the spread is then unknown)."""
    document = json.loads(json.dumps(repeated_results))
    del document["models"][0]["repeats"]["spread"]["overall"]
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(document))
    other = tmp_path / "good.json"
    other.write_text(json.dumps(repeated_results))

    result = CliRunner().invoke(app, ["diff", str(path), str(other)])

    assert result.exit_code == 0, result.stderr
    assert "Exact sign test on per-case pass rates" in result.stdout


_NO_VERSIONS = [(where, version) for where in ("recorded", "judging") for version in ("", "draft", "1")]


@pytest.mark.parametrize(("where", "version"), _NO_VERSIONS, ids=[f"{w} {v!r}" for w, v in _NO_VERSIONS])
def test_diff_of_a_results_file_whose_suite_version_is_no_version_compares(
    tmp_path: Path, repeated_results: dict[str, Any], version: str, where: str
) -> None:
    """CI's hypothesis find: a recorded (or judging) suite version of "" raised ValueError in the
    newer-suite rule; versions that cannot be ordered are not "newer", so the files compare."""
    document = json.loads(json.dumps(repeated_results))
    if where == "recorded":
        document["models"][0]["recorded"][0]["suite"]["version"] = version
    else:
        document["suite"]["version"] = version
    crafted, other = tmp_path / "crafted.json", tmp_path / "good.json"
    crafted.write_text(json.dumps(document))
    other.write_text(json.dumps(repeated_results))

    for pair in ([crafted, other], [other, crafted]):
        result = CliRunner().invoke(app, ["diff", *map(str, pair)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code == 0, result.stderr


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
)


@costly(2, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32), values=st.lists(_VALUES, min_size=1, max_size=6))
def test_diff_of_any_mangled_results_file_never_raises(
    tmp_path: Path, repeated_results: dict[str, Any], seed: int, values: list[Any]
) -> None:
    """Any key of a good results file (one run or three) removed or given any JSON value: `diff`
    compares it or refuses it in one line, in either position, never a traceback."""
    rng = random.Random(seed)
    good = rng.choice([repeated_results, _one_model(json.loads(EXPECTED.read_bytes()))])
    document = json.loads(json.dumps(good))
    for value in values:
        parent, key = _random_place(document, rng)
        if key is not None and isinstance(parent, dict) and rng.random() < 0.5:
            del parent[key]
        elif key is not None:
            parent[key] = value
    crafted, other = tmp_path / "crafted.json", tmp_path / "good.json"
    crafted.write_text(json.dumps(document))
    other.write_text(json.dumps(good))
    for pair in ([crafted, other], [other, crafted]):
        result = CliRunner().invoke(app, ["diff", *map(str, pair)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code in (0, 2)
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"lobrec: {crafted}: ")


def _random_place(document: Any, rng: random.Random) -> tuple[Any, Any]:
    """A random container of `document` and one of its keys (or indexes), walking down from the top."""
    parent, key = document, None
    node = document
    while isinstance(node, (dict, list)) and node and rng.random() < 0.85:
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        parent, node = node, node[key]
    return parent, key

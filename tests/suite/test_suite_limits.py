"""Suite files at the edge: case ids that cannot name a file, and nesting no parser should recurse into.

Case ids become file names (`<id>.json`), so one rule (`lobrec.core.suite.format.case_id_problem`) decides
which ids are ids, and every command asks it: `lobrec suite check` lists the id with why, `record`
and `rescore` refuse the suite with one line before anything is sent or read, and the cassette
layer refuses to build the file name. A suite file nested 5,000 deep is refused by every command
that reads it, with one line naming the file and where, never a RecursionError; a tool schema may
nest at most 64 levels (`lobrec.core.suite.jsonschema.MAX_DEPTH`), a suite file at most 128
(`lobrec.core.suite.format.MAX_DEPTH`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lobrec.cassette.format import load_cassette_file
from lobrec.cassette.layout import case_file_name, model_dir_name
from lobrec.cassette.manifest import load_manifest
from lobrec.cli import app
from lobrec.core.suite.build_rules import check_suite
from lobrec.core.suite.format import CASE_ID_RULE, GROUPS, MAX_DEPTH, decode_suite, encode_suite
from lobrec.errors import ConfigError
from lobrec.suite_file import load_suite
from tests.support.faults import REAL_SUITE

# --- case ids --------------------------------------------------------------------------------------

BAD_IDS: list[tuple[str, str, str, str]] = [
    # (row id, the case id, how messages show it, why it is refused)
    ("two dots", "a..b", "'a..b'", "it holds '..'"),
    ("a parent path", "../x", "'../x'", "it holds a path separator '/'"),
    ("a slash", "a/b", "'a/b'", "it holds a path separator '/'"),
    ("a backslash", "a\\b", "'a\\\\b'", "it holds a path separator '\\\\'"),
    ("a space", "sel 01", "'sel 01'", "it holds a space"),
    ("an escape sequence", "sel\x1b[2J", "'sel\\x1b[2J'", "it holds the control character '\\x1b'"),
    ("a trailing newline", "sel-01\n", "'sel-01\\n'", "it holds the control character '\\n'"),
    ("a NUL", "sel\x0001", "'sel\\x0001'", "it holds the control character '\\x00'"),
    ("non-ASCII", "sél-01", "'sél-01'", "it holds 'é'"),
    ("empty", "", "''", "it is empty"),
    ("a leading dot", ".hidden", "'.hidden'", "it starts with '.'"),
    ("a trailing dot", "sel-01.", "'sel-01.'", "it ends in '.'"),
    ("500 characters", "a" * 500, f"{'a' * 40!r}... (500 characters)", "it is 500 characters long, over 64"),
    ("65 characters", "a" * 65, f"{'a' * 40!r}... (65 characters)", "it is 65 characters long, over 64"),
]


def _with_first_id(tmp_path: Path, case_id: str) -> Path:
    suite = json.loads(REAL_SUITE.read_bytes())
    suite["cases"][0]["id"] = case_id
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite, indent=2), encoding="utf-8")
    return path


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _record(url: str, suite: Path, cassettes: Path, results: Path) -> list[str]:
    """`lobrec record` of fixture/oracle from the gateway at `url`."""
    return [
        *("record", "--model", "fixture/oracle", "--base-url", url, "--suite", str(suite)),
        *("--cassettes", str(cassettes), "--json", str(results)),
    ]


@pytest.mark.parametrize(
    ("case_id", "shown", "why"), [row[1:] for row in BAD_IDS], ids=[row[0] for row in BAD_IDS]
)
def test_an_unsafe_case_id_is_refused_by_every_command(
    tmp_path: Path, fake_gateway: Any, case_id: str, shown: str, why: str
) -> None:
    suite = _with_first_id(tmp_path, case_id)
    runner = CliRunner()

    checked = runner.invoke(app, ["suite", "check", str(suite)])
    assert (checked.exit_code, checked.stderr) == (2, "")
    assert (
        checked.stdout
        == f"cases[0]: id {shown} cannot name a cassette file (<id>.json): {why}; {CASE_ID_RULE}\n"
    )

    line = f"lobrec: {suite}: {checked.stdout}"  # a run refuses the suite in the check's own words
    cassettes = tmp_path / "cassettes"
    recorded = runner.invoke(app, _record(fake_gateway.url, suite, cassettes, tmp_path / "r.json"))
    assert (recorded.exit_code, recorded.stdout, recorded.stderr) == (2, "", line)
    assert fake_gateway.log() == []

    cassettes.mkdir()
    rescored = runner.invoke(
        app, ["rescore", str(cassettes), "--suite", str(suite), "--json", str(tmp_path / "r.json")]
    )
    assert (rescored.exit_code, rescored.stdout, rescored.stderr) == (2, "", line)
    assert _files(tmp_path) == ["cassettes", "suite.json"]

    with pytest.raises(ConfigError) as refused:
        case_file_name(case_id)
    assert str(refused.value) == f"case id {shown} cannot name a cassette file: {why}"


EDGE_IDS = ["a" * 64, "A.b_c-9", "x", "sel-01.v2", "9-lives"]
"""Ids at the edge of the rule: `suite check` accepts them, so recording must write them."""


def test_ids_at_the_edge_of_the_rule_are_checked_and_recorded_alike(
    tmp_path: Path, fake_gateway: Any
) -> None:
    """What `suite check` accepts, recording writes: the small suite's cases renamed to edge ids
    pass every build rule (its own counts, a note each) and record as `<id>.json`."""
    document = json.loads(encode_suite(load_suite(fake_gateway.suite_path)))
    assert len(document["cases"]) == len(EDGE_IDS)
    for case, case_id in zip(document["cases"], EDGE_IDS, strict=True):
        case.update(id=case_id, note="an id at the edge of the rule")
    renamed = decode_suite(json.dumps(document))
    own = {group: sum(1 for case in renamed.cases if case.group == group) for group in GROUPS}
    assert check_suite(renamed, counts=own, floor=own) == []
    path = tmp_path / "suite.json"
    path.write_bytes(encode_suite(renamed))
    cassettes = tmp_path / "cassettes"

    result = CliRunner().invoke(app, _record(fake_gateway.url, path, cassettes, tmp_path / "r.json"))

    assert result.exit_code == 0, result.stderr
    directory = cassettes / model_dir_name("fixture/oracle")
    for case_id in EDGE_IDS:
        load_cassette_file(directory / f"{case_id}.json")
    assert sorted(load_manifest(directory).cases) == sorted(EDGE_IDS)
    results = json.loads((tmp_path / "r.json").read_bytes())
    assert [case["status"] for case in results["models"][0]["cases"]] == ["scored"] * len(EDGE_IDS)


def test_the_committed_suites_pass_the_id_rule() -> None:
    for path in (REAL_SUITE, REAL_SUITE.parent / "history" / "1.0.0.json"):
        suite = load_suite(path)
        assert check_suite(suite) == [], path
        for case in suite.cases:
            assert case_file_name(case.id) == f"{case.id}.json"


def test_ids_that_differ_only_in_case_are_one_file_on_some_systems(tmp_path: Path) -> None:
    suite = json.loads(REAL_SUITE.read_bytes())
    suite["cases"][1]["id"] = suite["cases"][0]["id"].upper()
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")

    checked = CliRunner().invoke(app, ["suite", "check", str(path)])

    assert checked.exit_code == 2
    assert checked.stdout == (
        "cases[1]: id 'SEL-01' differs from cases[0]'s 'sel-01' only in case: on a case-insensitive "
        "file system (macOS, Windows) both would be one cassette file\n"
    )


# --- nesting ---------------------------------------------------------------------------------------

DEEP = "@@deep@@"


def _deep_schema(levels: int) -> str:
    return '{"type": "object", "properties": {"x": ' * levels + "{}" + "}}" * levels


def _deep_array(levels: int) -> str:
    return "[" * levels + "]" * levels


def _tool_schema(suite: dict[str, Any]) -> None:
    suite["tools"][0]["function"]["parameters"]["properties"]["deep"] = DEEP


def _answer(suite: dict[str, Any]) -> None:
    suite["cases"][0]["steps"][0]["calls"][0]["answer"]["deep"] = DEEP


def _eq_value(suite: dict[str, Any]) -> None:
    suite["cases"][0]["steps"][0]["calls"][0]["checks"].append({"kind": "eq", "arg": "path", "value": DEEP})


DEEP_FILES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("a tool schema nested 5,000 deep", _tool_schema, _deep_schema(5000)),
    ("a reference answer nested 5,000 deep", _answer, _deep_array(5000)),
    ("a check's value nested 5,000 deep", _eq_value, _deep_array(5000)),
    ("a suite file nested 100,000 deep", _answer, _deep_array(100_000)),
]

TOO_DEEP = re.compile(
    r"lobrec: (?P<file>.+): line (?P<line>\d+), column (?P<column>\d+): nested more than 128 levels deep; "
    r"a suite file nests arrays and objects at most 128 levels \(a tool schema at most 64\)\n"
)


def _deep_suite(tmp_path: Path, plant: Callable[[dict[str, Any]], None], deep: str) -> tuple[Path, int]:
    """The committed suite with `deep` planted by `plant`; also the byte offset the planted text starts at."""
    suite = json.loads(REAL_SUITE.read_bytes())
    plant(suite)
    text = json.dumps(suite, indent=2)
    start = len(text[: text.index(f'"{DEEP}"')].encode())
    path = tmp_path / "deep.json"
    path.write_text(text.replace(f'"{DEEP}"', deep), encoding="utf-8")
    return path, start


def _commands(tmp_path: Path, suite: Path, gateway_url: str) -> list[list[str]]:
    """`suite check`, `rescore` and `record` of `suite`: every command that loads a suite to run it."""
    cassettes = tmp_path / "cassettes"
    cassettes.mkdir(exist_ok=True)
    return [
        ["suite", "check", str(suite)],
        ["rescore", str(cassettes), "--suite", str(suite), "--json", str(tmp_path / "r.json")],
        _record(gateway_url, suite, cassettes, tmp_path / "r.json"),
    ]


@pytest.mark.parametrize(
    ("plant", "deep"), [row[1:] for row in DEEP_FILES], ids=[row[0] for row in DEEP_FILES]
)
def test_a_suite_nested_too_deep_is_one_line_from_every_command(
    tmp_path: Path, fake_gateway: Any, plant: Callable[[dict[str, Any]], None], deep: str
) -> None:
    suite, start = _deep_suite(tmp_path, plant, deep)
    data = suite.read_bytes()
    for args in _commands(tmp_path, suite, fake_gateway.url):
        result = CliRunner().invoke(app, args)

        assert (result.exit_code, result.stdout) == (2, ""), args
        found = TOO_DEEP.fullmatch(result.stderr)
        assert found is not None, (args, result.stderr[:500])
        assert found["file"] == str(suite)
        line, column = int(found["line"]), int(found["column"])
        offset = sum(len(each) + 1 for each in data.split(b"\n")[: line - 1]) + column - 1
        assert start <= offset < start + len(deep)  # it points into the planted part,
        assert data[offset : offset + 1] in (b"[", b"{")  # at the bracket that opens level 129
    assert fake_gateway.log() == []
    assert _files(tmp_path) == ["cassettes", "deep.json"]


def test_a_tool_schema_deeper_than_64_levels_is_refused_by_every_command(
    tmp_path: Path, fake_gateway: Any
) -> None:
    """Within the file's 128 levels, but deeper than a schema may nest: refused by the validator's
    own rule, by `suite check` among the build rules and by `record` and `rescore` before they run."""
    suite, _ = _deep_suite(tmp_path, _tool_schema, _deep_schema(40))
    assert MAX_DEPTH == 128
    check, rescore, record = _commands(tmp_path, suite, fake_gateway.url)
    runner = CliRunner()

    checked = runner.invoke(app, check)
    assert (checked.exit_code, checked.stderr) == (2, "")
    assert (
        checked.stdout
        == "tools[0] (read_file): parameters: invalid schema at $: nested deeper than 64 levels\n"
    )
    line = f"lobrec: {suite}: {checked.stdout}"  # a run refuses the suite in the check's own words
    for args in (rescore, record):
        result = runner.invoke(app, args)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", line), args
    assert fake_gateway.log() == []

"""Cassette files: safe names, capped and symlink-refusing reads, atomic writes, fingerprints."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.cassette.format import decode_cassette, encode_pretty, read_capped
from lobrec.cassette.layout import case_file_name, model_dir_name, model_from_dir_name
from lobrec.errors import CassetteError, ConfigError
from lobrec.files import write_atomic


@given(st.text(min_size=1, max_size=200).filter(lambda s: "\x00" not in s))
def test_model_dir_name_is_reversible_and_safe(model: str) -> None:
    encoded = quote(model, safe="")
    if len(encoded) > 255:  # too long a file name once encoded: refused, not cut
        with pytest.raises(ConfigError, match="cannot be used"):
            model_dir_name(model)
        return
    name = model_dir_name(model)
    assert len(name) <= 255
    assert model_from_dir_name(name) == model
    assert "/" not in name and "\\" not in name and not name.startswith(".")
    assert name not in ("", ".", "..")


@pytest.mark.parametrize(
    ("model", "directory"),
    [
        ("openai/gpt-4o", "openai%2Fgpt-4o"),
        ("a:b", "a%3Ab"),
        ("../x", "%2E.%2Fx"),
        ("..", "%2E."),
        ("auto", "auto"),
        ("fixture/no-temperature", "fixture%2Fno-temperature"),
    ],
)
def test_model_dir_name_examples(model: str, directory: str) -> None:
    assert model_dir_name(model) == directory


@pytest.mark.parametrize("model", ["", "a\x00b", "x" * 201])
def test_unusable_model_names_are_refused(model: str) -> None:
    with pytest.raises(ConfigError):
        model_dir_name(model)


@pytest.mark.parametrize("case_id", ["../etc", "a/b", ".hidden", "", "x" * 200])
def test_case_ids_that_would_escape_are_refused(case_id: str) -> None:
    with pytest.raises(ConfigError):
        case_file_name(case_id)


def test_read_refuses_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    target.write_text("x")
    link = tmp_path / "case.json"
    link.symlink_to(target)
    with pytest.raises(CassetteError) as info:
        read_capped(link)
    assert str(info.value) == f"{link}: is a symlink; cassettes must be regular files"


def test_read_refuses_an_oversized_file_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(1024 * 1024 * 1024)  # sparse: 1 GiB that takes no disk
    with pytest.raises(CassetteError) as info:
        read_capped(path, limit=1000)
    assert str(info.value) == f"{path}: 1073741824 bytes is over the 1000-byte cassette limit"


def test_atomic_write_replaces_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "d" / "case.json"
    write_atomic(path, b"first")
    write_atomic(path, b"second")
    assert path.read_bytes() == b"second"
    assert os.listdir(path.parent) == ["case.json"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{", "not valid JSON: Input data was truncated"),
        (
            b'{"version": 1, "interactions": {}}',
            "not a cassette: Expected `array`, got `object` - at `$.interactions`",
        ),
        (
            b'{"version": 1, "interactions": [], "extra": 1}',
            "not a cassette: Object contains unknown field `extra`",
        ),
        (b'{"version": 2, "interactions": []}', "not a cassette: cassette format version 2, expected 1"),
    ],
)
def test_decode_errors_name_the_file(data: bytes, message: str) -> None:
    with pytest.raises(CassetteError) as info:
        decode_cassette(data, Path("cassettes/m/sel-01.json"))
    assert str(info.value) == f"cassettes/m/sel-01.json: {message}"


def test_run_directories_lists_run_one_then_every_run_up_to_the_highest(tmp_path: Path) -> None:
    from lobrec.cassette.layout import RUNS_DIR, run_directories

    model = tmp_path / "m"
    model.mkdir()
    assert run_directories(model) == [model]
    (model / RUNS_DIR).mkdir()
    assert run_directories(model) == [model]
    for name in ("2", "4"):
        (model / RUNS_DIR / name).mkdir()
    # Not runs: a file, run 1 (the model folder itself), a leading zero, a symlink, a huge number.
    (model / RUNS_DIR / "7").write_text("x")
    for name in ("1", "05", "x", "99999999"):
        (model / RUNS_DIR / name).mkdir()
    (model / RUNS_DIR / "9").symlink_to(model / RUNS_DIR / "2")
    runs = model / RUNS_DIR
    assert run_directories(model) == [model, runs / "2", runs / "3", runs / "4"]
    assert not (runs / "3").exists()


COMMITTED = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes"


@pytest.mark.parametrize("path", sorted(COMMITTED.glob("*/sel-0*.json")), ids=lambda path: path.parent.name)
def test_a_recorded_file_is_exactly_the_format_encoded(path: Path) -> None:
    """The format is described once: every committed cassette is its decoded Struct encoded again,
    byte for byte, so what recording writes and what the Structs say cannot drift apart."""
    data = path.read_bytes()
    assert encode_pretty(decode_cassette(data, path)) == data

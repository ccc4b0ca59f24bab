"""`suite_label` names a suite from the head of its file, and agrees with decoding it whole."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.suite.format import encode_suite
from lobrec.errors import SuiteError
from lobrec.suite_file import _leading_strings as leading_strings
from lobrec.suite_file import read_suite, suite_label
from tests.support.tier_models import no_call_suite


def test_the_bundled_suite_is_named_as_decoding_it_whole_names_it() -> None:
    suite = read_suite()
    assert suite_label() == (suite.name, suite.version)


@given(st.text(max_size=20), st.text(max_size=20))
def test_any_suite_lobrec_writes_is_named_from_its_head(name: str, version: str) -> None:
    suite = msgspec.structs.replace(no_call_suite(2), name=name, version=version)
    assert leading_strings(encode_suite(suite).decode(), ("name", "version")) == (name, version)


def test_a_file_with_the_version_after_the_cases_is_decoded_whole(tmp_path: Path) -> None:
    suite = no_call_suite(2)
    members = json.loads(encode_suite(suite))
    reordered = {"cases": members.pop("cases"), **members}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(reordered), encoding="utf-8")
    assert suite_label(path) == (suite.name, suite.version)


def test_a_file_that_is_not_a_suite_is_refused_with_the_files_name(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    path.write_text('{"name": 1, "version": "1.0.0"}', encoding="utf-8")
    with pytest.raises(SuiteError, match=r"suite\.json"):
        suite_label(path)
    with pytest.raises(SuiteError, match=r"nope\.json"):
        suite_label(tmp_path / "nope.json")

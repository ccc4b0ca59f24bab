"""`MODEL@LABEL` answers as MODEL under its own name (for benchmarks of many models)."""

from __future__ import annotations

import json
from pathlib import Path

from lobrec.core.judge import wire
from lobrec.fakegateway import answer
from lobrec.fakegateway.models import scripted_as
from lobrec.suite_file import load_suite

SUITE = load_suite(Path(__file__).resolve().parents[2] / "suite" / "suite.json")


def test_a_copy_answers_as_its_model_and_names_itself() -> None:
    case = SUITE.cases[0]
    body = wire.request_body("fixture/oracle@3", list(case.messages), SUITE.offered_tools(case))
    copy = answer(SUITE, body)
    original = answer(
        SUITE, wire.request_body("fixture/oracle", list(case.messages), SUITE.offered_tools(case))
    )
    assert copy.status == original.status == 200
    copied, real = json.loads(copy.body), json.loads(original.body)
    assert copied["model"] == "fixture/oracle@3"
    assert (
        copied["choices"][0]["message"]["tool_calls"][0]["function"]
        == real["choices"][0]["message"]["tool_calls"][0]["function"]
    )


def test_only_a_known_model_with_a_label_is_a_copy() -> None:
    assert scripted_as("fixture/oracle") == "fixture/oracle"
    assert scripted_as("fixture/sloppy@a") == "fixture/sloppy"
    assert scripted_as("fixture/oracle@") is None
    assert scripted_as("gpt-4o@1") is None
    case = SUITE.cases[0]
    assert (
        answer(SUITE, wire.request_body("nope@1", list(case.messages), SUITE.offered_tools(case))).status
        == 404
    )

"""Places the methodology leaves open, each decided by one principle (docs/methodology.md, "One
principle for the open places"): the model's answer is judged as it was sent, and an answer that is
not a completion is not judged."""

from __future__ import annotations

import json

import pytest

from lobrec.core.metrics.rates import compute_metrics
from lobrec.core.suite.checks import run_check
from lobrec.core.suite.format import Regex
from tests.judge.test_judge_edges import MODEL, RIGHT, SUITE, completion, refusal, run_live_and_replay


@pytest.mark.parametrize("generation", ["\n", "\t ", "  ", "\r\n"])
def test_a_refused_output_of_only_whitespace_is_judged_as_sent_one_call_that_is_not_a_call(
    generation: str,
) -> None:
    result, _ = run_live_and_replay("sel-01", [(400, refusal(generation))])
    assert result.status == "scored" and not result.passed
    [call] = result.steps[0].calls
    assert call.name is None and call.arguments == json.dumps(generation)
    assert compute_metrics(SUITE, [result]).made_up_tool.total == 1
    nocall, _ = run_live_and_replay("none-01", [(400, refusal(generation))])
    assert nocall.status == "scored" and not nocall.passed


def test_an_empty_refused_output_is_still_no_call() -> None:
    nocall, _ = run_live_and_replay("none-01", [(400, refusal(""))])
    assert nocall.passed


def _with_error(body: bytes) -> bytes:
    value = json.loads(body)
    value["error"] = {"message": "upstream hiccup", "code": 500}
    return json.dumps(value).encode()


def test_a_completion_that_also_carries_an_error_object_is_judged_as_sent() -> None:
    right, _ = run_live_and_replay("sel-01", [(200, _with_error(RIGHT))])
    assert right.status == "scored" and right.passed
    wrong_call = completion([("read_file", '{"path": "x.md"}')])
    wrong, _ = run_live_and_replay("sel-01", [(200, _with_error(wrong_call))])
    assert wrong.status == "scored" and not wrong.passed


def test_an_error_object_without_choices_is_not_a_completion_and_errors_the_case() -> None:
    body = json.dumps({"model": MODEL, "error": {"message": "upstream hiccup"}}).encode()
    result, _ = run_live_and_replay("sel-01", [(200, body)])
    assert result.status == "errored"


@pytest.mark.parametrize(
    ("text", "holds"), [("ſ", True), ("\u212a", True), ("a ſ", True), ("aſ", False), ("ſa", False)]
)
def test_a_case_insensitive_check_reads_word_boundaries_with_the_iu_word_set(text: str, holds: bool) -> None:
    assert (run_check(Regex(arg="q", pattern="\\b[sk]\\b"), {"q": text}) is None) is holds

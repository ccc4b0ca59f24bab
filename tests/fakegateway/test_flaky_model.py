"""`fixture/flaky`: the run rule, and the answers it gives on the real suite, without sockets.

The rule is a fixed script so that tests of repeated recording can work out by hand which runs of
which cases pass; this file holds the table written out in docs/fake-gateway.md against the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import assistant_message, parse_completion, request_body, tool_message
from lobrec.core.suite.format import (
    CallStep,
    Case,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Suite,
    Tool,
)
from lobrec.fakegateway import FLAKY, FLAKY_CASES, MODELS, ORACLE, answer, flaky_passes
from lobrec.fakegateway.models import DONE, FLAKY_CYCLE, FLAKY_FIRST_RUN_ONLY, FLAKY_NEVER, SILENT_REPLY
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUITE = load_suite(ROOT / "suite" / "suite.json")

RUNS = range(1, 7)
TABLE: dict[str, str] = {
    "sel-03": "PPFPPF",
    "arg-02": "PFPPFP",
    "near-03": "FPPFPP",
    "par-04": "PPFPPF",
    "chain-02": "PFPPFP",
    "sel-07": "FPPFPP",
    "arg-09": "PFFFFF",
    "near-08": "FFFFFF",
}
"""Runs 1 to 6 of every flaky case, P passing and F failing: the table in docs/fake-gateway.md."""


def _case(case_id: str) -> Case:
    case = SUITE.case(case_id)
    assert case is not None, case_id
    return case


def _body(model: str, case: Case, history: list[dict[str, Any]] | None = None) -> bytes:
    """The runner's request for a case (its messages start with the system prompt)."""
    messages: list[Any] = [*case.messages, *(history or [])]
    return request_body(model, messages, SUITE.offered_tools(case))


def _message(body: bytes) -> dict[str, Any]:
    return msgspec.json.decode(body)["choices"][0]["message"]


def _tool_call(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A first-step call as the fake writes it (docs/fake-gateway.md, "Answers")."""
    text = json.dumps(arguments, ensure_ascii=False)
    return {"id": f"call_0_{index}", "type": "function", "function": {"name": name, "arguments": text}}


def _passes(case: Case, body: bytes) -> bool:
    return judge_step(case.steps[0], parse_completion(body), SUITE.offered_tools(case), 0).passed


# --- the rule -------------------------------------------------------------------------------------


def test_the_table_lists_every_flaky_case_in_order() -> None:
    assert tuple(TABLE) == FLAKY_CASES == (*FLAKY_CYCLE, FLAKY_FIRST_RUN_ONLY, FLAKY_NEVER)


@pytest.mark.parametrize("case_id", list(TABLE))
def test_flaky_passes_follows_the_table(case_id: str) -> None:
    assert "".join("P" if flaky_passes(case_id, run) else "F" for run in RUNS) == TABLE[case_id]


@pytest.mark.parametrize("case_id", FLAKY_CYCLE)
def test_a_cycling_case_fails_exactly_when_run_plus_index_is_a_multiple_of_three(case_id: str) -> None:
    index = FLAKY_CYCLE.index(case_id)
    assert [flaky_passes(case_id, run) for run in range(1, 31)] == [
        (run + index) % 3 != 0 for run in range(1, 31)
    ]


def test_the_rule_at_later_runs() -> None:
    assert (flaky_passes(FLAKY_FIRST_RUN_ONLY, 1000), flaky_passes(FLAKY_NEVER, 1)) == (False, False)


@pytest.mark.parametrize("case_id", ["sel-01", "none-01", "chain-01", "no-such-case"])
def test_every_other_case_passes_every_run(case_id: str) -> None:
    assert all(flaky_passes(case_id, run) for run in range(1, 31))


def test_the_documented_pass_counts_on_the_real_suite() -> None:
    ids = [case.id for case in SUITE.cases]
    passing = [sum(flaky_passes(case_id, run) for case_id in ids) for run in (1, 2, 3)]
    every = sum(all(flaky_passes(case_id, run) for run in (1, 2, 3)) for case_id in ids)
    some = sum(any(flaky_passes(case_id, run) for run in (1, 2, 3)) for case_id in ids)
    assert (len(ids), passing, every, some) == (80, [77, 76, 76], 72, 79)


@pytest.mark.parametrize("run", [0, -1])
def test_runs_are_counted_from_one(run: int) -> None:
    with pytest.raises(ValueError, match=f"runs are counted from 1, not {run}"):
        flaky_passes("sel-03", run)


def test_flaky_is_a_known_model() -> None:
    assert FLAKY == "fixture/flaky" and FLAKY in MODELS


# --- the answers on the real suite ----------------------------------------------------------------


def test_the_flaky_cases_come_from_five_groups_and_start_with_a_call_step_with_wrong_answers() -> None:
    cases = [_case(case_id) for case_id in FLAKY_CASES]
    assert {case.group for case in cases} == {"selection", "arguments", "near_misses", "parallel", "chains"}
    assert all(isinstance(case.steps[0], CallStep) and case.steps[0].wrong for case in cases)


@pytest.mark.parametrize("case_id", list(TABLE))
@pytest.mark.parametrize("run", RUNS)
def test_each_run_is_the_oracle_or_the_first_wrong_answer(case_id: str, run: int) -> None:
    case = _case(case_id)
    step = case.steps[0]
    assert isinstance(step, CallStep)
    body = _body(FLAKY, case)
    if TABLE[case_id][run - 1] == "P":
        expected = _message(answer(SUITE, body, model=ORACLE).body)
    else:
        calls = [_tool_call(i, call.name, call.arguments) for i, call in enumerate(step.wrong[0].calls)]
        expected = {"role": "assistant", "content": None, "tool_calls": calls}
    got = answer(SUITE, body, run=run)
    assert (got.status, _message(got.body), _passes(case, got.body)) == (
        200,
        expected,
        TABLE[case_id][run - 1] == "P",
    )


def test_run_defaults_to_one() -> None:
    body = _body(FLAKY, _case("near-03"))
    assert answer(SUITE, body) == answer(SUITE, body, run=1)


@pytest.mark.parametrize("case_id", ["sel-01", "none-01", "chain-01"])
def test_other_cases_are_the_oracle_on_every_run(case_id: str) -> None:
    body = _body(FLAKY, _case(case_id))
    oracle = _message(answer(SUITE, body, model=ORACLE).body)
    assert all(_message(answer(SUITE, body, run=run).body) == oracle for run in RUNS)


def test_the_later_steps_of_a_flaky_chain_are_the_oracle_on_every_run() -> None:
    case = _case("chain-02")
    first = parse_completion(answer(SUITE, _body(ORACLE, case), model=ORACLE).body)
    step = case.steps[0]
    assert isinstance(step, CallStep)
    history: list[dict[str, Any]] = [assistant_message(first)]
    for call, expected in zip(first.calls, step.calls, strict=True):
        history.append(msgspec.to_builtins(tool_message(call, expected.result or "")))
    body = _body(FLAKY, case, history)
    oracle = _message(answer(SUITE, body, model=ORACLE).body)
    assert oracle["tool_calls"][0]["function"]["name"] == case.steps[1].calls[0].name  # type: ignore[union-attr]
    assert all(_message(answer(SUITE, body, run=run).body) == oracle for run in RUNS)


# --- suites other than the real one ---------------------------------------------------------------


def _suite_of(*cases: Case) -> Suite:
    tool = Tool(
        type="function",
        function=FunctionSpec(name="lookup", parameters={"type": "object", "properties": {}}),
    )
    return Suite(name="flaky", version="1.0.0", system_prompt="", tools=[tool], cases=list(cases))


def _one_case(case_id: str, step: CallStep | NoCallStep) -> Case:
    group = "no_call" if isinstance(step, NoCallStep) else "selection"
    text = f"Please do {case_id}."
    return Case(
        id=case_id, group=group, tools=["lookup"], messages=[Message(role="user", content=text)], steps=[step]
    )


def test_a_failing_run_without_wrong_answers_calls_no_tool() -> None:
    case = _one_case(FLAKY_NEVER, CallStep(calls=[ExpectedCall(name="lookup", answer={})]))
    suite = _suite_of(case)
    body = request_body(FLAKY, list(case.messages), suite.offered_tools(case))
    assert _message(answer(suite, body).body) == {"role": "assistant", "content": SILENT_REPLY}


def test_a_flaky_case_that_expects_no_call_is_the_oracle() -> None:
    case = _one_case(FLAKY_NEVER, NoCallStep(answer=""))
    suite = _suite_of(case)
    body = request_body(FLAKY, list(case.messages), suite.offered_tools(case))
    assert _message(answer(suite, body).body) == {"role": "assistant", "content": DONE}

"""The published suite: it passes the build check, it is what its sources build, and it is well made.

Beyond the build rules, these tests pin what the methodology promises about the cases: the system
prompt's date and time zone, selection cases offering many tools, each near-miss case offering both
look-alikes, parallel cases repeating a tool, chains of every length, and chains that really carry a
value from one step's scripted result into the next step's checks.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import ObservedCall, Reply
from lobrec.core.suite.build_rules import check_suite, reference_reply, summary
from lobrec.core.suite.format import CallStep, NoCallStep, Suite
from lobrec.suite_file import load_suite
from tests.support.scriptfiles import load_script

ROOT = Path(__file__).resolve().parents[2]
SUITE_PATH = ROOT / "suite" / "suite.json"


def _build_module() -> ModuleType:
    return load_script("suite/build.py", "suite_build")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE_PATH)


def test_the_published_suite_passes_the_build_check(suite: Suite) -> None:
    assert check_suite(suite) == []
    assert summary(suite) == "suite lobstack-tools 1.3.0: 80 cases, 14/16/12/14/12/12, ok"


def test_the_published_file_is_what_the_sources_build() -> None:
    assert SUITE_PATH.read_bytes() == _build_module().build(), "stale: run python suite/build.py"


def test_the_system_prompt_names_the_workspace_date_and_time_zone(suite: Suite) -> None:
    for phrase in (
        "Lobstack",
        "lobstack/webapp",
        "Wednesday, 2026-10-21",
        "UTC",
        "answer in text",
        "same response",
    ):
        assert phrase in suite.system_prompt


def test_the_toolbox_is_a_realistic_size(suite: Suite) -> None:
    assert 25 <= len(suite.tools) <= 40


def test_selection_cases_offer_at_least_eight_tools(suite: Suite) -> None:
    assert {case.id: len(case.tools) >= 8 for case in suite.cases if case.group == "selection"} == {
        f"sel-{n:02d}": True for n in range(1, 15)
    }


NEAR_PAIRS = {
    "near-01": ("send_email", "slack_send_message"),
    "near-02": ("send_email", "slack_send_message"),
    "near-03": ("send_email", "slack_send_message"),
    "near-04": ("git_diff", "git_status"),
    "near-05": ("git_diff", "git_status"),
    "near-06": ("read_file", "fetch_url"),
    "near-07": ("read_file", "fetch_url"),
    "near-08": ("get_issue", "get_pull_request"),
    "near-09": ("comment_on_issue", "comment_on_pull_request"),
    "near-10": ("create_issue", "create_pull_request"),
    "near-11": ("db_insert", "db_update"),
    "near-12": ("db_insert", "db_update"),
}


def test_each_near_miss_offers_both_look_alikes_and_expects_one(suite: Suite) -> None:
    expected_names = {}
    for case in suite.cases:
        if case.group == "near_misses":
            pair = NEAR_PAIRS[case.id]
            assert set(pair) <= set(case.tools), case.id
            step = case.steps[0]
            assert isinstance(step, CallStep)
            expected_names[case.id] = step.calls[0].name in pair
    assert expected_names == dict.fromkeys(NEAR_PAIRS, True)


def test_every_near_miss_pair_is_tested_in_both_directions_or_more(suite: Suite) -> None:
    chosen = Counter()
    for case in suite.cases:
        if case.group == "near_misses":
            step = case.steps[0]
            assert isinstance(step, CallStep)
            chosen[step.calls[0].name] += 1
    assert chosen == Counter(
        send_email=2,
        slack_send_message=1,
        git_status=1,
        git_diff=1,
        fetch_url=1,
        read_file=1,
        get_pull_request=1,
        comment_on_issue=1,
        create_pull_request=1,
        db_insert=1,
        db_update=1,
    )


def test_parallel_cases_include_repeated_tools(suite: Suite) -> None:
    repeated = []
    for case in suite.cases:
        if case.group == "parallel":
            step = case.steps[0]
            assert isinstance(step, CallStep)
            names = [call.name for call in step.calls]
            if len(set(names)) < len(names):
                repeated.append(case.id)
    assert repeated == ["par-01", "par-02", "par-07", "par-09", "par-11"]


def test_chains_have_every_length_and_some_end_in_an_answer(suite: Suite) -> None:
    chains = [case for case in suite.cases if case.group == "chains"]
    assert Counter(len(case.steps) for case in chains) == Counter({2: 6, 3: 4, 4: 2})
    assert [case.id for case in chains if isinstance(case.steps[-1], NoCallStep)] == [
        "chain-03",
        "chain-09",
        "chain-10",
        "chain-11",
    ]


# For each chain: (step, values) pairs. Each value must appear in the previous step's scripted
# results, must not appear in the user's request, and the step's checks must fail when the reference
# answer has those values replaced: the model cannot pass the step without reading the result.
# chain-09 carries nothing into a call: its second step is the answer, which is not checked.
CARRIED: dict[str, list[tuple[int, list[str]]]] = {
    "chain-01": [(1, ["561"])],
    "chain-02": [(1, ["priya"])],
    "chain-03": [(1, ["src/webapp/http/retry.py"])],
    "chain-04": [(1, ["msg-90c1e"])],
    "chain-05": [(1, ["src/webapp/http/retry.py"]), (1, ["14"]), (2, ["marco"])],
    "chain-06": [(1, ["evt-7731"]), (1, ["olivia.chen@hollisvane.com"])],
    "chain-07": [(1, ["412"]), (2, ["412"]), (3, ["412", "Cache invoice totals"])],
    "chain-08": [(1, ["v2.13.2"])],
    "chain-10": [(1, ["tests/test_session.py"]), (2, ["src/webapp/auth/session.py"])],
    "chain-11": [(1, ["hv-status.statuspal.io"])],
    "chain-12": [(1, ["msg-41b07"]), (2, ["2026-11-04"])],
}


def _replace(value: Any, tokens: list[str]) -> Any:
    """The value with every token taken out: numbers bumped, text swapped for 'redacted'."""
    if isinstance(value, dict):
        return {key: _replace(item, tokens) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item, tokens) for item in value]
    if isinstance(value, str):
        for token in tokens:
            value = value.replace(token, "redacted")
        return value
    if isinstance(value, int) and not isinstance(value, bool) and str(value) in tokens:
        return value + 1
    return value


def _without(step: CallStep, tokens: list[str]) -> Reply:
    reference = reference_reply(step)
    calls = [
        ObservedCall(
            index=call.index,
            id=call.id,
            name=call.name,
            arguments_text=call.arguments_text,
            arguments=_replace(call.arguments, tokens),
            raw=call.raw,
        )
        for call in reference.calls
    ]
    return Reply(model="reference", content=None, calls=calls)


def test_every_chain_but_one_is_listed(suite: Suite) -> None:
    chains = {case.id for case in suite.cases if case.group == "chains"}
    assert chains - set(CARRIED) == {"chain-09"}


@pytest.mark.parametrize(
    ("case_id", "step_index", "tokens"),
    [(case_id, step, tokens) for case_id, rows in CARRIED.items() for step, tokens in rows],
)
def test_chain_steps_need_the_previous_result(
    suite: Suite, case_id: str, step_index: int, tokens: list[str]
) -> None:
    case = suite.case(case_id)
    assert case is not None
    previous = case.steps[step_index - 1]
    step = case.steps[step_index]
    assert isinstance(previous, CallStep) and isinstance(step, CallStep)
    results = " ".join(call.result or "" for call in previous.calls)
    request = " ".join(message.content or "" for message in case.messages[1:])
    for token in tokens:
        assert token in results
        assert token.lower() not in request.lower()
    offered = suite.offered_tools(case)
    assert judge_step(step, reference_reply(step), offered, step_index).passed
    assert not judge_step(step, _without(step, tokens), offered, step_index).passed


def test_the_format_document_quotes_the_published_suite() -> None:
    """Every JSON example in docs/suite-format.md is a case or tool of the suite, exactly."""
    text = (ROOT / "docs" / "suite-format.md").read_text(encoding="utf-8")
    blocks = [json.loads(block.split("\n```", 1)[0]) for block in text.split("```json\n")[1:]]
    published = json.loads(SUITE_PATH.read_bytes())
    cases = {case["id"]: case for case in published["cases"]}
    tools = {tool["function"]["name"]: tool for tool in published["tools"]}
    quoted = []
    for block in blocks:
        if "id" in block:
            assert block == cases[block["id"]]
            quoted.append(block["id"])
        else:
            assert block == tools[block["function"]["name"]]
            quoted.append(block["function"]["name"])
    assert quoted == ["deploy", "sel-08", "par-07", "chain-01", "none-08"]


def test_the_kept_1_0_0_suite_is_sound_and_declares_no_counts() -> None:
    kept = load_suite(ROOT / "suite" / "history" / "1.0.0.json")
    assert kept.version == "1.0.0" and kept.counts is None
    assert check_suite(kept) == []
    assert summary(kept) == "suite lobstack-tools 1.0.0: 80 cases, 14/16/12/14/12/12, ok"


def test_the_sources_declare_counts_no_lower_than_1_0_0s() -> None:
    meta = json.loads((ROOT / "suite" / "src" / "meta.json").read_text(encoding="utf-8"))
    from lobrec.core.suite.build_rules import COUNTS_1_0_0

    assert set(meta["counts"]) == set(COUNTS_1_0_0)
    assert all(meta["counts"][group] >= floor for group, floor in COUNTS_1_0_0.items())

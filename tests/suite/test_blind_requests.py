"""scripts/blind_requests.py: the brief of a blind round holds every request and nothing judged."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from lobrec.core.suite.format import CallStep, Regex, Suite
from lobrec.suite_file import load_suite
from tests.support.scriptfiles import load_script

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    return load_script("scripts/blind_requests.py", "blind_requests")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(ROOT / "suite" / "suite.json")


def test_the_brief_holds_every_request_and_scripted_result(suite: Suite) -> None:
    script = _script()
    brief = script.requests(suite)
    text = script.markdown(brief) + json.dumps(brief, ensure_ascii=False)
    assert suite.system_prompt in text
    for case in suite.cases:
        assert f"### {case.id}" in text
        for message in case.messages[1:]:
            assert message.content is not None and message.content in text
        for step in case.steps[:-1]:
            assert isinstance(step, CallStep)
            for call in step.calls:
                assert call.result is not None and call.result in text
    shown = {tool["name"]: tool for tool in brief["tools"]}
    assert all(shown[tool.name]["parameters"] == tool.function.parameters for tool in suite.tools)


def test_the_brief_holds_no_check_note_or_sample_answer(suite: Suite) -> None:
    script = _script()
    brief = script.requests(suite)
    text = script.markdown(brief) + json.dumps(brief, ensure_ascii=False)
    for case in suite.cases:
        assert case.note not in text, case.id
        for step in case.steps:
            if not isinstance(step, CallStep):
                assert step.answer not in text, case.id
                continue
            for sample in [*step.wrong, *step.alternates]:
                assert len(sample.why) < 20 or sample.why not in text, case.id  # "Thursday" is a request word
            for call in step.calls:
                for check in call.checks:
                    if isinstance(check, Regex) and len(check.pattern) > 12:
                        assert check.pattern not in text, (case.id, check.pattern)
    assert "no_call" not in text and "near_misses" not in text  # no group names


def test_anonymized_ids_are_a_shuffled_one_to_one_numbering(
    suite: Suite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    mapping_file = tmp_path / "map.json"
    assert script.main([str(ROOT / "suite" / "suite.json"), "--json", "--anonymize", str(mapping_file)]) == 0
    brief = json.loads(capsys.readouterr().out)
    mapping = json.loads(mapping_file.read_text(encoding="utf-8"))
    assert sorted(mapping.values()) == sorted(case.id for case in suite.cases)
    assert [case["id"] for case in brief["cases"]] == sorted(mapping)
    assert list(mapping.values()) != [case.id for case in suite.cases]
    by_id = {case.id: case for case in suite.cases}
    for case in brief["cases"]:
        assert case["tools"] == by_id[mapping[case["id"]]].tools


def test_answers_to_anonymized_ids_are_judged_under_the_suite_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge_answers.py --ids MAP: a wrong answer written for `case-NN` is judged as its case."""
    mapping_file = tmp_path / "map.json"
    assert _script().main(["--anonymize", str(mapping_file)]) == 0
    capsys.readouterr()
    blind = {suite_id: blind_id for blind_id, suite_id in json.loads(mapping_file.read_text()).items()}
    wrong = tmp_path / "wrong.json"
    text = "v2.14.0 goes out today at 15:00 CEST"
    call = {"name": "slack_send_message", "arguments": {"channel": "#deploys", "text": text}}
    answer = {"id": blind["sel-04"], "step": 1, "why": "15:00 CEST is 13:00 UTC", "calls": [call]}
    wrong.write_text(json.dumps({"answers": [answer]}))
    judge = load_script("scripts/judge_answers.py", "judge_answers")
    suite_path = str(ROOT / "suite" / "suite.json")
    assert judge.main([suite_path, "--wrong", str(wrong), "--ids", str(mapping_file)]) == 0
    assert "1 steps judged, 0 findings" in capsys.readouterr().out

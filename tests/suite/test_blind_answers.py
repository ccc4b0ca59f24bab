"""scripts/judge_answers.py: blind answer sets judged by the real judge, and the 1.2.0 attack pinned."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lobrec.core.suite.format import CallStep, Suite
from lobrec.suite_file import load_suite
from tests.support.scriptfiles import load_script

ROOT = Path(__file__).resolve().parents[2]
BLIND = ROOT / "fixtures" / "blind-attack-1.2.0"


def _script() -> ModuleType:
    return load_script("scripts/judge_answers.py", "judge_answers")


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(ROOT / "suite" / "suite.json")


def _calls(pairs: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": name, "arguments": arguments} for name, arguments in pairs]


def _reference_solver(suite: Suite) -> dict[str, Any]:
    """The suite's own reference answers as a solver file: text for no-call steps."""
    answers = []
    for case in suite.cases:
        steps = [
            _calls([(call.name, call.answer) for call in step.calls]) if isinstance(step, CallStep) else []
            for step in case.steps
        ]
        answers.append({"id": case.id, "steps": steps})
    return {"answers": answers}


def _suite_wrong_answers(suite: Suite) -> dict[str, Any]:
    """Every `wrong` answer the suite carries, as a wrong file."""
    answers = [
        {
            "id": case.id,
            "step": index + 1,
            "why": sample.why,
            "calls": _calls([(c.name, c.arguments) for c in sample.calls]),
        }
        for case in suite.cases
        for index, step in enumerate(case.steps)
        if isinstance(step, CallStep)
        for sample in step.wrong
    ]
    return {"answers": answers}


def test_the_suites_own_answers_judge_as_suite_check_does(script: ModuleType, suite: Suite) -> None:
    wrong = _suite_wrong_answers(suite)
    report = script.judge_answers(suite, {"reference": _reference_solver(suite)}, {"suite-wrong": wrong})
    assert report.findings == []
    by_file = {item.file: item for item in report.counts}
    assert by_file["reference"].judged == sum(len(case.steps) for case in suite.cases)
    assert by_file["suite-wrong"].judged == by_file["suite-wrong"].on_call_steps == len(wrong["answers"])


def test_a_failing_right_answer_and_a_passing_wrong_one_are_findings(
    script: ModuleType, suite: Suite
) -> None:
    solver = _reference_solver(suite)
    solver["answers"][0]["steps"][0] = _calls([("read_file", {"path": "src/webapp/settings.py"})])
    sel_08 = next(case for case in suite.cases if case.id == "sel-08").steps[0]
    assert isinstance(sel_08, CallStep)
    wrong = {
        "answers": [
            {
                "id": "sel-08",
                "step": 1,
                "why": "not wrong at all",
                "calls": _calls([(c.name, c.answer) for c in sel_08.calls]),
            }
        ]
    }
    report = script.judge_answers(suite, {"s": solver}, {"w": wrong})
    assert [(f.kind, f.file, f.id, f.step) for f in report.findings] == [
        ("solver fails", "s", "sel-01", 1),
        ("wrong passes", "w", "sel-08", 1),
    ]
    assert report.findings[0].reasons and "path" in report.findings[0].reasons[0]
    assert report.findings[1].why == "not wrong at all"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"id": "sel-99", "step": 1, "calls": []}, "w: answers[0]: no case 'sel-99' in the suite"),
        ({"id": "sel-01", "step": 2, "calls": []}, "w: answers[0]: sel-01 has no step 2"),
        ({"id": "sel-01", "step": 0, "calls": []}, "w: answers[0]: sel-01 has no step 0"),
        (
            {"id": "sel-01", "calls": []},
            "w: answers[0]: expected an object with 'id', 'step' (from 1), 'why' and 'calls'",
        ),
        (
            {"id": "sel-01", "step": 1, "calls": [{"arguments": {}}]},
            "w: answers[0]: calls must be a list of {name, arguments} objects",
        ),
    ],
)
def test_an_answer_the_suite_cannot_judge_is_one_clear_error(
    script: ModuleType, suite: Suite, answer: dict[str, Any], message: str
) -> None:
    with pytest.raises(script.AnswerError) as caught:
        script.judge_answers(suite, {}, {"w": {"answers": [answer]}})
    assert str(caught.value) == message


def test_main_exits_1_on_a_finding_2_on_bad_input_and_writes_json(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps(
            {
                "answers": [
                    {
                        "id": "sel-08",
                        "step": 1,
                        "why": "right",
                        "calls": _calls(
                            [("deploy", {"service": "api", "environment": "staging", "version": "v2.14.0"})]
                        ),
                    }
                ]
            }
        )
    )
    out = tmp_path / "report.json"
    assert script.main([str(ROOT / "suite" / "suite.json"), "--wrong", str(wrong), "--json", str(out)]) == 1
    assert json.loads(out.read_text())["findings"][0]["id"] == "sel-08"
    assert "wrong passes:" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert script.main([str(ROOT / "suite" / "suite.json"), "--solver", str(broken)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"judge_answers: {broken}: cannot read the answers")


def _blind(
    script: ModuleType, suite_path: Path, wrong_files: tuple[str, ...] = ("wrong-a", "wrong-b")
) -> Any:
    def read(name: str) -> Any:
        return json.loads((BLIND / f"{name}.json").read_text(encoding="utf-8"))

    solvers = {name: read(name) for name in ("solver-minimal", "solver-thorough")}
    wrongs = {name: read(name) for name in wrong_files}
    return script.judge_answers(load_suite(suite_path), solvers, wrongs)


def test_the_blind_attack_found_eight_wrong_answers_passing_on_1_1_0(script: ModuleType) -> None:
    report = _blind(script, ROOT / "suite" / "history" / "1.1.0.json")
    assert sorted((f.kind, f.id, f.step) for f in report.findings) == [
        ("wrong passes", "chain-02", 2),
        ("wrong passes", "chain-06", 2),
        ("wrong passes", "chain-07", 4),
        ("wrong passes", "chain-10", 2),
        ("wrong passes", "sel-03", 1),
        ("wrong passes", "sel-03", 1),
        ("wrong passes", "sel-04", 1),
        ("wrong passes", "sel-04", 1),
    ]
    served = {item.file: item.on_call_steps for item in report.counts if item.file.startswith("wrong")}
    assert served == {"wrong-a": 275, "wrong-b": 175}


@pytest.mark.parametrize(
    "suite_path", [ROOT / "suite" / "history" / "1.2.0.json", ROOT / "suite" / "suite.json"]
)
def test_from_1_2_0_every_blind_right_answer_passes_and_every_wrong_one_fails(
    script: ModuleType, suite_path: Path
) -> None:
    """1.2.0 as released, and 1.3.0 (the current suite): the 1.2.0 attack keeps its outcome."""
    report = _blind(script, suite_path, ("wrong-a", "wrong-b", "wrong-c"))
    assert report.findings == []
    assert {item.file: item.judged for item in report.counts} == {
        "solver-minimal": 100,
        "solver-thorough": 100,
        "wrong-a": 275,
        "wrong-b": 249,
        "wrong-c": 368,
    }


def test_the_second_blind_attack_found_28_wrong_answers_passing_on_1_1_0(script: ModuleType) -> None:
    """wrong-c, written after 1.2.0's first changes: 28 passed 1.1.0 (19 of them passed those changes too)."""
    report = _blind(script, ROOT / "suite" / "history" / "1.1.0.json", ("wrong-c",))
    passing = sorted((f.id, f.step) for f in report.findings)
    assert all(f.kind == "wrong passes" for f in report.findings)
    assert len(passing) == 28
    assert {case for case, _ in passing} == {
        "sel-03", "sel-04", "sel-10", "arg-08", "arg-11", "arg-16", "near-03", "near-09", "par-04",
        "par-10", "par-12", "chain-02", "chain-04", "chain-05", "chain-06", "chain-07", "chain-10",
        "chain-12",
    }  # fmt: skip
    served = {item.file: item.on_call_steps for item in report.counts if item.file.startswith("wrong")}
    assert served == {"wrong-c": 368}


BLIND_1_3_0 = ROOT / "fixtures" / "blind-attack-1.3.0"
LIMITS_1_3_0 = [("wrong passes", "wrong-d", "chain-12", 1)]
"""The finding suite/CHANGELOG.md names as 1.3.0's limit: a search whose optional query names
another topic."""


def test_the_1_3_0_blind_round_passes_but_for_the_limit_the_changelog_names(script: ModuleType) -> None:
    def read(name: str) -> Any:
        return json.loads((BLIND_1_3_0 / f"{name}.json").read_text(encoding="utf-8"))

    solvers = {name: read(name) for name in ("solver-careful", "solver-helpful")}
    report = script.judge_answers(
        load_suite(ROOT / "suite" / "suite.json"), solvers, {"wrong-d": read("wrong-d")}
    )
    assert sorted((f.kind, f.file, f.id, f.step) for f in report.findings) == LIMITS_1_3_0
    counts = {item.file: (item.judged, item.on_call_steps) for item in report.counts}
    assert counts == {"solver-careful": (100, 82), "solver-helpful": (100, 82), "wrong-d": (500, 471)}

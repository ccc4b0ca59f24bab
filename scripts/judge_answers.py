"""Judge blind answer sets with the real judge, step by step: the findings of a blind attack.

A blind attack (docs/suite-format.md, "Adding or changing a case", step 8) gives two kinds of files,
written by helpers who saw only the requests:

- solver files, right answers: `{"answers": [{"id": CASE, "steps": [[CALL, ...], ...]}]}`, one list
  of calls per step (an empty list is a text answer);
- wrong files, plausible mistakes: `{"answers": [{"id": CASE, "step": N, "why": "...", "calls":
  [CALL, ...]}]}`, N counted from 1 (the steps before it assumed right).

A CALL is `{"name": ..., "arguments": {...}}`. Each answer goes through `judge_step`, the code `lobrec
suite check` runs on a step's `wrong` and `alternates`. A finding is a solver step that fails or a
wrong answer that passes; each is a check to loosen or tighten, or an answer to reject with a reason.

    .venv/bin/python scripts/judge_answers.py SUITE --solver FILE ... --wrong FILE ... [--json OUT]
        [--ids MAP]

`--ids MAP` reads answers written against `scripts/blind_requests.py --anonymize MAP` (case ids
`case-01`...) and judges each under its suite id.

Prints one line per finding and the counts; exits 1 when there is a finding, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from lobrec.core.judge.step import judge_step
from lobrec.core.suite.build_rules import sample_reply
from lobrec.core.suite.format import CallStep, Case, Suite
from lobrec.errors import LobrecError
from lobrec.suite_file import load_suite


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """A solver step that fails (`kind` "solver fails") or a wrong answer that passes ("wrong passes")."""

    kind: str
    file: str
    id: str
    step: int
    calls: list[Any]
    why: str = ""
    reasons: list[str] = []


class Counts(msgspec.Struct, frozen=True, kw_only=True):
    """Per file: steps judged and how many are findings; for wrong files, those served on call steps."""

    file: str
    judged: int
    findings: int
    on_call_steps: int
    findings_on_call_steps: int


class Report(msgspec.Struct, frozen=True, kw_only=True):
    suite: str
    findings: list[Finding]
    counts: list[Counts]


class AnswerError(LobrecError):
    """An answer file that cannot be judged: unreadable, or naming a case or step the suite lacks."""


def _step(cases: dict[str, Case], where: str, case_id: Any, index: Any) -> tuple[Case, int]:
    case = cases.get(case_id) if isinstance(case_id, str) else None
    if case is None:
        raise AnswerError(f"{where}: no case {case_id!r} in the suite")
    if not isinstance(index, int) or not 0 <= index < len(case.steps):
        raise AnswerError(
            f"{where}: {case_id} has no step {index if not isinstance(index, int) else index + 1}"
        )
    return case, index


def _judge(suite: Suite, case: Case, index: int, calls: Any, where: str) -> tuple[bool, list[str], bool]:
    """(passed, mismatch reasons, is a call step) for `calls` answered at step `index` of `case`."""
    try:
        pairs = [(call["name"], call.get("arguments", {})) for call in calls]
    except (TypeError, KeyError, AttributeError):
        raise AnswerError(f"{where}: calls must be a list of {{name, arguments}} objects") from None
    step = case.steps[index]
    verdict = judge_step(step, sample_reply(pairs), suite.offered_tools(case), index)
    return verdict.passed, [mismatch.reason for mismatch in verdict.mismatches], isinstance(step, CallStep)


def _answers(name: str, data: Any) -> list[Any]:
    if not isinstance(data, dict) or not isinstance(data.get("answers"), list):
        raise AnswerError(f"{name}: expected an object with an 'answers' list")
    return data["answers"]


def judge_answers(suite: Suite, solvers: dict[str, Any], wrongs: dict[str, Any]) -> Report:
    """Every finding of the decoded answer files (by file name), and the counts per file."""
    cases = {case.id: case for case in suite.cases}
    findings: list[Finding] = []
    counts: list[Counts] = []
    for name, data in solvers.items():
        judged = failed = on_call = failed_on_call = 0
        for position, answer in enumerate(_answers(name, data)):
            where = f"{name}: answers[{position}]"
            steps = answer.get("steps") if isinstance(answer, dict) else None
            if not isinstance(steps, list):
                raise AnswerError(f"{where}: expected an object with 'id' and a 'steps' list")
            for index, calls in enumerate(steps):
                case, index = _step(cases, where, answer.get("id"), index)
                passed, reasons, is_call = _judge(suite, case, index, calls, f"{where}.steps[{index}]")
                judged += 1
                on_call += is_call
                if not passed:
                    failed += 1
                    failed_on_call += is_call
                    findings.append(
                        Finding(
                            kind="solver fails",
                            file=name,
                            id=case.id,
                            step=index + 1,
                            calls=calls,
                            reasons=reasons,
                        )
                    )
        counts.append(
            Counts(
                file=name,
                judged=judged,
                findings=failed,
                on_call_steps=on_call,
                findings_on_call_steps=failed_on_call,
            )
        )
    for name, data in wrongs.items():
        judged = passed_count = on_call = passed_on_call = 0
        for position, answer in enumerate(_answers(name, data)):
            where = f"{name}: answers[{position}]"
            if not isinstance(answer, dict) or not isinstance(answer.get("step"), int):
                raise AnswerError(
                    f"{where}: expected an object with 'id', 'step' (from 1), 'why' and 'calls'"
                )
            case, index = _step(cases, where, answer.get("id"), answer["step"] - 1)
            passed, _, is_call = _judge(suite, case, index, answer.get("calls"), where)
            judged += 1
            on_call += is_call
            if passed:
                passed_count += 1
                passed_on_call += is_call
                findings.append(
                    Finding(
                        kind="wrong passes",
                        file=name,
                        id=case.id,
                        step=index + 1,
                        calls=answer["calls"],
                        why=str(answer.get("why", "")),
                    )
                )
        counts.append(
            Counts(
                file=name,
                judged=judged,
                findings=passed_count,
                on_call_steps=on_call,
                findings_on_call_steps=passed_on_call,
            )
        )
    return Report(suite=f"{suite.name} {suite.version}", findings=findings, counts=counts)


def renamed(answers: Any, ids: dict[str, str]) -> Any:
    """An answer file with blind ids (`case-07`) turned back into suite ids; others kept."""
    if not isinstance(answers, dict) or not isinstance(answers.get("answers"), list):
        return answers
    items = [
        {**item, "id": ids.get(item.get("id"), item.get("id"))} if isinstance(item, dict) else item
        for item in answers["answers"]
    ]
    return {**answers, "answers": items}


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AnswerError(f"{path}: cannot read the answers: {exc}") from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--solver", type=Path, action="append", default=[])
    parser.add_argument("--wrong", type=Path, action="append", default=[])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--ids", type=Path, help="blind id -> suite id (blind_requests.py --anonymize)")
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite)
        ids = {} if args.ids is None else _read(args.ids)
        report = judge_answers(
            suite,
            {str(p): renamed(_read(p), ids) for p in args.solver},
            {str(p): renamed(_read(p), ids) for p in args.wrong},
        )
    except LobrecError as exc:
        print(f"judge_answers: {exc}", file=sys.stderr)
        return 2
    for finding in report.findings:
        detail = "; ".join(finding.reasons) if finding.reasons else finding.why
        print(f"{finding.kind}: {finding.file} {finding.id} step {finding.step}: {detail}")
        print(f"    {json.dumps(finding.calls, ensure_ascii=False)}")
    for item in report.counts:
        print(
            f"{item.file}: {item.judged} steps judged, {item.findings} findings; "
            f"{item.on_call_steps} on call steps, {item.findings_on_call_steps} findings there"
        )
    if args.json is not None:
        args.json.write_bytes(msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

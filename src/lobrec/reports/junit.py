"""JUnit XML: a run as test results, so a CI system lists each failing case where it lists tests.

One `<testsuite>` per model (in the results file's order) and one `<testcase>` per case, with
`classname="<model>.<group>"` and `name="<case id>"`, its child given by the case's verdict over
its runs (`case_verdict`, the one every report says). A failing case has a `<failure type="fail">`
whose `message` holds each failing step's failure kind (its label) and the judge's reasons; an
errored case has an `<error>`; a stale or unrecorded case is `<skipped>`: it was not run, so it
neither passes nor fails. Each `<testsuite>` (and the root `<testsuites>`) carries the counts:
`tests`, `failures`, `errors`, `skipped` and `time`.

A model recorded K times (`--repeat K`) still has one testcase per case, judged over every run: a
case that failed in any run is a failure whose message gives each run's verdict (`flaky (passed 1
of 3 scored runs): run 1 passed, run 2 failed, ...`, type `flaky` when another run passed: a case
the model fails one time in three fails the build, and says it is flaky), its text each failing
run's steps; else one errored in any run is an error; else one not judged in some run is skipped;
its time is every run's.

The XML is built with `xml.etree.ElementTree`, which escapes `&`, `<`, `>`, quotes and (in
attributes) line breaks, so `]]>` or `<script>` from a model is text. Characters XML 1.0 cannot
hold at all (most C0 controls such as ESC, lone surrogates, U+FFFE and U+FFFF) are removed first:
a parser would reject the whole file for one of them. `time` is the sum of the case's recorded
attempt latencies, so the file is the same on every rescore of the same cassettes.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from lobrec.core.metrics.repeats import CaseVerdict, case_verdict, run_outcome
from lobrec.core.metrics.results import CaseResult, RunResult, StepVerdict
from lobrec.core.suite.format import Suite
from lobrec.reports.caseview import CaseOverRuns, cases_view
from lobrec.reports.export import step_kind, step_reasons
from lobrec.reports.repeats import run_verdicts

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """`text` without the characters XML 1.0 forbids (escaping the rest is ElementTree's job)."""
    return _NOT_XML.sub("", text)


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _case_ms(case: CaseResult) -> float:
    return math.fsum(call.latency_ms for call in case.api_calls if call.latency_ms is not None)


def _step_said(step: StepVerdict) -> str:
    """A failing step's kind and reasons on one line (either alone when the other is missing)."""
    kind, reasons = step_kind(step), "; ".join(step_reasons(step))
    return f"{kind}: {reasons}" if kind and reasons else kind or reasons


def _step_lines(step: StepVerdict) -> list[str]:
    """A failing step in full: its number, kind and reasons, then what the model called or said."""
    kind = step_kind(step)
    head = f"step {step.index + 1}{f', {kind}' if kind else ''}: " + (
        "; ".join(step_reasons(step)) or "failed"
    )
    calls = [
        f"  called {call.name or '(no name)'}: {call.arguments or '(no arguments)'}" for call in step.calls
    ]
    replied = [f"  replied: {step.content}"] if step.content else []
    return [head, *calls, *replied]


def failure_text(case: CaseResult) -> tuple[str, str]:
    """(message, body) for a failing case: each failing step's kind and reasons on one line, then
    step by step with calls (a step from a file before failure kinds gives its reasons alone)."""
    failing = [step for step in sorted(case.steps, key=lambda step: step.index) if not step.passed]
    if not failing:
        return "no step was judged", "no step was judged"
    said = [part for step in failing if (part := _step_said(step))]
    message = "; ".join(said) or f"step {failing[0].index + 1} failed"
    return message, "\n".join(line for step in failing for line in _step_lines(step))


def _failure(
    element: ET.Element, failing: list[tuple[int, CaseResult]], said: str, verdict: CaseVerdict
) -> None:
    """The `<failure>` of a case that failed in some run: the first failing run's reasons, and its
    steps; with repeats (`said` holds every run's verdict) every failing run's, each named."""
    texts = [(number, *failure_text(case)) for number, case in failing]
    message, body = texts[0][1], texts[0][2]
    if said:
        message = f"{said}; {message}"
        body = "\n".join(
            f"run {number}: {reasons}\n" + "\n".join(f"  {line}" for line in text.split("\n"))
            for number, reasons, text in texts
        )
    child = ET.SubElement(element, "failure", {"message": xml_safe(message), "type": verdict})
    child.text = xml_safe(body)


def _error(element: ET.Element, errored: list[tuple[int, CaseResult]], said: str) -> None:
    """The `<error>` of a case errored in some run: its reason (each errored run's, named, with repeats)."""
    reasons = [(f"run {number}: " if said else "") + (case.reason or "") for number, case in errored]
    message = f"{said}; {reasons[0]}" if said else reasons[0]
    child = ET.SubElement(element, "error", {"message": xml_safe(message), "type": "errored"})
    child.text = xml_safe("\n".join(reasons))


def _verdict(
    element: ET.Element, entry: CaseOverRuns, numbered: list[tuple[int, CaseResult]], said: str
) -> CaseVerdict:
    """Add the child the case's verdict over its runs calls for (`case_verdict`; none for a pass)."""
    verdict = case_verdict(entry.outcomes)
    if verdict in ("fail", "flaky"):
        failing = [(number, case) for number, case in numbered if run_outcome(case) == "failed"]
        _failure(element, failing, said, verdict)
    elif verdict == "errored":
        _error(element, [(number, case) for number, case in numbered if case.status == "errored"], said)
    elif verdict != "pass":
        reason = numbered[0][1].reason
        message = said or (f"{verdict}: {reason}" if reason else verdict)
        ET.SubElement(element, "skipped", {"message": xml_safe(message)})
    return verdict


def _testcase(model: str, entry: CaseOverRuns) -> tuple[ET.Element, CaseVerdict, float]:
    """One testcase for a case, from every run of the model; its time is every run's. With repeats
    each message starts with every run's verdict (`run_verdicts`, flaky ones saying so) and each
    reason names its run."""
    numbered = list(entry.judged)
    ms = math.fsum(_case_ms(case) for _, case in numbered)
    element = ET.Element(
        "testcase",
        {
            "classname": xml_safe(f"{model}.{entry.group}"),
            "name": xml_safe(entry.id),
            "time": _seconds(ms),
        },
    )
    said = run_verdicts(entry.outcomes) if entry.repeated else ""
    return element, _verdict(element, entry, numbered, said), ms


def _counts(element: ET.Element, verdicts: Sequence[CaseVerdict], ms: float) -> None:
    """A flaky case counts as a failure: JUnit has no other count for it (its `type` says flaky)."""
    element.set("tests", str(len(verdicts)))
    element.set("failures", str(sum(verdict in ("fail", "flaky") for verdict in verdicts)))
    element.set("errors", str(verdicts.count("errored")))
    element.set("skipped", str(sum(verdict in ("stale", "unrecorded", "missing") for verdict in verdicts)))
    element.set("time", _seconds(ms))


def to_junit(run: RunResult, suite: Suite) -> str:
    """The whole file: declaration, `<testsuites>`, one `<testsuite>` per model; ends in a newline."""
    view = cases_view(run, suite)
    root = ET.Element("testsuites", {"name": xml_safe(f"lobrec {view.suite_name} {view.suite_version}")})
    every: list[CaseVerdict] = []
    times: list[float] = []
    for model in view.models:
        testsuite = ET.SubElement(root, "testsuite", {"name": xml_safe(model.name)})
        properties = ET.SubElement(testsuite, "properties")
        for name, value in (("suite", view.suite_name), ("suite_version", view.suite_version)):
            ET.SubElement(properties, "property", {"name": name, "value": xml_safe(value)})
        verdicts = []
        spent = []
        for entry in model.cases:
            element, verdict, ms = _testcase(model.name, entry)
            testsuite.append(element)
            verdicts.append(verdict)
            spent.append(ms)
        model_ms = math.fsum(spent)
        _counts(testsuite, verdicts, model_ms)
        every.extend(verdicts)
        times.append(model_ms)
    _counts(root, every, math.fsum(times))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

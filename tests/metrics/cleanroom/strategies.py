"""Generated inputs for the clean-room cross-check: failed step verdicts, and whole runs (several
models, some with repeated runs, `auto` answering as the models it picks) judged case by case.

Kept beside the reference rather than in tests/support/strategies.py so that the clean room stays one
folder: nothing here reads lobrec's implementation of the figures under test.
"""

from __future__ import annotations

import msgspec
from hypothesis import strategies as st

from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    Mismatch,
    ModelResult,
    RunResult,
    StepVerdict,
    SuiteRef,
)
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
from lobrec.running.run_result import finish_run

TOOLS = ("t_a", "t_b", "t_c", "t_d")
ARGUMENT_TEXTS = ("{}", '{"a": 1}', "{", "[1]", '"x"', "NaN", '{"a": NaN}', '{"a": 1, "a": 2}', "", None)
PATHS = (
    "names",
    "message",
    "tool_calls",
    "calls[0]",
    "calls[1]",
    "calls[0].arguments",
    "calls[1].arguments",
    "calls[0].arguments.a",
    "calls[1].arguments.b",
    "x",
)
CHECKS = ("eq", "regex", "range", "oneOf")
CANDIDATES = ("m/a", "m/b", "m/c")
"""`auto` answers as these; m/c is never recorded."""


@st.composite
def call_records(draw: st.DrawFn, offered: tuple[str, ...] = TOOLS[:3]) -> CallRecord:
    name = draw(st.sampled_from((*TOOLS, "made_up", None)))
    arguments = draw(st.sampled_from(ARGUMENT_TEXTS))
    is_offered = name in offered
    return CallRecord(
        name=name,
        arguments=arguments,
        offered=is_offered,
        schema_valid=draw(st.booleans()) if is_offered else None,
    )


@st.composite
def mismatch_lists(draw: st.DrawFn) -> list[Mismatch]:
    found = []
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(PATHS))
        checked = path.count(".") == 2 and draw(st.booleans())
        found.append(
            Mismatch(
                path=path,
                expected=None,
                got=None,
                reason="r",
                check=draw(st.sampled_from(CHECKS)) if checked else None,
                argument=path.rsplit(".", 1)[1] if checked else None,
            )
        )
    return found


@st.composite
def failed_verdicts(
    draw: st.DrawFn, expects: str | None = None, expected: list[str] | None = None
) -> StepVerdict:
    """A failed step verdict: any calls (nameless, made up, offered, any arguments), any mismatches."""
    expects = expects or draw(st.sampled_from(["call", "no_call"]))
    if expected is None:
        expected = draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=3)) if expects == "call" else []
    calls = draw(st.lists(call_records(), max_size=3))
    names = sorted(str(call.name) for call in calls)
    return StepVerdict(
        index=0,
        expects=expects,  # type: ignore[arg-type]
        passed=False,
        names_match=names == sorted(expected),
        expected_names=expected,
        calls=calls,
        mismatches=draw(mismatch_lists()),
    )


# --- suites and runs ---------------------------------------------------------------------------


@st.composite
def suites(draw: st.DrawFn) -> Suite:
    cases = []
    for index in range(draw(st.integers(1, 7))):
        steps: list[CallStep | NoCallStep] = []
        for _ in range(draw(st.integers(1, 3))):
            if draw(st.integers(0, 3)) == 0:
                steps.append(NoCallStep())
            else:
                names = draw(st.lists(st.sampled_from(TOOLS[:3]), min_size=1, max_size=2))
                steps.append(CallStep(calls=[ExpectedCall(name=name, answer={}) for name in names]))
        cases.append(
            Case(
                id=f"c{index}",
                group="chains" if len(steps) > 1 else "selection",
                tools=list(TOOLS[:3]),
                messages=[Message(role="user", content="hi")],
                steps=steps,
            )
        )
    tools = [Tool(type="function", function=FunctionSpec(name=name, parameters={})) for name in TOOLS]
    return Suite(name="cleanroom", version="1.0.0", system_prompt="", tools=tools, cases=cases)


def _passing(index: int, step: CallStep | NoCallStep) -> StepVerdict:
    if isinstance(step, NoCallStep):
        return StepVerdict(
            index=index, expects="no_call", passed=True, names_match=True, expected_names=[], calls=[]
        )
    names = [call.name for call in step.calls]
    calls = [CallRecord(name=name, arguments="{}", offered=True, schema_valid=True) for name in names]
    return StepVerdict(
        index=index,
        expects="call",
        passed=True,
        names_match=True,
        expected_names=names,
        calls=calls,
        pairing=list(range(len(calls))),
    )


@st.composite
def api_calls(
    draw: st.DrawFn, judged_steps: int, answerers: tuple[str | None, ...], errored: bool
) -> list[ApiCall]:
    """Each judged step's attempts (a retry now and then, then the judged 200), and for an errored
    case one more step that ended in an error status."""
    calls = []
    for step in range(judged_steps + errored):
        attempt = 0
        for _ in range(draw(st.integers(0, 1))):  # a retried 429 or 503, sometimes priced
            calls.append(
                ApiCall(
                    step=step,
                    attempt=attempt,
                    status=draw(st.sampled_from([429, 503, None])),
                    latency_ms=draw(st.none() | st.floats(0, 500).map(lambda x: round(x, 1))),
                    cost_usd=draw(st.none() | st.just(0.0001)),
                )
            )
            attempt += 1
        judged = step < judged_steps
        calls.append(
            ApiCall(
                step=step,
                attempt=attempt,
                status=200 if judged else draw(st.sampled_from([400, 503])),
                latency_ms=draw(st.floats(0, 500).map(lambda x: round(x, 1))),
                cost_usd=draw(st.sampled_from([0.001, 0.002, 0.0035, None] if judged else [None])),
                judged=judged,
                answered_by=draw(st.sampled_from(answerers)) if judged else None,
            )
        )
    return calls


@st.composite
def case_results(draw: st.DrawFn, case: Case, answerers: tuple[str | None, ...]) -> CaseResult:
    status = draw(st.sampled_from(["scored"] * 5 + ["errored", "stale", "unrecorded"]))
    verdicts: list[StepVerdict] = []
    if status in ("scored", "errored"):
        for index, step in enumerate(case.steps):
            if draw(st.integers(0, 2)) > 0:
                verdicts.append(_passing(index, step))
                continue
            expects = "call" if isinstance(step, CallStep) else "no_call"
            expected = [call.name for call in step.calls] if isinstance(step, CallStep) else []
            failed = draw(failed_verdicts(expects, expected))
            verdicts.append(StepVerdict(**{**_fields(failed), "index": index}))
            break
        if status == "errored":
            verdicts = verdicts[:-1]
    calls = draw(api_calls(len(verdicts), answerers, status == "errored")) if status != "unrecorded" else []
    return CaseResult(id=case.id, group=case.group, status=status, steps=verdicts, api_calls=calls)  # type: ignore[arg-type]


def _fields(verdict: StepVerdict) -> dict[str, object]:
    return {field: getattr(verdict, field) for field in verdict.__struct_fields__}


@st.composite
def model_entries(draw: st.DrawFn, suite: Suite, name: str, answerers: tuple[str | None, ...]) -> ModelResult:
    runs = draw(st.sampled_from([1, 1, 2, 3]))
    entries = [
        model_result(suite, name, [draw(case_results(case, answerers)) for case in suite.cases], False)
        for _ in range(runs)
    ]
    return combine_runs(suite, entries)


@st.composite
def runs(draw: st.DrawFn) -> tuple[Suite, RunResult]:
    """A run of 1-4 models; when `auto` is among them it answers as m/a, m/b, m/c (never recorded),
    itself, or no one, so that candidates are recorded, unrecorded, or absent."""
    suite = draw(suites())
    names = draw(
        st.lists(st.sampled_from(["auto", "m/a", "m/b", "z/solo"]), min_size=1, max_size=4, unique=True)
    )
    models = []
    for name in sorted(names):
        answerers = (*CANDIDATES, None, "auto") if name == "auto" else (name, None)
        models.append(draw(model_entries(suite, name, answerers)))
    run = RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=models)
    return suite, finish_run(suite, run)


# --- many models on many one-step cases (tiers and the resolution) --------------------------------


def one_step_suite(count: int) -> Suite:
    """`count` one-step no-call cases: a case passes or fails, nothing else matters here."""
    cases = [
        Case(
            id=f"c{index:02}",
            group="no_call",
            tools=list(TOOLS[:3]),
            messages=[Message(role="user", content="hi")],
            steps=[NoCallStep()],
        )
        for index in range(count)
    ]
    tools = [Tool(type="function", function=FunctionSpec(name=name, parameters={})) for name in TOOLS]
    return Suite(name="tiers", version="1.0.0", system_prompt="", tools=tools, cases=cases)


def one_step_case(case_id: str, outcome: str) -> CaseResult:
    """`passed`, `failed` (a needless call), or a status with nothing judged."""
    if outcome not in ("passed", "failed"):
        return CaseResult(id=case_id, group="no_call", status=outcome)  # type: ignore[arg-type]
    calls = (
        []
        if outcome == "passed"
        else [CallRecord(name="t_a", arguments="{}", offered=True, schema_valid=True)]
    )
    verdict = StepVerdict(
        index=0, expects="no_call", passed=not calls, names_match=not calls, expected_names=[], calls=calls
    )
    api = ApiCall(step=0, attempt=0, status=200, latency_ms=10.0, cost_usd=0.001, judged=True)
    return CaseResult(id=case_id, group="no_call", status="scored", steps=[verdict], api_calls=[api])


@st.composite
def ranked_runs(draw: st.DrawFn) -> tuple[Suite, RunResult]:
    """2-6 models on 6-40 cases of shared difficulty: each model passes the cases below its ability,
    with a few cases the other way, a few flipping between its runs and a few errored; now and then
    a model's twin under another name, so that ties, clear gaps and near misses all occur."""
    count = draw(st.integers(6, 40))
    suite = one_step_suite(count)
    difficulty = draw(st.permutations(range(count)))
    indexes = st.integers(0, count - 1)
    entries: list[ModelResult] = []
    for number in range(draw(st.integers(2, 6))):
        name = f"m{number}"
        if entries and draw(st.integers(0, 4)) == 0:
            twin = draw(st.sampled_from(entries))
            entries.append(msgspec.structs.replace(twin, model=name))
            continue
        ability = count * draw(st.sampled_from(range(11))) // 10
        noise = draw(st.sets(indexes, max_size=3))
        runs = []
        for run in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
            flipped = draw(st.sets(indexes, max_size=3)) if run else set()
            errored = draw(st.sets(indexes, max_size=2))
            outcomes = [
                "errored"
                if index in errored
                else "passed"
                if (difficulty[index] < ability) ^ (index in noise) ^ (index in flipped)
                else "failed"
                for index in range(count)
            ]
            cases = [
                one_step_case(case.id, outcome) for case, outcome in zip(suite.cases, outcomes, strict=True)
            ]
            runs.append(model_result(suite, name, cases, False))
        entries.append(combine_runs(suite, runs))
    run = RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=entries)
    return suite, finish_run(suite, run)

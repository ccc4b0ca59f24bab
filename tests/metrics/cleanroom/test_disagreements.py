"""Each disagreement the clean-room cross-check found between lobrec and a reading of the docs,
pinned on the smallest input that shows it, with the rule that settles it (docs/metrics.md).

Two were lobrec's (fixed in src): a step whose arguments use NaN got `arguments_not_object` while
its own mismatch said "not valid JSON"; the routing figure "direct" divided its cost by the number
of recordings rather than the cases. The rest were rules the docs left open; docs/metrics.md now
states lobrec's, and these tests hold lobrec to it."""

from __future__ import annotations

import json

import pytest

from lobrec.core.judge import failures
from lobrec.core.judge.step import judge_step
from lobrec.core.judge.wire import parse_completion
from lobrec.core.metrics import tiers
from lobrec.core.metrics.compare import compare
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.repeats import combine_runs
from lobrec.core.metrics.results import ApiCall, CallRecord, CaseResult, Mismatch, ModelResult, StepVerdict
from lobrec.core.metrics.routing import routing
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
from tests.metrics.cleanroom import reference as ref

TOOLS = [Tool(type="function", function=FunctionSpec(name=name, parameters={})) for name in ("t_a", "t_b")]


def _verdict(arguments: str | None, *mismatches: Mismatch, expects: str = "call") -> StepVerdict:
    calls = (
        []
        if arguments is None
        else [CallRecord(name="t_a", arguments=arguments, offered=True, schema_valid=False)]
    )
    return StepVerdict(
        index=0,
        expects=expects,  # type: ignore[arg-type]
        passed=False,
        names_match=True,
        expected_names=["t_a"] if expects == "call" else [],
        calls=calls,
        mismatches=list(mismatches),
    )


def _at(path: str, check: str | None = None, argument: str | None = None) -> Mismatch:
    return Mismatch(path=path, expected=None, got=None, reason="r", check=check, argument=argument)


# --- failure kinds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['{"a": NaN}', "NaN", '{"a": -Infinity}', "[Infinity]"])
def test_nan_arguments_are_not_json(text: str) -> None:
    """Was `arguments_not_object` (Python's json reads NaN); JSON has no NaN, and the judge's own
    reason for the step says "not valid JSON"."""
    step = CallStep(calls=[ExpectedCall(name="t_a", answer={})])
    body = json.dumps(
        {
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "tool_calls": [
                            {"id": "c", "type": "function", "function": {"name": "t_a", "arguments": text}}
                        ],
                    },
                }
            ]
        }
    ).encode()
    verdict = judge_step(step, parse_completion(body), TOOLS, 0)
    assert [m.reason for m in verdict.mismatches] == ["arguments of t_a are not valid JSON"]
    found = failures.classify_step(verdict)
    assert found == failures.StepFailure(kind="arguments_not_json")
    assert ref.classify(verdict) == ref.Kind("arguments_not_json")


def test_repeated_keys_are_not_an_object() -> None:
    """Valid JSON text, refused by the judge as "not a JSON object": `arguments_not_object`."""
    verdict = _verdict('{"a": 1, "a": 2}', _at("calls[0].arguments"))
    assert failures.classify_step(verdict) == failures.StepFailure(kind="arguments_not_object")
    assert ref.classify(verdict) == ref.Kind("arguments_not_object")


@pytest.mark.parametrize("path", ["tool_calls", "calls[0]", "calls[0].arguments", "names"])
def test_a_no_call_step_without_calls_is_other(path: str) -> None:
    """A failed no-call step is read for a withheld reply and for calls; nothing else applies to a
    step where no call was due (only a hand-edited verdict fails one otherwise)."""
    verdict = _verdict(None, _at(path), expects="no_call")
    assert failures.classify_step(verdict) == failures.StepFailure(kind="other")
    assert ref.classify(verdict) == ref.Kind("other")


def test_an_argument_path_without_check_is_an_argument_check() -> None:
    """A verdict from before `check` existed: the argument is read from the path, the check unknown;
    the first such mismatch in order wins over a later one with a check."""
    verdict = _verdict("{}", _at("calls[0].arguments.due"), _at("calls[0].arguments.to", "eq", "to"))
    expected = failures.StepFailure(kind="argument_check", argument="due", check=None)
    assert failures.classify_step(verdict) == expected
    assert ref.classify(verdict) == ref.Kind("argument_check", "due", None)


# --- resolution -----------------------------------------------------------------------------------

SUITE = Suite(
    name="s",
    version="1.0.0",
    system_prompt="",
    tools=TOOLS,
    cases=[
        Case(
            id=f"c{i}",
            group="no_call",
            tools=["t_a", "t_b"],
            messages=[Message(role="user", content="hi")],
            steps=[NoCallStep()],
        )
        for i in range(3)
    ],
)


def _case(
    case_id: str, outcome: str, answered_by: str | None = None, cost: float | None = 0.001
) -> CaseResult:
    """A one-step case: passed, failed (a needless call), or that status."""
    if outcome not in ("passed", "failed"):
        return CaseResult(id=case_id, group="no_call", status=outcome)  # type: ignore[arg-type]
    calls = (
        []
        if outcome == "passed"
        else [CallRecord(name="t_a", arguments="{}", offered=True, schema_valid=True)]
    )
    verdict = StepVerdict(
        index=0,
        expects="no_call",
        passed=outcome == "passed",
        names_match=not calls,
        expected_names=[],
        calls=calls,
    )
    api = ApiCall(
        step=0, attempt=0, status=200, latency_ms=10.0, cost_usd=cost, judged=True, answered_by=answered_by
    )
    return CaseResult(id=case_id, group="no_call", status="scored", steps=[verdict], api_calls=[api])


def _model(name: str, *runs: list[CaseResult]) -> ModelResult:
    return combine_runs(SUITE, [model_result(SUITE, name, cases, False) for cases in runs])


def test_resolution_cases_are_those_scored_in_any_run() -> None:
    """n: c0 and c1 scored in run 1, c1 and c2 in run 2: three cases scored, though no run has three."""
    model = _model(
        "m",
        [_case("c0", "passed"), _case("c1", "passed"), _case("c2", "errored")],
        [_case("c0", "errored"), _case("c1", "failed"), _case("c2", "passed")],
    )
    found = tiers.run_resolution([model])
    assert found is not None and found.cases == 3
    assert found.flip_rate == 100.0 and found.repeated  # c1 is the one case scored in both runs
    assert ref.run_resolution(SUITE, [model]) == ref.Res(3, 100.0, True, None)


def test_repeats_with_no_case_scored_twice_measure_no_flips() -> None:
    """`repeated` says flips were measured: two runs that share no scored case measure none."""
    model = _model("m", [_case("c0", "passed")], [_case("c0", "stale")])
    found = tiers.run_resolution([model])
    assert found is not None and (found.repeated, found.flip_rate) == (False, 0.0)
    assert ref.run_resolution(SUITE, [model]) == ref.Res(1, 0.0, False, None)


def test_a_pairs_flips_are_pooled_over_both_models() -> None:
    """diff's f: the run-to-run flips of both models pooled (1 of the 2 cases compared), not the
    larger of the two models' own (1 of 1)."""
    a = _model("a", [_case("c0", "passed")], [_case("c0", "passed")])
    b = _model("b", [_case("c0", "passed")], [_case("c0", "failed")])
    found = tiers.with_resolution(compare(a, b), a, b)
    assert found.resolution is not None and found.resolution.flip_rate == 50.0
    expected = ref.pair_resolution(SUITE, a, b)
    assert expected is not None and expected.flip_rate == 50.0


def test_nothing_resolvable_is_not_resolved() -> None:
    """With no resolvable difference (under six cases) the observed one does not reach it: False."""
    a = _model("a", [_case("c0", "passed")])
    b = _model("b", [_case("c0", "failed")])
    found = tiers.with_resolution(compare(a, b), a, b)
    assert found.resolution is not None and found.resolution.min_difference is None
    assert found.resolved is False
    assert ref.resolved(a, b, ref.pair_resolution(SUITE, a, b)) is False


# --- routing ----------------------------------------------------------------------------------------


def test_direct_cost_is_per_direct_case() -> None:
    """Was 0.15 (0.003 over two recordings): Nex answered c0 with m/a then m/b (a two-step answer
    read here as one judged call each), so c0 answered directly costs both recordings, 0.001 +
    0.002, over one case: 0.3 per 100 cases."""
    two = ApiCall(
        step=0, attempt=0, status=200, latency_ms=10.0, cost_usd=0.001, judged=True, answered_by="m/a"
    )
    nex_case = _case("c0", "passed", "m/a")
    nex_case = CaseResult(
        id="c0",
        group="no_call",
        status="scored",
        steps=nex_case.steps,
        api_calls=[
            two,
            ApiCall(
                step=1, attempt=0, status=200, latency_ms=10.0, cost_usd=0.001, judged=True, answered_by="m/b"
            ),
        ],
    )
    suite = Suite(name="s", version="1.0.0", system_prompt="", tools=TOOLS, cases=SUITE.cases[:1])
    auto = combine_runs(suite, [model_result(suite, "auto", [nex_case], False)])
    alpha = combine_runs(suite, [model_result(suite, "m/a", [_case("c0", "passed", "m/a", 0.001)], False)])
    beta = combine_runs(suite, [model_result(suite, "m/b", [_case("c0", "passed", "m/b", 0.002)], False)])
    found = routing(suite, auto, [auto, alpha, beta])
    assert found is not None
    (run,) = found.runs
    assert (run.direct.overall.passed, run.direct.overall.total) == (1, 1)
    assert run.direct.cost_per_100_cases_usd == 0.3
    (expected,) = ref.routing(suite, [auto, alpha, beta]).runs  # type: ignore[union-attr]
    assert expected.direct.cost == 0.3


def test_a_candidate_without_scores_is_not_recorded() -> None:
    """A candidate whose folder holds no scored case is named with the unrecorded: comparing on the
    cases scored for every candidate would otherwise compare nothing."""
    auto = _model(
        "auto", [_case("c0", "passed", "m/a"), _case("c1", "passed", "m/b"), _case("c2", "failed", "m/a")]
    )
    alpha = _model("m/a", [_case("c0", "passed"), _case("c1", "failed"), _case("c2", "failed")])
    beta = _model("m/b", [_case("c0", "errored"), _case("c1", "stale"), _case("c2", "unrecorded")])
    found = routing(SUITE, auto, [auto, alpha, beta])
    assert found is not None
    assert (found.recorded, found.unrecorded) == (["m/a"], ["m/b"])
    # c1, answered with m/b, is left out of every figure: two compared, one left out (partial).
    assert (found.runs[0].cases, found.runs[0].unrecorded_cases) == (2, 1)
    expected = ref.routing(SUITE, [auto, alpha, beta])
    assert expected is not None and (expected.recorded, expected.unrecorded) == (["m/a"], ["m/b"])
    assert (expected.runs[0].cases, expected.runs[0].unrecorded_cases) == (2, 1)


def test_the_oracle_reads_an_unpriced_case_as_the_dearest() -> None:
    """Both candidates pass c0 and c1; m/a's c0 answer is unpriced (its cost unknown), so the oracle
    sends c0 to m/b, though m/b's priced answer costs more than nothing; c1 costs the same with
    both and goes to m/a by name. Oracle: (0.004 + 0.001) / 2 cases = 0.25 per 100 cases."""
    auto = _model("auto", [_case("c0", "passed", "m/a"), _case("c1", "passed", "m/b")])
    alpha = _model("m/a", [_case("c0", "passed", cost=None), _case("c1", "passed")])
    beta = _model("m/b", [_case("c0", "passed", cost=0.004), _case("c1", "passed")])
    found = routing(SUITE, auto, [auto, alpha, beta])
    assert found is not None and found.runs[0].oracle.cost_per_100_cases_usd == 0.25
    expected = ref.routing(SUITE, [auto, alpha, beta])
    assert expected is not None and expected.runs[0].oracle.cost == 0.25


def test_regret_is_the_difference_of_the_rates_as_written() -> None:
    """Oracle 1/3 (33.3333) and Nex 2/3 (66.6667): the regret is -33.3334, what the two written rates
    give, not -33.3333 (the exact -1/3 rounded)."""
    auto = _model(
        "auto", [_case("c0", "passed", "m/a"), _case("c1", "passed", "m/a"), _case("c2", "failed", "m/a")]
    )
    alpha = _model("m/a", [_case("c0", "passed"), _case("c1", "failed"), _case("c2", "failed")])
    found = routing(SUITE, auto, [auto, alpha])
    assert found is not None and found.runs[0].regret == -33.3334
    expected = ref.routing(SUITE, [auto, alpha])
    assert expected is not None and expected.runs[0].regret == -33.3334

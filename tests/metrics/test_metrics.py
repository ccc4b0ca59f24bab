"""The metric rules, each pinned with small hand-built results against a small hand-built suite."""

from __future__ import annotations

import math

import msgspec
import pytest

from lobrec.core.metrics.rates import compute_metrics, model_result, rate, wilson_interval
from lobrec.core.metrics.results import (
    ApiCall,
    CallRecord,
    CaseResult,
    CaseStatus,
    Counts,
    Metrics,
    ModelResult,
    Rate,
    RunResult,
    StepVerdict,
    SuiteRef,
    decode_results,
    encode_results,
)
from lobrec.core.suite.format import (
    CallStep,
    Case,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Step,
    Suite,
    Tool,
)

# --- a small suite -------------------------------------------------------------------------------


def _tool(name: str) -> Tool:
    return Tool(type="function", function=FunctionSpec(name=name, parameters={"type": "object"}))


def _call(name: str) -> ExpectedCall:
    return ExpectedCall(name=name, answer={})


def _case(case_id: str, group: str, steps: list[Step]) -> Case:
    return Case(
        id=case_id,
        group=group,  # type: ignore[arg-type]
        tools=["get_weather", "send_email", "read_file"],
        messages=[Message(role="user", content=case_id)],
        steps=steps,
    )


SUITE = Suite(
    name="mini",
    version="1.0.0",
    system_prompt="You are a test.",
    tools=[_tool("get_weather"), _tool("send_email"), _tool("read_file")],
    cases=[
        # one call step
        _case("sel", "selection", [CallStep(calls=[_call("get_weather")])]),
        # first step expects no call
        _case("nocall", "no_call", [NoCallStep()]),
        # one step expecting two calls in one response
        _case("par", "parallel", [CallStep(calls=[_call("get_weather"), _call("get_weather")])]),
        # two call steps
        _case(
            "chain", "chains", [CallStep(calls=[_call("read_file")]), CallStep(calls=[_call("send_email")])]
        ),
        # ask first, then call: right tool is judged at step 1
        _case("ask", "chains", [NoCallStep(), CallStep(calls=[_call("send_email")])]),
    ],
)

# --- builders ------------------------------------------------------------------------------------

OK = CallRecord(name="get_weather", arguments="{}", offered=True, schema_valid=True)


def verdict(
    index: int, passed: bool, names_match: bool | None = None, calls: list[CallRecord] | None = None
) -> StepVerdict:
    """A verdict; names match when it passed unless said otherwise."""
    return StepVerdict(
        index=index,
        expects="call",
        passed=passed,
        names_match=passed if names_match is None else names_match,
        expected_names=[],
        calls=calls or [],
    )


def api(
    latency_ms: float = 100.0,
    *,
    status: int | None = 200,
    cost_usd: float | None = 0.001,
    judged: bool = True,
    answered_by: str | None = "acme/m1",
    step: int = 0,
    attempt: int = 0,
) -> ApiCall:
    return ApiCall(
        step=step,
        attempt=attempt,
        status=status,
        latency_ms=latency_ms,
        cost_usd=cost_usd,
        judged=judged,
        answered_by=answered_by,
    )


def result(
    case_id: str,
    steps: list[StepVerdict] | None = None,
    *,
    status: CaseStatus = "scored",
    api_calls: list[ApiCall] | None = None,
) -> CaseResult:
    case = SUITE.case(case_id)
    return CaseResult(
        id=case_id,
        group=case.group if case is not None else "selection",
        status=status,
        steps=steps or [],
        api_calls=api_calls or [],
    )


DASH = Rate(rate=None, passed=0, total=0, ci95=None)


# --- Wilson interval and Rate --------------------------------------------------------------------


def wilson_by_formula(passed: int, total: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The score interval written out the textbook way, as fractions."""
    p = passed / total
    centre = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    denominator = 1 + z * z / total
    return ((centre - spread) / denominator, (centre + spread) / denominator)


@pytest.mark.parametrize(
    ("passed", "total", "published"),
    [
        # Newcombe (1998), Stat. Med. 17:857, Table I, method 3 (score, no continuity correction).
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
        # The three points the issue names.
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
        (5, 10, (0.2366, 0.7634)),
    ],
)
def test_wilson_interval_matches_formula_and_published_values(
    passed: int, total: int, published: tuple[float, float]
) -> None:
    interval = wilson_interval(passed, total)
    assert interval is not None
    low, high = interval
    expected_low, expected_high = wilson_by_formula(passed, total)
    assert low == pytest.approx(max(0.0, expected_low) * 100, rel=1e-12, abs=1e-12)
    assert high == pytest.approx(min(1.0, expected_high) * 100, rel=1e-12, abs=1e-12)
    assert (round(low / 100, 4), round(high / 100, 4)) == published


def test_wilson_interval_ends_are_exact_at_zero_and_all() -> None:
    assert wilson_interval(0, 10) == (0.0, pytest.approx(27.753279986288922))
    assert wilson_interval(10, 10) == (pytest.approx(72.24672001371108), 100.0)


def test_wilson_interval_of_nothing_is_none() -> None:
    assert wilson_interval(0, 0) is None


@pytest.mark.parametrize(
    ("passed", "total", "z", "message"),
    [
        (3, 2, 1.96, "wilson_interval needs 0 <= passed <= total, got passed=3, total=2"),
        (-1, 2, 1.96, "wilson_interval needs 0 <= passed <= total, got passed=-1, total=2"),
        (0, -1, 1.96, "wilson_interval needs 0 <= passed <= total, got passed=0, total=-1"),
        (1, 2, 0.0, "wilson_interval needs a positive finite z, got 0.0"),
        (1, 2, math.nan, "wilson_interval needs a positive finite z, got nan"),
    ],
)
def test_wilson_interval_rejects_impossible_counts(passed: int, total: int, z: float, message: str) -> None:
    with pytest.raises(ValueError) as info:
        wilson_interval(passed, total, z)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("passed", "total", "expected"),
    [
        (0, 0, DASH),
        (0, 10, Rate(rate=0.0, passed=0, total=10, ci95=(0.0, 27.7533))),
        (10, 10, Rate(rate=100.0, passed=10, total=10, ci95=(72.2467, 100.0))),
        (5, 10, Rate(rate=50.0, passed=5, total=10, ci95=(23.6593, 76.3407))),
        (1, 3, Rate(rate=33.3333, passed=1, total=3, ci95=(6.1492, 79.234))),
        (2, 3, Rate(rate=66.6667, passed=2, total=3, ci95=(20.766, 93.8508))),
    ],
)
def test_rate_rounds_percent_and_interval_to_four_decimals(passed: int, total: int, expected: Rate) -> None:
    assert rate(passed, total) == expected


# --- case-based rules, one row per situation -----------------------------------------------------

# Each row: a scored case and, per case-based metric, "pass", "fail" or "-" (does not apply).
METRICS = ("overall", "right_tool", "chains", "parallel", "no_call_needed")

CASE_ROWS: list[tuple[str, CaseResult, tuple[str, str, str, str, str]]] = [
    # id                             overall  right   chains  parallel  no_call
    ("selection passes", result("sel", [verdict(0, True)]), ("pass", "pass", "-", "-", "-")),
    ("selection wrong tool", result("sel", [verdict(0, False)]), ("fail", "fail", "-", "-", "-")),
    (
        "selection right tool, bad arguments",
        result("sel", [verdict(0, False, names_match=True)]),
        ("fail", "pass", "-", "-", "-"),
    ),
    ("selection with no verdict", result("sel", []), ("fail", "fail", "-", "-", "-")),
    (
        "no call, model answered in text",
        result("nocall", [verdict(0, True)]),
        ("pass", "-", "-", "-", "pass"),
    ),
    ("no call, model called a tool", result("nocall", [verdict(0, False)]), ("fail", "-", "-", "-", "fail")),
    ("parallel in one response", result("par", [verdict(0, True)]), ("pass", "pass", "-", "pass", "-")),
    (
        # Split over two responses: the first response held one call, so the names did not match
        # and the step failed; the runner never asked a second time for the same step.
        "parallel split over two responses",
        result("par", [verdict(0, False, calls=[OK])]),
        ("fail", "fail", "-", "fail", "-"),
    ),
    (
        "chain passes",
        result("chain", [verdict(0, True), verdict(1, True)]),
        ("pass", "pass", "pass", "-", "-"),
    ),
    ("chain stopped at step 0", result("chain", [verdict(0, False)]), ("fail", "fail", "fail", "-", "-")),
    (
        "chain failed at step 1",
        result("chain", [verdict(0, True), verdict(1, False)]),
        ("fail", "pass", "fail", "-", "-"),
    ),
    (
        "chain with fewer verdicts than steps",
        result("chain", [verdict(0, True)]),
        ("fail", "pass", "fail", "-", "-"),
    ),
    (
        "ask-first chain passes",
        result("ask", [verdict(0, True), verdict(1, True)]),
        ("pass", "pass", "pass", "-", "pass"),
    ),
    (
        # Stopped before reaching its first call step: right tool fails even though it never
        # saw that step.
        "ask-first chain stopped at the no-call step",
        result("ask", [verdict(0, False, names_match=True)]),
        ("fail", "fail", "fail", "-", "fail"),
    ),
    (
        "ask-first chain, wrong tool at step 1",
        result("ask", [verdict(0, True), verdict(1, False)]),
        ("fail", "fail", "fail", "-", "pass"),
    ),
]


def _outcome(r: Rate) -> str:
    assert r.total in (0, 1)
    if r.total == 0:
        return "-"
    return "pass" if r.passed == 1 else "fail"


@pytest.mark.parametrize(("name", "case", "expected"), CASE_ROWS, ids=[row[0] for row in CASE_ROWS])
def test_case_rules(name: str, case: CaseResult, expected: tuple[str, ...]) -> None:
    metrics = compute_metrics(SUITE, [case])
    got = tuple(_outcome(getattr(metrics, metric)) for metric in METRICS)
    assert dict(zip(METRICS, got, strict=True)) == dict(zip(METRICS, expected, strict=True))


def test_dash_when_nothing_applies() -> None:
    metrics = compute_metrics(SUITE, [result("sel", [verdict(0, True)], api_calls=[api(250.0)])])
    assert metrics == Metrics(
        overall=Rate(rate=100.0, passed=1, total=1, ci95=(20.6549, 100.0)),
        right_tool=Rate(rate=100.0, passed=1, total=1, ci95=(20.6549, 100.0)),
        valid_arguments=DASH,
        made_up_tool=DASH,
        chains=DASH,
        parallel=DASH,
        no_call_needed=DASH,
        latency_p50_ms=250.0,
        cost_per_100_cases_usd=0.1,
        latency_p50_judged_ms=250.0,
        unpriced_calls=[],
    )


def test_no_cases_at_all_is_all_dashes() -> None:
    assert compute_metrics(SUITE, []) == Metrics(
        overall=DASH,
        right_tool=DASH,
        valid_arguments=DASH,
        made_up_tool=DASH,
        chains=DASH,
        parallel=DASH,
        no_call_needed=DASH,
        latency_p50_ms=None,
        cost_per_100_cases_usd=None,
    )


# --- call-based rules ----------------------------------------------------------------------------

CALL_ROWS: list[tuple[str, CallRecord, bool, str]] = [
    # name, call, made up, valid arguments ("valid", "invalid" or "-" when not counted)
    ("offered, valid", OK, False, "valid"),
    (
        "offered, schema error",
        CallRecord(name="get_weather", arguments='{"x": 1}', offered=True, schema_valid=False),
        False,
        "invalid",
    ),
    (
        "offered, arguments not JSON",
        CallRecord(name="read_file", arguments="{", offered=True, schema_valid=False),
        False,
        "invalid",
    ),
    (
        "offered, validity unknown",
        CallRecord(name="read_file", arguments="{}", offered=True, schema_valid=None),
        False,
        "invalid",
    ),
    (
        "not offered",
        CallRecord(name="delete_repo", arguments="{}", offered=False, schema_valid=None),
        True,
        "-",
    ),
    ("no name", CallRecord(name=None, arguments="{}", offered=False, schema_valid=None), True, "-"),
    (
        # A nameless call is made up whatever the record's `offered` says.
        "no name, marked offered",
        CallRecord(name=None, arguments="{}", offered=True, schema_valid=True),
        True,
        "-",
    ),
]


@pytest.mark.parametrize(("name", "call", "made_up", "valid"), CALL_ROWS, ids=[row[0] for row in CALL_ROWS])
def test_call_rules(name: str, call: CallRecord, made_up: bool, valid: str) -> None:
    metrics = compute_metrics(SUITE, [result("sel", [verdict(0, False, calls=[call])])])
    assert (metrics.made_up_tool.passed, metrics.made_up_tool.total) == (int(made_up), 1)
    assert _outcome(metrics.valid_arguments) == {"valid": "pass", "invalid": "fail", "-": "-"}[valid]


def test_calls_are_counted_over_every_step_of_scored_cases() -> None:
    made_up = CallRecord(name="delete_repo", arguments="{}", offered=False, schema_valid=None)
    invalid = CallRecord(name="send_email", arguments="[]", offered=True, schema_valid=False)
    cases = [
        result("chain", [verdict(0, True, calls=[OK]), verdict(1, False, calls=[invalid, made_up])]),
        result("par", [verdict(0, True, calls=[OK, OK])]),
        # An errored case's calls are not counted.
        result("sel", [verdict(0, False, calls=[made_up, invalid])], status="errored"),
    ]
    metrics = compute_metrics(SUITE, cases)
    assert metrics.valid_arguments == rate(3, 4)
    assert metrics.made_up_tool == rate(1, 5)


# --- which cases count ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["errored", "stale", "unrecorded"])
def test_unscored_cases_are_ignored_by_every_rate(status: CaseStatus) -> None:
    bad = CallRecord(name=None, arguments=None, offered=False, schema_valid=None)
    scored = [result("sel", [verdict(0, True, calls=[OK])], api_calls=[api(100.0)])]
    # Unscored cases carrying failing verdicts and judged calls that would move every figure but cost.
    unscored = [
        result(case.id, [verdict(0, False, calls=[bad])], status=status, api_calls=[api(900.0, cost_usd=0.0)])
        for case in SUITE.cases
    ]
    with_unscored, alone = compute_metrics(SUITE, scored + unscored), compute_metrics(SUITE, scored)
    if status == "errored":
        # The page's latency is every API call of the run: an errored case's calls are in it.
        assert with_unscored.latency_p50_ms == 900.0
        with_unscored = msgspec.structs.replace(with_unscored, latency_p50_ms=alone.latency_p50_ms)
    assert with_unscored == alone


def test_all_errored_model_has_no_scores() -> None:
    cases = [
        result("sel", status="errored", api_calls=[api(status=None, cost_usd=None, answered_by=None)]),
        result("nocall", status="errored", api_calls=[api(status=400, cost_usd=None, answered_by=None)]),
    ]
    assert model_result(SUITE, "acme/m1", cases, temperature_ignored=False) == ModelResult(
        model="acme/m1",
        suite=SuiteRef(name="mini", version="1.0.0"),
        temperature_ignored=False,
        counts=Counts(cases=2, scored=0, errored=2, stale=0, unrecorded=0),
        has_scores=False,
        metrics=compute_metrics(SUITE, []),
        groups={"selection": compute_metrics(SUITE, []), "no_call": compute_metrics(SUITE, [])},
        answered_by={},
        cases=cases,
    )


def test_scored_case_missing_from_the_suite_is_a_caller_error() -> None:
    with pytest.raises(ValueError) as info:
        compute_metrics(SUITE, [result("gone", [verdict(0, True)])])
    assert str(info.value) == "scored case 'gone' is not in suite mini 1.0.0"


# --- latency ---------------------------------------------------------------------------------------


def no_answer(
    latency_ms: float | None, *, step: int = 0, attempt: int = 0, error: str = "Timeout: ..."
) -> ApiCall:
    """A transport failure as the runner records it: no status, the error, the time it took."""
    return ApiCall(step=step, attempt=attempt, status=None, error=error, latency_ms=latency_ms)


# (name, cases, the page's p50 (every timed call), the judged p50 (judged attempts of scored cases))
LATENCY_ROWS: list[tuple[str, list[CaseResult], float | None, float | None]] = [
    ("no scored case", [], None, None),
    ("scored case without API calls", [result("sel", [verdict(0, True)])], None, None),
    ("one judged call", [result("sel", api_calls=[api(123.44)])], 123.4, 123.4),
    (
        # The probe: 10 ms (429, retried), 1,000 ms, 5 ms (500, errored case), 900 ms.
        "the probe: retries and errored cases are API calls of the run",
        [
            result(
                "sel",
                api_calls=[api(10.0, status=429, cost_usd=None, judged=False), api(1000.0, attempt=1)],
            ),
            result("par", status="errored", api_calls=[api(5.0, status=500, cost_usd=None)]),
            result("nocall", api_calls=[api(900.0)]),
        ],
        455.0,
        950.0,
    ),
    (
        "a time-out and an instant refused connection were timed: both count",
        [
            result(
                "sel",
                api_calls=[
                    no_answer(120000.0, attempt=0),
                    no_answer(0.4, attempt=1, error="ConnectError: [Errno 111] Connection refused"),
                    api(300.0, attempt=2),
                ],
            )
        ],
        300.0,
        300.0,
    ),
    (
        "a reply lobrec refused itself (too large) was not timed: no latency, left out",
        [
            result(
                "sel",
                api_calls=[api(300.0)],
            ),
            result("par", status="errored", api_calls=[no_answer(None, error="the reply is over the cap")]),
        ],
        300.0,
        300.0,
    ),
    (
        # Issue 22: "took no time" is a measure; only "not timed" is left out.
        "a failure timed at 0.0 ms counts: then a 200 at 1000 ms gives 500",
        [
            result(
                "sel",
                api_calls=[
                    no_answer(0.0, attempt=0, error="ConnectError: [Errno 111] Connection refused"),
                    api(1000.0, attempt=1),
                ],
            )
        ],
        500.0,
        1000.0,
    ),
    (
        "median of an even count is the mean of the middle two",
        [
            result("chain", api_calls=[api(100.0, step=0), api(200.0, step=1)]),
            result("sel", api_calls=[api(400.0)]),
            result("par", api_calls=[api(1000.0)]),
        ],
        300.0,
        300.0,
    ),
    (
        "stale and unrecorded cases are not calls of this run",
        [
            result("sel", api_calls=[api(100.0)]),
            result("par", status="stale", api_calls=[api(9000.0)]),
            result("nocall", status="unrecorded", api_calls=[api(9000.0)]),
        ],
        100.0,
        100.0,
    ),
    (
        "an all-errored model has no latency (no scores)",
        [result("sel", status="errored", api_calls=[api(100.0)])],
        None,
        None,
    ),
    (
        "rounded to 0.1 ms",
        [result("sel", api_calls=[api(10.04)]), result("par", api_calls=[api(10.1)])],
        10.1,
        10.1,
    ),
]


@pytest.mark.parametrize(
    ("name", "cases", "page", "judged"), LATENCY_ROWS, ids=[row[0] for row in LATENCY_ROWS]
)
def test_latency_p50(name: str, cases: list[CaseResult], page: float | None, judged: float | None) -> None:
    metrics = compute_metrics(SUITE, cases)
    assert (metrics.latency_p50_ms, metrics.latency_p50_judged_ms) == (page, judged)


# --- cost ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cases", "expected"),
    [
        ("no scored case", [result("sel", status="errored", api_calls=[api(cost_usd=0.5)])], None),
        ("one priced call", [result("sel", api_calls=[api(cost_usd=0.002)])], 0.2),
        (
            "divided by scored cases, times 100",
            [
                result("chain", api_calls=[api(cost_usd=0.001, step=0), api(cost_usd=0.002, step=1)]),
                result("sel", api_calls=[api(cost_usd=0.003)]),
                result("par", api_calls=[api(cost_usd=0.0)]),
            ],
            0.2,
        ),
        (
            "errored cases are paid for, but not in the divisor",
            [
                result("sel", api_calls=[api(cost_usd=0.001)]),
                result("par", status="errored", api_calls=[api(cost_usd=0.003)]),
            ],
            0.4,
        ),
        (
            "an unpriced answer hides the figure",
            [result("sel", api_calls=[api(cost_usd=0.001)]), result("par", api_calls=[api(cost_usd=None)])],
            None,
        ),
        (
            "an unpriced answer in an errored case hides it too",
            [
                result("sel", api_calls=[api(cost_usd=0.001)]),
                result("par", status="errored", api_calls=[api(cost_usd=None)]),
            ],
            None,
        ),
        (
            "429, 5xx and transport failures cost nothing",
            [
                result(
                    "sel",
                    api_calls=[
                        api(status=429, cost_usd=None, judged=False, attempt=0),
                        api(status=503, cost_usd=None, judged=False, attempt=1),
                        api(status=None, cost_usd=None, judged=False, attempt=2),
                        api(cost_usd=0.001, attempt=3),
                    ],
                )
            ],
            0.1,
        ),
        (
            "a priced 429 or 5xx answer is summed: the page sums every call",
            [
                result(
                    "sel",
                    api_calls=[
                        api(status=429, cost_usd=0.002, judged=False, attempt=0),
                        api(cost_usd=0.001, attempt=1),
                    ],
                ),
                result("par", status="errored", api_calls=[api(status=500, cost_usd=0.004)]),
            ],
            0.7,
        ),
        (
            "an unpriced 400 (the model's tool_use_failed answer) is free, it does not hide the figure",
            [result("sel", api_calls=[api(status=400, cost_usd=None), api(cost_usd=0.001, step=1)])],
            0.1,
        ),
        (
            "lobrec's no-answer record (599 with an error) is never unpriced; a gateway's own 599 is free",
            [
                result(
                    "sel",
                    api_calls=[
                        ApiCall(step=0, attempt=0, status=599, error="Timeout: ...", latency_ms=5.0),
                        api(status=599, cost_usd=None, judged=False, attempt=1),
                        api(cost_usd=0.001, attempt=2),
                    ],
                )
            ],
            0.1,
        ),
        (
            "stale and unrecorded cases are not in the sum",
            [
                result("sel", api_calls=[api(cost_usd=0.001)]),
                result("par", status="stale", api_calls=[api(cost_usd=None)]),
                result("nocall", status="unrecorded", api_calls=[api(cost_usd=7.0)]),
            ],
            0.1,
        ),
        (
            "rounded to 6 decimals",
            [result(c, api_calls=[api(cost_usd=1e-9)]) for c in ("sel", "par", "nocall")],
            0.0,
        ),
        (
            "float noise is rounded away (0.1 + 0.2 + 0.3)",
            [
                result("sel", api_calls=[api(cost_usd=0.1)]),
                result("par", api_calls=[api(cost_usd=0.2)]),
                result("nocall", api_calls=[api(cost_usd=0.3)]),
            ],
            20.0,
        ),
    ],
)
def test_cost_per_100_cases(name: str, cases: list[CaseResult], expected: float | None) -> None:
    assert compute_metrics(SUITE, cases).cost_per_100_cases_usd == expected


def test_unpriced_calls_name_each_unpriced_200() -> None:
    cases = [
        result(
            "sel", api_calls=[api(status=429, cost_usd=None, judged=False), api(cost_usd=None, attempt=1)]
        ),
        result("par", status="errored", api_calls=[api(cost_usd=0.001), api(cost_usd=None, step=1)]),
        result("nocall", api_calls=[api(cost_usd=0.001), no_answer(3.0, attempt=1)]),
        result("chain", status="stale", api_calls=[api(cost_usd=None)]),
    ]
    metrics = compute_metrics(SUITE, cases)
    assert metrics.unpriced_calls == ["sel step 1 attempt 2", "par step 2 attempt 1"]
    assert metrics.cost_per_100_cases_usd is None
    priced = compute_metrics(SUITE, [result("sel", api_calls=[api(cost_usd=0.001)])])
    assert (priced.unpriced_calls, priced.cost_per_100_cases_usd) == ([], 0.1)


def test_old_results_files_decode_without_the_new_metrics_fields() -> None:
    metrics = compute_metrics(SUITE, [result("sel", [verdict(0, True)], api_calls=[api(250.0)])])
    data = msgspec.to_builtins(metrics)
    del data["latency_p50_judged_ms"], data["unpriced_calls"]
    old = msgspec.convert(data, Metrics)
    assert (old.latency_p50_judged_ms, old.unpriced_calls) == (None, [])
    assert list(msgspec.to_builtins(metrics))[-2:] == ["latency_p50_judged_ms", "unpriced_calls"]


# --- the model's entry ---------------------------------------------------------------------------


def test_model_result_orders_cases_groups_and_answerers() -> None:
    ask = result(
        "ask",
        [verdict(0, True), verdict(1, True, calls=[OK])],
        api_calls=[api(10.0, answered_by="acme/a", step=0), api(20.0, answered_by="acme/a", step=1)],
    )
    sel = result(
        "sel",
        [verdict(0, True, calls=[OK])],
        api_calls=[
            api(999.0, status=429, cost_usd=None, judged=False, answered_by="retried/r"),
            api(30.0, answered_by="zeta/z", attempt=1),
        ],
    )
    nocall = result(
        "nocall", status="errored", api_calls=[api(40.0, status=400, cost_usd=None, answered_by="err/e")]
    )
    stale = result("par", status="stale")
    given = [ask, stale, nocall, sel]
    # `sel` comes first in suite order, so "zeta/z" is met before "acme/a": the names must be sorted.
    model = model_result(SUITE, "auto", given, temperature_ignored=True)
    assert model == ModelResult(
        model="auto",
        suite=SuiteRef(name="mini", version="1.0.0"),
        temperature_ignored=True,
        counts=Counts(cases=4, scored=2, errored=1, stale=1, unrecorded=0),
        has_scores=True,
        metrics=compute_metrics(SUITE, given),
        groups={
            "selection": compute_metrics(SUITE, [sel]),
            "no_call": compute_metrics(SUITE, [nocall]),
            "parallel": compute_metrics(SUITE, [stale]),
            "chains": compute_metrics(SUITE, [ask]),
        },
        answered_by={"acme/a": 2, "zeta/z": 1},
        cases=[sel, nocall, stale, ask],
    )
    assert list(model.groups) == ["selection", "no_call", "parallel", "chains"]
    assert list(model.answered_by) == ["acme/a", "zeta/z"]
    assert model.metrics.overall == rate(2, 2)
    # every timed call (10, 20, 999 retried, 30, 40 errored) by the page; the judged ones of scored cases
    assert model.metrics.latency_p50_ms == 30.0
    assert model.metrics.latency_p50_judged_ms == 20.0
    assert model.metrics.cost_per_100_cases_usd == 0.15
    assert model.groups["parallel"].overall == DASH


def test_model_result_puts_cases_unknown_to_the_suite_last_by_id() -> None:
    gone_b = CaseResult(id="gone-b", group="selection", status="stale")
    gone_a = CaseResult(id="gone-a", group="arguments", status="unrecorded")
    sel = result("sel", [verdict(0, True)])
    model = model_result(SUITE, "m", [gone_b, sel, gone_a], temperature_ignored=False)
    assert [case.id for case in model.cases] == ["sel", "gone-a", "gone-b"]
    assert list(model.groups) == ["selection", "arguments"]
    assert model.counts == Counts(cases=3, scored=1, errored=0, stale=1, unrecorded=1)


def test_model_result_survives_the_results_file() -> None:
    model = model_result(
        SUITE,
        "m",
        [result("par", [verdict(0, True, calls=[OK, OK])], api_calls=[api(12.5, cost_usd=0.00125)])],
        temperature_ignored=False,
    )
    run = RunResult(suite=SuiteRef(name="mini", version="1.0.0"), models=[model])
    assert decode_results(encode_results(run)) == run

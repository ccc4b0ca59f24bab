"""Properties of the metrics over random suites and random judged cases."""

from __future__ import annotations

from random import Random

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics import compute_metrics, model_result, rate, wilson_interval
from lobrec.core.results import ApiCall, CallRecord, CaseResult, Metrics, Rate, StepVerdict
from lobrec.core.suite import (
    GROUPS,
    CallStep,
    Case,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Suite,
    Tool,
)

# --- strategies (these will move to tests/strategies.py) -----------------------------------------

TOOL_NAMES = ("get_weather", "send_email", "read_file")
TOOLS = [Tool(type="function", function=FunctionSpec(name=name, parameters={})) for name in TOOL_NAMES]

call_steps = st.builds(
    CallStep,
    calls=st.lists(
        st.builds(ExpectedCall, name=st.sampled_from(TOOL_NAMES), answer=st.just({})), min_size=1, max_size=3
    ),
)
steps = st.one_of(call_steps, st.builds(NoCallStep))


@st.composite
def suites(draw: st.DrawFn) -> Suite:
    """A suite of 1 to 8 cases with random groups and 1 to 4 steps each."""
    count = draw(st.integers(min_value=1, max_value=8))
    cases = [
        Case(
            id=f"case-{index}",
            group=draw(st.sampled_from(GROUPS)),
            tools=list(TOOL_NAMES),
            messages=[Message(role="user", content="hi")],
            steps=draw(st.lists(steps, min_size=1, max_size=4)),
        )
        for index in range(count)
    ]
    return Suite(name="prop", version="1.0.0", system_prompt="", tools=TOOLS, cases=cases)


call_records = st.one_of(
    st.builds(
        CallRecord,
        name=st.sampled_from(TOOL_NAMES),
        arguments=st.just("{}"),
        offered=st.just(True),
        schema_valid=st.sampled_from([True, False, None]),
    ),
    st.builds(
        CallRecord,
        name=st.sampled_from([None, "made_up"]),
        arguments=st.none(),
        offered=st.just(False),
        schema_valid=st.none(),
    ),
)

prices = st.floats(min_value=0, max_value=1, allow_nan=False)
api_calls = st.builds(
    ApiCall,
    step=st.integers(min_value=0, max_value=3),
    attempt=st.integers(min_value=0, max_value=3),
    status=st.sampled_from([200, 200, 200, 400, 429, 503, None]),
    latency_ms=st.floats(min_value=0, max_value=200_000, allow_nan=False),
    # Mostly priced (three branches to one), so that the cost figure is often shown.
    cost_usd=st.one_of(prices, prices, prices, st.none()),
    judged=st.booleans(),
    answered_by=st.sampled_from([None, "acme/a", "acme/b", "zeta/z"]),
)


@st.composite
def case_result(draw: st.DrawFn, case: Case) -> CaseResult:
    """A result for `case`: any status, a prefix of verdicts (a chain may stop), any calls."""
    count = draw(st.integers(min_value=0, max_value=len(case.steps)))
    verdicts = [
        StepVerdict(
            index=index,
            expects="call" if isinstance(case.steps[index], CallStep) else "no_call",
            passed=draw(st.booleans()),
            names_match=draw(st.booleans()),
            expected_names=[],
            calls=draw(st.lists(call_records, max_size=3)),
        )
        for index in range(count)
    ]
    return CaseResult(
        id=case.id,
        group=case.group,
        status=draw(st.sampled_from(["scored", "scored", "scored", "errored", "stale", "unrecorded"])),
        steps=verdicts,
        api_calls=draw(st.lists(api_calls, max_size=4)),
    )


@st.composite
def suites_and_results(draw: st.DrawFn) -> tuple[Suite, list[CaseResult]]:
    """A suite and one model's results for some of its cases, in any order."""
    suite = draw(suites())
    chosen = draw(st.lists(st.sampled_from(suite.cases), unique_by=lambda case: case.id))
    return suite, [draw(case_result(case)) for case in chosen]


# --- properties ----------------------------------------------------------------------------------

RATE_FIELDS = (
    "overall",
    "right_tool",
    "valid_arguments",
    "made_up_tool",
    "chains",
    "parallel",
    "no_call_needed",
)


def assert_well_formed(r: Rate) -> None:
    assert 0 <= r.passed <= r.total
    if r.total == 0:
        assert (r.rate, r.ci95) == (None, None)
        return
    assert r.rate is not None and r.ci95 is not None
    low, high = r.ci95
    assert 0.0 <= low <= r.rate <= high <= 100.0


@given(st.integers(min_value=0, max_value=10**6).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_rate_is_a_percentage_inside_its_interval(counts: tuple[int, int]) -> None:
    passed, total = counts
    assert_well_formed(rate(passed, total))
    interval = wilson_interval(passed, total)
    if total:
        assert interval is not None
        assert 0.0 <= interval[0] <= 100 * passed / total <= interval[1] <= 100.0
    else:
        assert interval is None


@given(suites_and_results())
def test_every_rate_is_well_formed(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    metrics = compute_metrics(suite, cases)
    for field in RATE_FIELDS:
        assert_well_formed(getattr(metrics, field))
    scored = sum(case.status == "scored" for case in cases)
    assert metrics.overall.total == scored
    if scored == 0:
        assert metrics.cost_per_100_cases_usd is None


@given(suites_and_results(), st.randoms(use_true_random=False))
def test_metrics_do_not_depend_on_case_order(data: tuple[Suite, list[CaseResult]], random: Random) -> None:
    suite, cases = data
    shuffled = list(cases)
    random.shuffle(shuffled)
    assert compute_metrics(suite, shuffled) == compute_metrics(suite, cases)
    assert model_result(suite, "m", shuffled, False) == model_result(suite, "m", cases, False)


def _summed(groups: list[Metrics], field: str) -> tuple[int, int]:
    rates = [getattr(metrics, field) for metrics in groups]
    return sum(r.passed for r in rates), sum(r.total for r in rates)


@given(suites_and_results())
def test_groups_partition_the_counted_cases_and_calls(data: tuple[Suite, list[CaseResult]]) -> None:
    suite, cases = data
    model = model_result(suite, "m", cases, False)
    for field in RATE_FIELDS:
        whole = getattr(model.metrics, field)
        assert _summed(list(model.groups.values()), field) == (whole.passed, whole.total)
    assert list(model.groups) == [group for group in GROUPS if any(case.group == group for case in cases)]
    assert model.has_scores == (model.counts.scored > 0)
    if not model.has_scores:
        assert all(getattr(model.metrics, field).rate is None for field in RATE_FIELDS)

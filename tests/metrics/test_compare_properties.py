"""Properties of `compare` and the exact McNemar test over random pairs of runs."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from lobrec.core.metrics.compare import SIGNIFICANCE, compare, mcnemar_exact
from lobrec.core.metrics.results import (
    CaseResult,
    Counts,
    Metrics,
    ModelResult,
    Rate,
    StepVerdict,
    SuiteRef,
)

# What one model did on one case; "absent" means the case is not in that model's results.
OUTCOMES = ("pass", "fail", "errored", "stale", "unrecorded", "absent")

_NO_RATE = Rate(rate=None, passed=0, total=0, ci95=None)
_METRICS = Metrics(
    overall=_NO_RATE,
    right_tool=_NO_RATE,
    valid_arguments=_NO_RATE,
    made_up_tool=_NO_RATE,
    chains=_NO_RATE,
    parallel=_NO_RATE,
    no_call_needed=_NO_RATE,
    latency_p50_ms=None,
    cost_per_100_cases_usd=None,
)


def _case(case_id: str, outcome: str) -> CaseResult:
    if outcome in ("pass", "fail"):
        verdict = StepVerdict(
            index=0,
            expects="no_call",
            passed=outcome == "pass",
            names_match=True,
            expected_names=[],
            calls=[],
        )
        return CaseResult(id=case_id, group="no_call", status="scored", steps=[verdict])
    return CaseResult(id=case_id, group="no_call", status=outcome, reason="r")  # type: ignore[arg-type]


def _model(name: str, outcomes: list[str]) -> ModelResult:
    cases = [_case(f"c{i}", outcome) for i, outcome in enumerate(outcomes) if outcome != "absent"]
    return ModelResult(
        model=name,
        suite=SuiteRef(name="s", version="1.0.0"),
        temperature_ignored=False,
        counts=Counts(cases=len(cases), scored=0, errored=0, stale=0, unrecorded=0),
        has_scores=False,
        metrics=_METRICS,
        groups={},
        answered_by={},
        cases=cases,
    )


pairs = st.lists(st.tuples(st.sampled_from(OUTCOMES), st.sampled_from(OUTCOMES)), max_size=40)


def _brute_force(b: int, c: int) -> Fraction:
    """P(a split at least as lopsided as (b, c)) under fair coins, counting every sequence."""
    n = b + c
    low = min(b, c)
    extreme = sum(1 for flips in product((0, 1), repeat=n) if min(sum(flips), n - sum(flips)) <= low)
    return Fraction(extreme, 2**n)


@given(st.integers(0, 200), st.integers(0, 200))
def test_p_value_is_a_probability_and_symmetric(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert 0.0 <= p <= 1.0
    assert p == mcnemar_exact(c, b)


@given(st.integers(0, 7), st.integers(0, 7))
def test_p_value_equals_brute_force_for_small_n(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == float(_brute_force(b, c))


@given(st.integers(0, 60), st.integers(0, 60))
def test_a_more_lopsided_split_is_never_more_likely(b: int, c: int) -> None:
    """Moving one discordant pair from the smaller side to the larger never raises p."""
    if b <= c and b > 0:
        assert mcnemar_exact(b - 1, c + 1) <= mcnemar_exact(b, c)


@given(pairs)
def test_counts_equal_the_flips(outcomes: list[tuple[str, str]]) -> None:
    a = _model("a", [first for first, _ in outcomes])
    b = _model("b", [second for _, second in outcomes])
    result = compare(a, b)
    ids = [f"c{i}" for i in range(len(outcomes))]
    assert result.pass_to_fail == [
        i for i, (x, y) in zip(ids, outcomes, strict=True) if (x, y) == ("pass", "fail")
    ]
    assert result.fail_to_pass == [
        i for i, (x, y) in zip(ids, outcomes, strict=True) if (x, y) == ("fail", "pass")
    ]
    assert (result.b, result.c) == (len(result.pass_to_fail), len(result.fail_to_pass))
    scored = {"pass", "fail"}
    both = [(x, y) for x, y in outcomes if x in scored and y in scored]
    assert result.paired == len(both)
    assert result.both_passed == both.count(("pass", "pass"))
    assert result.both_failed == both.count(("fail", "fail"))
    present = sum(1 for x, y in outcomes if (x, y) != ("absent", "absent"))
    assert result.paired + len(result.unpaired) == present
    assert result.p_value == mcnemar_exact(result.b, result.c)


@given(pairs)
def test_swapping_a_and_b_mirrors_the_comparison(outcomes: list[tuple[str, str]]) -> None:
    a = _model("a", [first for first, _ in outcomes])
    b = _model("b", [second for _, second in outcomes])
    forward, backward = compare(a, b), compare(b, a)
    assert forward.p_value == backward.p_value
    assert (forward.b, forward.c) == (backward.c, backward.b)
    assert sorted(forward.pass_to_fail) == sorted(backward.fail_to_pass)
    assert forward.significant == backward.significant
    if forward.significant:
        assert {forward.verdict, backward.verdict} == {"b_better", "b_worse"}


@given(pairs)
def test_significance_follows_the_p_value(outcomes: list[tuple[str, str]]) -> None:
    a = _model("a", [first for first, _ in outcomes])
    b = _model("b", [second for _, second in outcomes])
    result = compare(a, b)
    assert result.significant == (result.paired > 0 and result.p_value < SIGNIFICANCE)
    if result.significant:
        better = result.c > result.b
        assert result.verdict == ("b_better" if better else "b_worse")
    elif result.paired:
        assert result.verdict == "no_difference"
    else:
        assert result.verdict == "nothing_paired"

"""`lobrec.core.metrics.compare`: the exact McNemar test, its reading, and pairing two models' cases."""

from __future__ import annotations

import math
from fractions import Fraction

import msgspec
import pytest

from lobrec.core.metrics.compare import (
    Comparison,
    KindChange,
    MetricDelta,
    Unpaired,
    compare,
    format_p,
    mcnemar_exact,
    verdict,
)
from lobrec.core.metrics.results import SuiteRef
from lobrec.reports.diffview import interpretation
from tests.support.sample_results import model_result, sample_run, sample_suite, wrong_tool

# (b, c, exact p) - worked by hand from p = min(1, 2 * sum_{k<=min(b,c)} C(b+c, k) / 2^(b+c)).
MCNEMAR = [
    (0, 0, 1.0),
    (0, 1, 1.0),
    (1, 0, 1.0),
    (3, 3, 1.0),
    (0, 5, 0.0625),  # 2 * 1/32
    (0, 6, 0.03125),  # 2 * 1/64
    (6, 0, 0.03125),
    (1, 9, 0.021484375),  # 2 * (1 + 10) / 1024
    (2, 8, 0.109375),  # 2 * (1 + 10 + 45) / 1024
    (4, 5, 1.0),  # two tails overlap: capped at 1
]


@pytest.mark.parametrize(("b", "c", "p"), MCNEMAR)
def test_mcnemar_exact_known_values(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == p


def test_mcnemar_exact_large_n_is_exact_and_finite() -> None:
    # 1100 discordant pairs: 2**1100 overflows a float, the integers do not.
    b, c = 500, 600
    n = b + c
    exact = Fraction(2 * sum(math.comb(n, k) for k in range(b + 1)), 2**n)
    assert mcnemar_exact(b, c) == float(exact)
    assert 0.0 < mcnemar_exact(b, c) < 0.01


def test_mcnemar_exact_underflows_to_zero_rather_than_raising() -> None:
    assert mcnemar_exact(0, 5000) == 0.0


def test_mcnemar_exact_rejects_negative_counts() -> None:
    with pytest.raises(ValueError) as info:
        mcnemar_exact(-1, 2)
    assert str(info.value) == "discordant counts must be non-negative, got b=-1, c=2"


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (1.0, "p=1"),
        (0.5, "p=0.5"),
        (0.031249, "p=0.0312"),
        (0.0495, "p=0.0495"),
        (0.001, "p=0.001"),
        (0.000999, "p<0.001"),
        (0.0, "p<0.001"),
    ],
)
def test_format_p(p: float, text: str) -> None:
    assert format_p(p) == text


@pytest.mark.parametrize(
    ("paired", "b", "c", "p", "found", "text"),
    [
        (0, 0, 0, 1.0, "nothing_paired", "no case was scored in both runs: nothing to compare"),
        (10, 0, 0, 1.0, "no_difference", "no significant difference at 5% (p=1)"),
        (10, 1, 5, 0.21875, "no_difference", "no significant difference at 5% (p=0.219)"),
        (20, 0, 6, 0.03125, "b_better", "B is better, p=0.0312"),
        (20, 6, 0, 0.03125, "b_worse", "B is worse, p=0.0312"),
        (80, 0, 30, mcnemar_exact(0, 30), "b_better", "B is better, p<0.001"),
        (20, 1, 9, 0.05, "no_difference", "no significant difference at 5% (p=0.05)"),  # 5% is not below 5%
    ],
)
def test_the_verdict_and_its_words(paired: int, b: int, c: int, p: float, found: str, text: str) -> None:
    assert verdict(paired, b, c, p) == found
    model = sample_run().models[0]
    cmp = msgspec.structs.replace(compare(model, model), verdict=verdict(paired, b, c, p), p_value=p)
    assert interpretation(cmp) == text


def test_compare_sample_models_whole_result() -> None:
    run = sample_run()
    o4, auto = run.models[0], run.models[1]
    ref = SuiteRef(name="lobstack-tools", version="1.0.0")

    def rate(metric: str, label: str, a: float | None, b: float | None, lower: bool = False) -> MetricDelta:
        return MetricDelta(
            metric=metric,
            label=label,
            unit="pp",
            lower_is_better=lower,
            a=a,
            b=b,
            delta=None if a is None or b is None else b - a,
        )

    expected = Comparison(
        model_a="openai/o4-mini",
        model_b="auto",
        suite_a=ref,
        suite_b=ref,
        paired=9,
        both_passed=3,
        both_failed=0,
        b=3,
        c=3,
        pass_to_fail=["sel-readme", "nocall-ask", "par-two-cities"],
        fail_to_pass=["arg-line-range", "near-slack", "chain-status-diff"],
        unpaired=[
            Unpaired(id="sel-weather", a="stale", b="scored"),
            Unpaired(id="arg-issue-labels", a="scored", b="unrecorded"),
            Unpaired(id="par-three-files", a="errored", b="scored"),
        ],
        deltas=[
            rate("overall", "Overall", 70.0, round(800 / 11, 4)),
            rate("right_tool", "Right tool", 87.5, round(700 / 9, 4)),
            rate("valid_arguments", "Valid args", round(1000 / 11, 4), 100.0),
            rate("made_up_tool", "Made-up tool", 0.0, round(100 / 14, 4), lower=True),
            rate("chains", "Chains", 50.0, 100.0),
            rate("parallel", "Parallel", 100.0, 50.0),
            rate("no_call_needed", "No call needed", 100.0, 50.0),
            MetricDelta(
                metric="latency_p50_ms",
                label="p50 latency",
                unit="ms",
                lower_is_better=True,
                a=1010.5,  # every timed call, the errored case's retried 503s included
                b=731.0,
                delta=731.0 - 1010.5,
            ),
            MetricDelta(
                metric="cost_per_100_cases_usd",
                label="Cost/100 cases",
                unit="usd",
                lower_is_better=True,
                a=o4.metrics.cost_per_100_cases_usd,
                b=None,
                delta=None,
            ),
        ],
        p_value=1.0,
        significant=False,
        verdict="no_difference",
        # o4: near-slack calls the wrong tool, arg-line-range and chain-status-diff fail a check;
        # auto: sel-readme makes a tool up, nocall-ask calls one, par-two-cities makes 1 call of 2
        kinds=[
            KindChange(kind="call_not_needed", a=0, b=1, change=1),
            KindChange(kind="made_up_tool", a=0, b=1, change=1),
            KindChange(kind="missing_parallel_call", a=0, b=1, change=1),
            KindChange(kind="wrong_tool", a=1, b=0, change=-1),
            KindChange(kind="argument_check", a=2, b=0, change=-2),
        ],
    )
    assert compare(o4, auto) == expected
    assert o4.metrics.cost_per_100_cases_usd == pytest.approx(0.132)


def test_compare_against_a_model_without_scores_pairs_nothing() -> None:
    run = sample_run()
    result = compare(run.models[0], run.models[2])
    assert (result.paired, result.b, result.c, result.p_value, result.significant) == (0, 0, 0, 1.0, False)
    assert interpretation(result) == "no case was scored in both runs: nothing to compare"
    assert [item.delta for item in result.deltas[:7]] == [None] * 7
    assert [(item.id, item.a, item.b) for item in result.unpaired][:2] == [
        ("sel-readme", "scored", "errored"),
        ("sel-weather", "stale", "errored"),
    ]
    assert len(result.unpaired) == 12


def test_compare_significant_improvement_and_missing_cases() -> None:
    suite = sample_suite()
    ids = [case.id for case in suite.cases]
    # A fails the first eight cases; B passes every case but the first, which it lacks: c = 7, b = 0.
    a = model_result(suite, "model-a", {case_id: wrong_tool for case_id in ids[:8]})
    b = model_result(suite, "model-b", {})
    b_short = msgspec.structs.replace(b, cases=b.cases[1:])
    result = compare(a, b_short)
    assert (result.b, result.c, result.paired) == (0, 7, 11)
    assert result.fail_to_pass == ids[1:8]
    assert result.unpaired == [Unpaired(id=ids[0], a="scored", b=None)]
    assert result.p_value == 2 / 2**7
    assert interpretation(result) == "B is better, p=0.0156"
    assert result.significant is True
    reverse = compare(b_short, a)
    assert interpretation(reverse) == "B is worse, p=0.0156"
    assert reverse.unpaired == [Unpaired(id=ids[0], a=None, b="scored")]


def test_compare_flags_different_suites() -> None:
    run = sample_run()
    a = run.models[0]
    other = msgspec.structs.replace(a, suite=SuiteRef(name="lobstack-tools", version="2.0.0"))
    assert compare(a, a).same_suite is True
    assert compare(a, other).same_suite is False

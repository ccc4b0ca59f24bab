"""The gates (`lobrec.core.metrics.gates`): each fails exactly when its rule says, for any results."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobrec.core.metrics.gates import failed_gates, parse_allowance
from lobrec.core.metrics.rates import model_result
from lobrec.core.metrics.results import CaseResult, RunResult, SuiteRef
from lobrec.core.suite.format import Suite
from tests.support.strategies import allowance_texts, suites_and_results


def _shown(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1f}%"


@given(allowance_texts, st.integers(0, 500), st.integers(0, 500))
def test_an_allowance_allows_what_its_text_says(text: str, errored: int, cases: int) -> None:
    allowance = parse_allowance(text)
    if text.endswith("%"):
        assert allowance.allows(errored, cases) == (Fraction(errored * 100) <= Fraction(text[:-1]) * cases)
    else:
        assert allowance.allows(errored, cases) == (errored <= int(text))
    assert parse_allowance(str(allowance)) == allowance


@settings(suppress_health_check=[HealthCheck.too_slow])  # suites are big to draw
@given(suites_and_results(), allowance_texts, st.none() | st.floats(0, 100))
def test_each_gate_fails_exactly_when_its_rule_does(
    pair: tuple[Suite, list[CaseResult]], text: str, fail_under: float | None
) -> None:
    suite, cases = pair
    model = model_result(suite, "m", cases, False)
    run = RunResult(suite=SuiteRef(name=suite.name, version=suite.version), models=[model])
    allowance = parse_allowance(text)
    gates = {failure.gate: failure.line for failure in failed_gates(
        run, fail_under=fail_under, allowance=allowance, shown=_shown
    )}  # fmt: skip
    errored, scored = model.counts.errored, model.counts.scored
    assert ("no_scores" in gates) == (scored == 0)  # nothing judged: no allowance passes it
    assert ("errored" in gates) == (scored > 0 and not allowance.allows(errored, model.counts.cases))
    rate = model.metrics.overall.rate
    below = fail_under is not None and scored > 0 and rate is not None and rate < fail_under
    assert ("fail_under" in gates) == below
    if below:  # rounded as the reports show it, never more decimals
        assert gates["fail_under"].endswith(f"m ({rate:.1f}%)")

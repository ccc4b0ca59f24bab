"""The routing view of `auto`, worked out by hand on a four-case fixture."""

from __future__ import annotations

from lobrec.core.metrics.rates import rate
from lobrec.core.metrics.results import RoutedCase, RouteFigure
from lobrec.core.metrics.routing import routing
from tests.support.tier_models import no_call_suite, routed_run

SUITE = no_call_suite(4)
# fake/alpha fails c00, $0.01 and 100 ms a case; fake/beta fails c01 and c02, $0.002 and 300 ms.
ALPHA = routed_run(SUITE, "fake/alpha", [0], cost=0.01, latency=100)
BETA = routed_run(SUITE, "fake/beta", [1, 2], cost=0.002, latency=300)
# Nex sends c00 and c02 to alpha, c01 and c03 to beta, and does as they do: fails c00 and c01.
CHOICES = ["fake/alpha", "fake/beta", "fake/alpha", "fake/beta"]
AUTO = routed_run(SUITE, "auto", [0, 1], cost=0.005, latency=200, answered_by=CHOICES)


def test_the_routing_figures_by_hand() -> None:
    found = routing(SUITE, AUTO, [AUTO, ALPHA, BETA])
    assert found is not None
    assert (found.candidates, found.recorded, found.unrecorded) == (["fake/alpha", "fake/beta"],) * 2 + ([],)
    # The best candidate is alpha (3/4 against 2/4).
    assert found.best == "fake/alpha"
    assert found.cases == [
        RoutedCase(
            id="c00",
            chosen=["fake/alpha"],
            outcome="failed",
            chosen_outcomes={"fake/alpha": "failed"},
            best="fake/alpha",
            best_outcome="failed",
        ),
        RoutedCase(
            id="c01",
            chosen=["fake/beta"],
            outcome="failed",
            chosen_outcomes={"fake/beta": "failed"},
            best="fake/alpha",
            best_outcome="passed",
        ),
        RoutedCase(
            id="c02",
            chosen=["fake/alpha"],
            outcome="passed",
            chosen_outcomes={"fake/alpha": "passed"},
            best="fake/alpha",
            best_outcome="passed",
        ),
        RoutedCase(
            id="c03",
            chosen=["fake/beta"],
            outcome="passed",
            chosen_outcomes={"fake/beta": "passed"},
            best="fake/alpha",
            best_outcome="passed",
        ),
    ]
    (run,) = found.runs
    assert (run.run, run.cases) == (1, 4)
    # Nex: 2/4, 4 x $0.005 over 4 cases = $0.50 per 100, every call 200 ms.
    assert run.nex == RouteFigure(
        name="auto", overall=rate(2, 4), cost_per_100_cases_usd=0.5, latency_p50_ms=200.0
    )
    assert run.candidates == [
        RouteFigure(name="fake/alpha", overall=rate(3, 4), cost_per_100_cases_usd=1.0, latency_p50_ms=100.0),
        RouteFigure(name="fake/beta", overall=rate(2, 4), cost_per_100_cases_usd=0.2, latency_p50_ms=300.0),
    ]
    # Direct: alpha's c00 (fail) and c02 (pass), beta's c01 (fail) and c03 (pass): 2/4;
    # $0.01 + $0.002 + $0.01 + $0.002 = $0.024 over 4 = $0.60 per 100; median of 100, 300, 100, 300 = 200.
    assert run.direct == RouteFigure(
        name="direct", overall=rate(2, 4), cost_per_100_cases_usd=0.6, latency_p50_ms=200.0
    )
    # Oracle: c00 beta (alpha failed), c01 alpha, c02 alpha, c03 both pass -> the cheaper, beta: 4/4,
    # the same four calls as direct by cost: $0.60 per 100, p50 200 ms. Regret 100 - 50 = 50 pp.
    assert run.oracle == RouteFigure(
        name="oracle", overall=rate(4, 4), cost_per_100_cases_usd=0.6, latency_p50_ms=200.0
    )
    assert run.regret == 50.0


def test_an_unrecorded_candidate_is_named_and_left_out() -> None:
    choices = ["fake/alpha", "fake/gamma", "fake/alpha", "fake/beta"]
    auto = routed_run(SUITE, "auto", [0], cost=0.005, latency=200, answered_by=choices)
    found = routing(SUITE, auto, [auto, ALPHA, BETA])
    assert found is not None
    assert (found.recorded, found.unrecorded) == (["fake/alpha", "fake/beta"], ["fake/gamma"])
    assert found.cases[1].chosen_outcomes == {"fake/gamma": None}
    (run,) = found.runs
    # Direct leaves out c01 (its model was not recorded): alpha fails c00, passes c02; beta passes c03.
    assert run.direct.overall == rate(2, 3)


def test_no_routing_when_nex_answered_as_itself() -> None:
    plain = routed_run(SUITE, "auto", [], cost=0.005, latency=200)
    assert routing(SUITE, plain, [plain]) is None


def test_no_candidate_recorded_gives_names_and_no_runs() -> None:
    found = routing(SUITE, AUTO, [AUTO])
    assert found is not None
    assert (found.unrecorded, found.best, found.runs) == (["fake/alpha", "fake/beta"], None, [])

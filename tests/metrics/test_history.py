"""`lobrec.core.metrics.history` on hand-computed examples: which steps are flagged, and why.

Every model here is built from no-call cases passed or failed at will (tests/support/tier_models.py), so
each McNemar or sign-test p-value can be worked out on paper: b discordant cases one way and c the
other give p = 2 * sum(C(b + c, k) for k <= min(b, c)) / 2 ** (b + c).
"""

from __future__ import annotations

import msgspec
import pytest

from lobrec.cassette.manifest import suite_fingerprint
from lobrec.core.metrics.history import HASH_NOTE, History, Step, build_history, step_scope
from lobrec.core.metrics.results import ModelResult, Recording, RunResult, SuiteRef
from lobrec.core.suite.format import Message, Suite
from tests.support.tier_models import model_of, no_call_suite

SUITE = no_call_suite(10)


def _file(suite: Suite, *models: ModelResult, sha: str | None = None) -> RunResult:
    return RunResult(suite=SuiteRef(name=suite.name, version=suite.version, sha256=sha), models=list(models))


def _recorded(model: ModelResult, *stamps: str) -> ModelResult:
    runs = [
        Recording(
            run=number,
            suite=SuiteRef(name="tiers", version="1.0.0"),
            lobrec_version="0.3.0",
            started_at=stamp,
            finished_at=stamp,
        )
        for number, stamp in enumerate(stamps, 1)
    ]
    return msgspec.structs.replace(model, recorded=runs)


def _only_step(history: History, model: str = "m") -> Step:
    (found,) = [entry for entry in history.models if entry.model == model]
    steps = [point.step for point in found.points if point.step is not None]
    assert len(steps) == 1
    return steps[0]


def test_eight_cases_lost_and_none_gained_is_a_real_drop() -> None:
    """b = 8, c = 0: p = 2 / 2**8 = 0.0078125 < 0.05, so the step is flagged worse."""
    before = model_of(SUITE, "m", [])
    after = model_of(SUITE, "m", range(8))
    step = _only_step(build_history([("a", _file(SUITE, before)), ("b", _file(SUITE, after))]))
    assert (step.worse, step.better, step.cases) == (8, 0, 10)
    assert step.p_value == 2 / 256
    assert step.verdict == "worse"
    assert step.delta == -80.0
    assert step.test == "mcnemar"


def test_six_gained_against_two_lost_is_not_flagged_though_the_rate_rose_40_points() -> None:
    """b = 2, c = 6: p = 2 * (1 + 8 + 28) / 256 = 0.2890625: no flag, whatever the delta."""
    before = model_of(SUITE, "m", range(6))
    after = model_of(SUITE, "m", [6, 7])
    step = _only_step(build_history([("a", _file(SUITE, before)), ("b", _file(SUITE, after))]))
    assert (step.worse, step.better) == (2, 6)
    assert step.p_value == 74 / 256
    assert step.verdict == "none"
    assert step.delta == 40.0


def test_repeated_runs_use_the_sign_test_on_pass_rates() -> None:
    """A passes every case in 3 runs; B fails 6 in its one run: 6 rates lower, none higher,
    p = 2 / 2**6 = 0.03125: worse, by the sign test."""
    before = model_of(SUITE, "m", [], [], [])
    after = model_of(SUITE, "m", range(6))
    step = _only_step(build_history([("a", _file(SUITE, before)), ("b", _file(SUITE, after))]))
    assert step.test == "sign"
    assert (step.worse, step.better, step.p_value, step.verdict) == (6, 0, 2 / 64, "worse")


def _next_version() -> Suite:
    """1.1.0 of SUITE: c00's request changed, c01's checks changed (its group), c10 added."""
    cases = list(SUITE.cases)
    cases[0] = msgspec.structs.replace(cases[0], messages=[Message(role="user", content="hello?")])
    cases[1] = msgspec.structs.replace(cases[1], group="selection")
    cases.append(msgspec.structs.replace(cases[2], id="c10"))
    return msgspec.structs.replace(SUITE, version="1.1.0", cases=cases)


def test_across_versions_only_the_cases_whose_request_and_checks_held_are_compared() -> None:
    """B fails c00 and c01 (both changed) and c02..c05: on all cases b = 6, p = 0.03125 (flagged);
    on the 8 unchanged ones b = 4, p = 2 / 16 = 0.125: not flagged, and 2 cases are left out."""
    newer = _next_version()
    before = model_of(SUITE, "m", [])
    after = model_of(newer, "m", range(6))
    files = [("a", _file(SUITE, before)), ("b", _file(newer, after))]
    suites = [(suite_fingerprint(suite), suite) for suite in (SUITE, newer)]
    step = _only_step(build_history(files, suites))
    assert step.suite_changed and step.comparable
    assert (step.cases, step.worse, step.better, step.left_out) == (8, 4, 0, 2)
    assert step.p_value == 0.125
    assert step.verdict == "none"
    assert step.reason == "2 cases left out: changed from 1.0.0 to 1.1.0"


def test_across_versions_without_the_suite_file_the_step_is_not_comparable() -> None:
    newer = _next_version()
    files = [
        ("a", _file(SUITE, model_of(SUITE, "m", []))),
        ("b", _file(newer, model_of(newer, "m", range(9)))),
    ]
    step = _only_step(build_history(files, [(suite_fingerprint(SUITE), SUITE)]))
    assert not step.comparable
    assert (step.p_value, step.verdict, step.cases) == (None, "none", 0)
    assert step.reason == (
        "suite 1.1.0 not found: give its file with --suite to compare the cases whose checks did not change"
    )
    assert step.delta == -81.8182  # 2 of 11 cases pass in 1.1.0, all 10 did in 1.0.0


def test_a_renamed_suite_is_not_comparable() -> None:
    scope = step_scope(SuiteRef(name="a", version="1.0.0"), SuiteRef(name="b", version="1.0.0"), [])
    assert (scope.comparable, scope.reason) == (False, "suite renamed from a to b")


@pytest.mark.parametrize("other", [None, "sha256:2"], ids=["one hash missing", "another hash"])
def test_one_version_is_one_suite_whatever_its_hash(other: str | None) -> None:
    """A `--group` subset has its own content hash: still the same version, every case compared."""
    old = SuiteRef(name="a", version="1.0.0", sha256="sha256:1")
    scope = step_scope(old, SuiteRef(name="a", version="1.0.0", sha256=other), [])
    assert (scope.comparable, scope.cases) == (True, None)
    assert scope.reason == ("" if other is None else HASH_NOTE)


def test_the_whole_version_serves_a_file_judged_with_a_subset_of_it() -> None:
    newer = _next_version()
    old = SuiteRef(name="tiers", version="1.0.0", sha256="sha256:a-group-subset")
    known = [(suite_fingerprint(suite), suite) for suite in (SUITE, newer)]
    scope = step_scope(old, SuiteRef(name="tiers", version="1.1.0"), known)
    assert scope.comparable
    assert scope.cases == frozenset(f"c{i:02d}" for i in range(2, 10))


def test_rescored_recorded_and_unknown_come_from_the_recorded_provenance() -> None:
    base = model_of(SUITE, "m", [])
    same = _recorded(base, "2026-01-01T00:00:00+00:00")
    again = _recorded(base, "2026-02-01T00:00:00+00:00")
    files = [
        ("a", _file(SUITE, same)),
        ("b", _file(SUITE, same)),
        ("c", _file(SUITE, again)),
        ("d", _file(SUITE, base)),
    ]
    (history,) = build_history(files).models
    assert [point.step.provenance for point in history.points if point.step] == [
        "rescored",
        "recorded",
        "unknown",
    ]


def test_a_model_missing_from_a_file_steps_from_the_last_file_holding_it() -> None:
    other = model_of(SUITE, "other", [])
    files = [
        ("a", _file(SUITE, model_of(SUITE, "m", []), other)),
        ("b", _file(SUITE, other)),
        ("c", _file(SUITE, model_of(SUITE, "m", range(8)), other)),
    ]
    history = build_history(files)
    (found,) = [entry for entry in history.models if entry.model == "m"]
    assert [point.run for point in found.points] == [1, 3]
    assert _only_step(history).since == 1
    assert _only_step(history).verdict == "worse"


def test_models_of_the_last_file_come_first_best_first() -> None:
    files = [
        ("a", _file(SUITE, model_of(SUITE, "gone", []), model_of(SUITE, "low", range(5)))),
        ("b", _file(SUITE, model_of(SUITE, "low", range(5)), model_of(SUITE, "high", [0]))),
    ]
    assert [entry.model for entry in build_history(files).models] == ["high", "low", "gone"]


def test_a_model_whose_recordings_go_back_in_time_is_noted() -> None:
    """A recording never goes back in time; a file holding only other, older models does not count."""
    new = _recorded(model_of(SUITE, "m", []), "2026-03-01T00:00:00+00:00")
    old = _recorded(model_of(SUITE, "m", []), "2026-01-01T10:00:00+09:00")
    other = _recorded(model_of(SUITE, "other", []), "2025-06-01T00:00:00+00:00")
    files = [
        ("a", _file(SUITE, new)),
        ("b", _file(SUITE, other)),
        ("c", _file(SUITE, old)),
        ("d", _file(SUITE, new)),
    ]
    runs = build_history(files).runs
    assert [run.recorded_earlier for run in runs] == [[], [], ["m"], []]
    assert [run.recorded_at for run in runs] == [
        "2026-03-01T00:00:00+00:00",
        "2025-06-01T00:00:00+00:00",
        "2026-01-01T10:00:00+09:00",
        "2026-03-01T00:00:00+00:00",
    ]

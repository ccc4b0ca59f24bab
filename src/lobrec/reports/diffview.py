"""The view of `lobrec diff A B`: metric deltas, the flipped cases and the McNemar verdict (with
repeated runs: the per-case pass rates that moved, the sign test and the run-to-run spread), and
how the failure kinds moved, shaped once for every format.

The numbers and the verdict come from `lobrec.core.metrics.compare`; this module says them in words,
and the format modules lay them out (`terminal.render_diff`, `markdown.render_diff_markdown`,
`html.render_diff_html`). A delta is called better or worse in words, not only in colour, and
"worse" means a rise for the lower-is-better metrics (made-up tool, latency, cost).
"""

from __future__ import annotations

from typing import NamedTuple

from lobrec.core.judge.failures import kind_label
from lobrec.core.metrics.compare import Comparison, MetricDelta, RepeatedComparison, Unpaired, format_p
from lobrec.core.metrics.repeats import scored_verdict
from lobrec.core.metrics.tiers import two_way
from lobrec.core.words import counted
from lobrec.reports._format import Change, change
from lobrec.reports.insight import resolution_sentence


def shown(item: MetricDelta) -> tuple[Change, str]:
    """A metric's values and difference as printed, and `better`, `worse` or empty from B's side:
    judged on the printed difference, so a printed zero is neither."""
    texts = change(item.a, item.b, item.unit)
    if not texts.shown:
        return texts, ""
    improved = texts.shown < 0 if item.lower_is_better else texts.shown > 0
    return texts, "better" if improved else "worse"


def metric_label(item: MetricDelta) -> str:
    """The metric's label, with ` ↓` on a rate where lower is better."""
    return item.label + (" ↓" if item.lower_is_better and item.unit == "pp" else "")


class MetricRow(NamedTuple):
    """One metric as every format shows it."""

    label: str
    a: str
    b: str
    delta: str
    verdict: str
    """`better`, `worse` or empty, from B's side."""


def metric_rows(cmp: Comparison) -> list[MetricRow]:
    """Each metric: its label, both values, the change and whether that is better or worse for B."""
    return [_metric_row(item) for item in cmp.deltas]


def _metric_row(item: MetricDelta) -> MetricRow:
    texts, verdict = shown(item)
    return MetricRow(metric_label(item), texts.a, texts.b, texts.delta, verdict)


def _left_out_label(item: Unpaired) -> str:
    parts = []
    for side, status in (("A", item.a), ("B", item.b)):
        if status is None:
            parts.append(f"not in {side}")
        elif status != "scored":
            parts.append(f"{side} {status}")
    return ", ".join(parts)


def left_out(cmp: Comparison) -> list[tuple[str, list[str]]]:
    """The unpaired cases grouped by why: (`A errored`, ids), in first-seen order."""
    groups: dict[str, list[str]] = {}
    for item in cmp.unpaired:
        groups.setdefault(_left_out_label(item), []).append(item.id)
    return list(groups.items())


def interpretation(cmp: Comparison) -> str:
    """The one-line reading of the test, from B's point of view."""
    match cmp.verdict:
        case "nothing_paired":
            return "no case was scored in both runs: nothing to compare"
        case "no_difference":
            return f"no significant difference at 5% ({format_p(cmp.p_value)})"
        case "b_better" | "b_worse":
            return f"B is {cmp.verdict.removeprefix('b_')}, {format_p(cmp.p_value)}"


def spread_sentence(repeats: RepeatedComparison) -> str:
    """Whether the difference in overall mean is more than a run of either model varies by (empty
    when either is unknown)."""
    delta, spread = repeats.mean_delta, repeats.spread
    if delta is None or spread is None:
        return ""
    size = f"{'+' if delta > 0 else '-' if delta < 0 else ''}{abs(delta):.1f} pp"
    if repeats.within_spread:
        return (
            f"The difference in overall mean ({size}) is within the run-to-run spread of A and B "
            f"({spread:.1f} pp, the larger sample sd of the overall rate over runs): "
            "another run of either could move it that much."
        )
    return (
        f"The difference in overall mean ({size}) is larger than the run-to-run spread of A and B "
        f"({spread:.1f} pp, the larger sample sd of the overall rate over runs)."
    )


def _runs(count: int) -> str:
    return "run" if count == 1 else "runs"


def _test_lines(cmp: Comparison) -> list[str]:
    """What was counted and the test: McNemar's on the flips, or with repeats the sign test on
    per-case pass rates and the run-to-run spread."""
    repeats = cmp.repeats
    if repeats is None:
        return [
            f"Exact McNemar test: {interpretation(cmp)}.",
            f"Discordant: b = {cmp.b} (A passed, B failed), c = {cmp.c} (A failed, B passed).",
            f"Paired: {counted(cmp.paired, 'case')} scored in both ({cmp.both_passed} passed in both, "
            f"{cmp.both_failed} failed in both); {len(cmp.unpaired)} left out.",
        ]
    lines = [
        f"Exact sign test on per-case pass rates: {interpretation(cmp)}.",
        f"Pass rate lower in B: {counted(cmp.b, 'case')}; higher in B: {cmp.c}; "
        f"equal: {repeats.ties} (dropped).",
        f"Paired: {counted(cmp.paired, 'case')} scored in both (A over {repeats.runs_a} "
        f"{_runs(repeats.runs_a)}, B over {repeats.runs_b} {_runs(repeats.runs_b)}); "
        f"{len(cmp.unpaired)} left out.",
    ]
    sentence = spread_sentence(repeats)
    return [*lines, sentence] if sentence else lines


def flip_lists(cmp: Comparison) -> list[tuple[str, list[str]]]:
    """(label, case ids) for the cases that moved: flips, or with repeats the pass rates that
    changed, each with both rates (`sel-01 (3/3 → 1/3)`)."""
    if cmp.repeats is None:
        return [("Pass → fail", cmp.pass_to_fail), ("Fail → pass", cmp.fail_to_pass)]
    rates = {case.id: case for case in cmp.repeats.cases}

    def shown(case_id: str) -> str:
        case = rates[case_id]
        return f"{case_id} ({case.a_passes}/{case.a_runs} → {case.b_passes}/{case.b_runs})"

    return [
        ("Pass rate lower in B", [shown(case) for case in cmp.pass_to_fail]),
        ("Pass rate higher in B", [shown(case) for case in cmp.fail_to_pass]),
    ]


def noise_source(cmp: Comparison) -> str:
    """Where the pair's flip rate came from, from its counts: the larger of the pair's disagreement
    both ways (2 * min(b, c) of the paired cases) and the run-to-run flips of repeated runs."""
    resolution = cmp.resolution
    assert resolution is not None
    both = min(cmp.b, cmp.c)
    disagreement = f"the pair's disagreement both ways, 2 × min(b, c) = 2 × {both} of {cmp.paired}"
    from_pair = both > 0 and resolution.flip_rate == round(float(two_way(cmp)) * 100, 4)
    if from_pair and resolution.repeated:
        return f"{disagreement}, at least the run-to-run flips of the repeated runs"
    if from_pair:
        return f"{disagreement}; no repeats, so no run-to-run flips measured"
    if resolution.repeated:
        more = f", more than {disagreement}" if both else ""
        return f"the run-to-run flips of the repeated runs{more}"
    return "no repeats, and the pair disagrees one way only: a best case"


def _resolution_lines(cmp: Comparison) -> list[str]:
    """Whether the observed overall difference is one this pair's test can resolve."""
    if cmp.resolution is None:
        return []
    observed = next((item.delta for item in cmp.deltas if item.metric == "overall"), None)
    return [resolution_sentence(cmp.resolution, observed, noise_source(cmp))]


def summary_lines(cmp: Comparison) -> list[str]:
    """The pairing and the test in plain text (names not yet escaped)."""
    lines = _test_lines(cmp) + _resolution_lines(cmp)
    return lines if cmp.same_suite else [_suite_warning(cmp), *lines]


def _suite_warning(cmp: Comparison) -> str:
    return (
        f"Warning: A is on suite {cmp.suite_a.name} {cmp.suite_a.version} and B on "
        f"{cmp.suite_b.name} {cmp.suite_b.version}; "
        "scores on different suite versions are not comparable."
    )


def kind_rows(cmp: Comparison) -> list[list[str]]:
    """Per failure kind: its label, A's failed steps, B's, the change and `fewer`/`more` for B; then
    the total. Empty when neither side has a failed step."""
    if not cmp.kinds:
        return []
    counts = [(kind_label(item.kind), item.a, item.b) for item in cmp.kinds]
    counts.append(("failed steps", sum(item.a for item in cmp.kinds), sum(item.b for item in cmp.kinds)))
    rows = []
    for kind, a, b in counts:
        word = "fewer" if b < a else "more" if b > a else ""
        rows.append([kind, str(a), str(b), f"{b - a:+d}" if b != a else "0", word])
    return rows


def kinds_note(cmp: Comparison) -> str:
    """What the kind counts count, or that there is nothing to count."""
    if not cmp.kinds:
        return "Failure kinds: no failed step on either side."
    runs = cmp.repeats
    over = (
        f", over every run (A over {counted(runs.runs_a, 'run')}, B over {counted(runs.runs_b, 'run')})"
        if runs is not None
        else ""
    )
    return f"Failure kinds count the failed steps of every scored case on each side, paired or not{over}."


class CaseRow(NamedTuple):
    """One case of the HTML comparison: its id and each side as shown (`✓ pass`, `2/3`, `errored`)."""

    id: str
    a: str
    b: str
    a_kind: str
    """The badge's class: `pass`, `fail`, `flaky`, a status (`errored`...) or `missing`."""
    b_kind: str


def _rate_side(passes: int, runs: int) -> tuple[str, str]:
    return f"{passes}/{runs}", scored_verdict(passes, runs)


def _rate_rows(cmp: Comparison, ids: list[str]) -> list[CaseRow]:
    """With repeats: each case's pass rate on each side (`3/3` → `1/3`)."""
    assert cmp.repeats is not None
    rates = {case.id: case for case in cmp.repeats.cases}
    rows = []
    for case_id in ids:
        case = rates[case_id]
        (a, a_kind), (b, b_kind) = (
            _rate_side(case.a_passes, case.a_runs),
            _rate_side(case.b_passes, case.b_runs),
        )
        rows.append(CaseRow(case_id, a, b, a_kind, b_kind))
    return rows


def case_tables(cmp: Comparison) -> list[tuple[str, list[CaseRow]]]:
    """(title, rows) for the cases that moved, then those left out, each side as a badge."""
    if cmp.repeats is None:
        moved = [
            ("Pass → fail", [CaseRow(case, "✓ pass", "✗ fail", "pass", "fail") for case in cmp.pass_to_fail]),
            ("Fail → pass", [CaseRow(case, "✗ fail", "✓ pass", "fail", "pass") for case in cmp.fail_to_pass]),
        ]
    else:
        moved = [
            ("Pass rate lower in B", _rate_rows(cmp, cmp.pass_to_fail)),
            ("Pass rate higher in B", _rate_rows(cmp, cmp.fail_to_pass)),
        ]
    return [(title, rows) for title, rows in [*moved, ("Left out", _left_rows(cmp))] if rows]


def _left_rows(cmp: Comparison) -> list[CaseRow]:
    """The unpaired cases: each side's status, or that the case is not in it."""
    return [
        CaseRow(item.id, item.a or "not in A", item.b or "not in B", item.a or "missing", item.b or "missing")
        for item in cmp.unpaired
    ]

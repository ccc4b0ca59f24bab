"""`lobrec diff A B` rendered: metric deltas, the flipped cases and the McNemar verdict (with
repeated runs: the per-case pass rates that moved, the sign test and the run-to-run spread), and
how the failure kinds moved; and as an HTML page in the report's style (`render_diff_html`).

The numbers and the verdict come from `lobrec.core.metrics.compare`; this module says them in words and
lays them out, for the terminal
(rich, every name in a `Text` so nothing is read as markup) and for Markdown (escaped like the
Markdown report). A delta is called better or worse in words, not only in colour, and "worse"
means a rise for the lower-is-better metrics (made-up tool, latency, cost).
"""

from __future__ import annotations

from typing import NamedTuple

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lobrec.core.judge.failures import kind_label
from lobrec.core.metrics.compare import Comparison, MetricDelta, RepeatedComparison, Unpaired, format_p
from lobrec.core.metrics.repeats import scored_verdict
from lobrec.core.metrics.tiers import two_way
from lobrec.core.words import counted
from lobrec.reports._format import Change, change
from lobrec.reports._text import printable
from lobrec.reports.insight import resolution_sentence
from lobrec.reports.markdown_syntax import md, table

_LIST_LIMIT = 20
"""How many case ids a terminal list names before it says how many more; files list all."""


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


def _ids(ids: list[str], every: bool = False) -> list[str]:
    if every:
        return ids
    shown = ids[:_LIST_LIMIT]
    more = [f"and {len(ids) - _LIST_LIMIT} more"] if len(ids) > _LIST_LIMIT else []
    return [*shown, *more]


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


def kinds_table(cmp: Comparison) -> Table:
    """Failure kind, A, B, the change and whether B has fewer or more of it (fewer is better)."""
    result = Table(box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    result.add_column("Failure kind", no_wrap=True)
    for name in ("A", "B", "B − A"):
        result.add_column(name, justify="right", no_wrap=True)
    result.add_column("", no_wrap=True)
    for kind, a, b, delta, verdict in kind_rows(cmp):
        style = {"fewer": "green", "more": "red"}.get(verdict, "")
        result.add_row(Text(kind), Text(a), Text(b), Text(delta, style=style), Text(verdict, style=style))
    return result


def diff_table(cmp: Comparison) -> Table:
    """Metric, A, B, B - A and whether that is better or worse for B."""
    result = Table(
        title=Text(f"A: {printable(cmp.model_a)}  →  B: {printable(cmp.model_b)}", style="bold"),
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        show_edge=False,
    )
    result.add_column("Metric", no_wrap=True)
    result.add_column("A", justify="right", no_wrap=True)
    result.add_column("B", justify="right", no_wrap=True)
    result.add_column("B − A", justify="right", no_wrap=True)
    result.add_column("", no_wrap=True)
    for item in cmp.deltas:
        texts, verdict = shown(item)
        style = {"better": "green", "worse": "red"}.get(verdict, "")
        result.add_row(
            Text(metric_label(item)),
            Text(texts.a),
            Text(texts.b),
            Text(texts.delta, style=style),
            Text(verdict, style=style),
        )
    return result


def render_diff(cmp: Comparison, console: Console, *, every: bool = False) -> None:
    """Print the comparison: the metric table, the test, the flipped and the left-out cases (the
    first 20 of each list, or all of them with `every`, `lobrec diff --all`)."""
    console.print(diff_table(cmp))
    for line in summary_lines(cmp):
        console.print(Text(printable(line), style="bold yellow" if line.startswith("Warning") else ""))
    if cmp.kinds:
        console.print(kinds_table(cmp))
    console.print(Text(kinds_note(cmp)))
    for label, ids in flip_lists(cmp):
        if ids:
            console.print(Text(f"{label} ({len(ids)}): {', '.join(map(printable, _ids(ids, every)))}"))
    for label, ids in left_out(cmp):
        console.print(
            Text(f"Left out, {printable(label)} ({len(ids)}): {', '.join(map(printable, _ids(ids, every)))}")
        )


def _markdown_metrics(cmp: Comparison) -> str:
    rows = []
    for item in cmp.deltas:
        texts, verdict = shown(item)
        rows.append([md(metric_label(item)), md(texts.a), md(texts.b), md(texts.delta), verdict])
    header = ["Metric", f"A: {md(cmp.model_a)}", f"B: {md(cmp.model_b)}", "B − A", ""]
    return table(header, rows, left=(0, 4))


def _markdown_lists(cmp: Comparison) -> list[str]:
    """The flipped and the left-out cases, every one of them."""
    lists = [
        f"- **{label}** ({len(ids)}): {', '.join(md(case) for case in ids)}"
        for label, ids in flip_lists(cmp)
        if ids
    ]
    lists.extend(
        f"- Left out, {md(label)} ({len(ids)}): {', '.join(md(case) for case in ids)}"
        for label, ids in left_out(cmp)
    )
    return ["\n".join(lists)] if lists else []


def render_diff_markdown(cmp: Comparison) -> str:
    """The comparison as Markdown: a heading, the metric table, the test and the case lists, in
    full (a file is read later and elsewhere; only the terminal shortens them)."""
    parts = [
        f"### Comparing {md(cmp.model_a)} (A) with {md(cmp.model_b)} (B)",
        _markdown_metrics(cmp),
        *(md(line) for line in summary_lines(cmp)),
    ]
    if cmp.kinds:
        header = ["Failure kind", "A", "B", "B − A", ""]
        parts.append(table(header, [[md(cell) for cell in row] for row in kind_rows(cmp)], left=(0, 4)))
    parts.append(md(kinds_note(cmp)))
    parts.extend(_markdown_lists(cmp))
    return "\n\n".join(parts) + "\n"


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


def render_diff_html(cmp: Comparison) -> str:
    """The comparison as one self-contained page in the HTML report's style (`lobrec diff --html`):
    the metric deltas, the test, the cases that moved and those left out, the failure kinds."""
    from lobrec.reports.html_page import render_template

    metrics = []
    for item in cmp.deltas:
        texts, verdict = shown(item)
        label = item.label + (" ↓" if item.lower_is_better and item.unit == "pp" else "")
        metrics.append((label, texts.a, texts.b, texts.delta, verdict))
    return render_template(
        "diff.html.j2",
        cmp=cmp,
        metrics=metrics,
        summary=summary_lines(cmp),
        tables=case_tables(cmp),
        kinds=kind_rows(cmp),
        kinds_note=kinds_note(cmp),
        counted=counted,
    )

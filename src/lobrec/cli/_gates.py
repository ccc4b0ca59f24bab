"""The gates a run must pass (`--fail-under`, `--max-errored`, and those a command adds), printed
one line each, and the exit code that wins (`GATE_ORDER`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import typer

from lobrec.cli._exits import Exit
from lobrec.cli._output import fail, say

if TYPE_CHECKING:
    from lobrec.core.metrics.gates import Allowance
    from lobrec.core.metrics.results import RunResult


GATE_ORDER = (
    Exit.GATEWAY,
    Exit.OTHER_MAJOR,
    Exit.UNREADABLE,
    Exit.ERRORED,
    Exit.NOT_STARTED,
    Exit.INCOMPLETE,
    Exit.BELOW_THRESHOLD,
)
"""When several gates fail, the first of these wins: the less of a model was judged, the more its
code says (nothing judged at all, then recordings another suite must judge, unreadable ones, cases
that errored, cases never started, cases out of date, then a low score)."""


def check_gates(
    run: RunResult,
    *,
    fail_under: float | None,
    max_errored: str | None,
    failed: Sequence[tuple[Exit, str]] = (),
    excused: dict[str, int] | None = None,
    verdict: Callable[[list[str]], None] | None = None,
) -> None:
    """Print every gate the run fails, one line each, then exit with the code that wins
    (`GATE_ORDER`); `failed` holds the gates the command checked itself (stale cases, cases not
    started), `excused` the errored cases per model those already answer for. `verdict` is handed
    the failed gates' lines (none: the run passed) before the exit: the CI job summary's first lines."""
    from lobrec.core.metrics.gates import failed_gates

    codes = {"no_scores": Exit.GATEWAY, "errored": Exit.ERRORED, "fail_under": Exit.BELOW_THRESHOLD}
    found = [*failed]
    for failure in failed_gates(
        run,
        fail_under=fail_under,
        allowance=allowance(max_errored),
        excused=excused,
        shown=score_against(fail_under),
    ):
        found.append((codes[failure.gate], failure.line))
    for _, line in found:
        say(f"gate failed: {line}")
    if verdict is not None:
        verdict([line for _, line in found])
    if found:
        raise typer.Exit(min((code for code, _ in found), key=GATE_ORDER.index))


def score_against(threshold: float | None) -> Callable[[float | None], str]:
    """A score as the reports print it, with as many more decimals as it takes not to print as the
    threshold it is under: 89.96 under `--fail-under 90` reads `89.96%`, never `90.0%`."""
    from lobrec.reports._format import change, percent

    def shown(rate: float | None) -> str:
        return percent(rate) if rate is None or threshold is None else change(rate, threshold, "pp").a

    return shown


def allowance(text: str | None) -> Allowance:
    """`--max-errored` parsed (none given: no errored case is allowed), or a one-line error."""
    from lobrec.core.metrics.gates import NO_ERRORS, parse_allowance

    if text is None:
        return NO_ERRORS
    try:
        return parse_allowance(text)
    except ValueError as exc:
        raise fail(str(exc)) from None

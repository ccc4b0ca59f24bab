"""What a user reads after a run that did not judge everything: why cases errored, and the command
that records what is left (every word shell-quoted, so it can be pasted)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.cli._output import shell_command
from lobrec.core.words import counted

if TYPE_CHECKING:
    from lobrec.core.metrics.results import CaseResult, ModelResult, RunResult


def resume_command(
    models: list[str],
    base_url: str | None,
    cassettes: Path,
    suite_path: Path | None,
    cases: list[str],
    *,
    missing: bool = True,
    flags: Sequence[str] = (),
) -> str:
    """The command that records what this run did not finish, with the run's own options
    (`flags`: the others that shape the run, such as `--repeat 3` or `--max-cost 5`)."""
    words = ["lobrec", "record"]
    for model in dict.fromkeys(models):
        words += ["--model", model]
    if base_url:
        words += ["--base-url", base_url]
    words += ["--cassettes", str(cassettes)]
    if suite_path is not None:
        words += ["--suite", str(suite_path)]
    for case_id in cases:
        words += ["--case", case_id]
    return shell_command(*words, *flags, *(["--missing"] if missing else []))


SHOWN_IDS = 5
"""Case ids named in one errored-reason line before the rest are counted."""


def errored_summary(run: RunResult) -> list[str]:
    """Why cases errored, one line per model and distinct reason, with the first few case ids.

    The reasons are in the results file too, but a user at a terminal must not have to open it to
    learn that the model name was misspelt or the port was wrong.
    """
    return [line for model in run.models for line in _errored_lines(model)]


def _errored_lines(model: ModelResult) -> list[str]:
    """`model`'s lines: one per distinct reason, the reason most cases share first."""
    by_reason = _errored_by_reason(model)
    refused = _key_refused_reasons(model)
    ordered = sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        f"{model.model}: {_cases_errored(ids)}: {reason}{_key_hint(reason in refused)}"
        for reason, ids in ordered
    ]


def _key_refused_reasons(model: ModelResult) -> set[str]:
    """The reasons of cases whose last request the gateway refused for the API key: their line
    says where the key is read from."""
    from lobrec.cli._unanswered import KEY_REFUSED

    return {
        _reason(case)
        for case in model.cases
        if case.status == "errored" and case.api_calls and case.api_calls[-1].status in KEY_REFUSED
    }


def _cases_errored(ids: list[str]) -> str:
    """`3 cases errored (a, b, c)`, naming at most SHOWN_IDS ids and counting the rest."""
    shown = ", ".join(ids[:SHOWN_IDS])
    more = f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
    return f"{counted(len(ids), 'case')} errored ({shown}{more})"


def _key_hint(refused: bool) -> str:
    """` (the key hint)` after a reason the gateway refused for the key, else nothing."""
    import os

    from lobrec.cli._unanswered import key_hint

    return f" ({key_hint(os.environ)})" if refused else ""


def _reason(case: CaseResult) -> str:
    """An errored case's reason as its line groups it (one with none still gets a line)."""
    return case.reason or "no reason recorded"


def _errored_by_reason(model: ModelResult) -> dict[str, list[str]]:
    """The errored cases of every run of `model` by reason: a case that errored only in run 2 is
    named too, as `id (run 2)`."""
    runs: list[tuple[int, list[CaseResult]]] = [(1, model.cases)]
    if model.repeats is not None:
        runs += [(per_run.run, per_run.cases) for per_run in model.repeats.per_run if per_run.run > 1]
    by_reason: dict[str, list[str]] = {}
    for number, cases in runs:
        for case in cases:
            if case.status == "errored":
                label = case.id if number == 1 else f"{case.id} (run {number})"
                by_reason.setdefault(_reason(case), []).append(label)
    return by_reason

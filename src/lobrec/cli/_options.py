"""The options several commands share, declared once, and the settings in force behind them.

`record` and `rescore` take the same reports and gates (`Outputs`, spliced into each signature by
`with_outputs`, so the ten options are written once and read as one value); the option types
(`SuitePath`, `GroupOption`, ...) are each command's own where it takes one.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lobrec.cli._output import fail
from lobrec.defaults import DEFAULT_MAX_ERRORED

if TYPE_CHECKING:
    from lobrec.settings import Resolved

SuitePath = Annotated[
    Path | None,
    typer.Option("--suite", metavar="FILE", help="Suite file (default: the suite bundled with lobrec)."),
]
GroupOption = Annotated[
    list[str],
    typer.Option("--group", metavar="GROUP", help="Only the cases of this group (e.g. chains); repeatable."),
]
AllowNewerSuite = Annotated[
    bool,
    typer.Option(
        "--allow-newer-suite",
        help="Judge cassettes recorded with a newer suite version than the judging one (refused otherwise).",
    ),
]
REPORT_HELP = {
    "json": "Write the results JSON here (- for stdout).",
    "markdown": "Write the Markdown report here (- for stdout).",
    "html": "Write the HTML report here.",
    "csv": "Write one CSV row per model, case and judged step here (- for stdout).",
    "jsonl": "Write the same rows as JSON Lines here (- for stdout).",
    "junit": "Write JUnit XML here: a testsuite per model, a testcase per case.",
    "summary": "Add a short Markdown summary for a CI job page to the end of this file "
    "(e.g. $GITHUB_STEP_SUMMARY; - for stdout).",
}
"""Each report option (`--json FILE`) by its setting, in the order `--help` lists them."""
ByGroup = Annotated[
    bool,
    typer.Option("--by-group", help="Also print, in the terminal, each model's overall rate per group."),
]
FailUnder = Annotated[
    str | None,
    typer.Option(
        "--fail-under",
        metavar="PCT",
        help="Exit 1 when a model's overall score is below PCT percent (80 or 80%).",
    ),
]


def parse_percent(text: str, flag: str) -> float:
    """A percentage option's value: `80` and `80%` alike, 0 to 100 (`core.gates.parse_score_percent`);
    else a one-line error naming the option (`--max-errored` is the other percentage, where a bare
    number counts cases)."""
    from lobrec.core.metrics.gates import parse_score_percent

    try:
        return parse_score_percent(text, flag)
    except ValueError as exc:
        raise fail(str(exc)) from None


MaxErrored = Annotated[
    str | None,
    typer.Option(
        "--max-errored",
        metavar="N|PCT%",
        help="Errored cases a model may have (a count, or a share of its cases like 5%; every run "
        f"together) before the command exits 5; default {DEFAULT_MAX_ERRORED}.",
    ),
]


def also_write(flag: str, what: str) -> Any:
    """A `--markdown FILE`-like option of a command with one thing to show (`diff`'s comparison,
    `history`'s history): also write `what` (e.g. "comparison as Markdown") there, - for stdout."""
    return typer.Option(None, flag, metavar="FILE", help=f"Also write the {what} (- for stdout).")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Outputs:
    """The reports a run writes and the gates it must pass.

    `targets` holds each report's path (`-` for stdout, None for none) by its setting (`json` for
    `--json`); it and the gates can be set in the configuration file (`lobrec.settings`), `by_group`
    only on the command line.
    """

    targets: dict[str, str | None] = dataclasses.field(default_factory=dict)
    by_group: bool = False
    fail_under: float | None = None
    max_errored: str | None = None
    origins: dict[str, str] = dataclasses.field(default_factory=dict)
    """The file that set each report target not given on the command line (`json` → its path), so
    an error about a target names where it came from."""

    def given(self) -> dict[str, Any]:
        """The settings as given on the command line, for `in_force`."""
        return {**self.targets, "fail_under": self.fail_under, "max_errored": self.max_errored}

    def resolved(self, conf: Resolved) -> Outputs:
        """These outputs with each setting as it is in force (`conf`)."""
        return dataclasses.replace(
            self,
            targets={name: conf[name] for name in self.targets},
            origins={
                name: conf.settings[name].where or ""
                for name in self.targets
                if conf.settings[name].source == "file"
            },
            fail_under=conf["fail_under"],
            max_errored=conf["max_errored"],
        )


OUTPUTS = Outputs()
"""A command's `outputs: Outputs = OUTPUTS`: the parameter `with_outputs` declares as options."""

_GATE_OPTIONS: dict[str, Any] = {"by_group": ByGroup, "fail_under": FailUnder, "max_errored": MaxErrored}


def with_outputs(command: Callable[..., None]) -> Callable[..., None]:
    """`command` with its `outputs: Outputs` parameter declared to typer as the report options of
    `REPORT_HELP` and the gates', in its place; the call gathers them back into one `Outputs`."""
    signature = inspect.signature(command, eval_str=True)
    options = {
        **{
            name: Annotated[str | None, typer.Option(f"--{name}", metavar="FILE", help=text)]
            for name, text in REPORT_HELP.items()
        },
        **_GATE_OPTIONS,
    }
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name != "outputs":
            parameters.append(parameter)
            continue
        for name, option in options.items():
            default = False if name == "by_group" else None
            parameters.append(parameter.replace(name=name, default=default, annotation=option))

    @functools.wraps(command)
    def declared(**given: Any) -> None:
        targets = {name: given.pop(name) for name in REPORT_HELP}
        gates = {name: given.pop(name) for name in _GATE_OPTIONS}
        if gates["fail_under"] is not None:
            gates["fail_under"] = parse_percent(gates["fail_under"], "--fail-under")
        command(**given, outputs=Outputs(targets=targets, **gates))

    declared.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    declared.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return declared

"""The options several commands share, declared once, and the settings in force behind them.

`record` and `rescore` take the same reports and gates (`Outputs`, spliced into each signature by
`with_outputs`, so the ten options are written once and read as one value); the option types below
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
JsonOut = Annotated[
    str | None, typer.Option("--json", metavar="FILE", help="Write the results JSON here (- for stdout).")
]
MarkdownOut = Annotated[
    str | None,
    typer.Option("--markdown", metavar="FILE", help="Write the Markdown report here (- for stdout)."),
]
HtmlOut = Annotated[str | None, typer.Option("--html", metavar="FILE", help="Write the HTML report here.")]
CsvOut = Annotated[
    str | None,
    typer.Option(
        "--csv", metavar="FILE", help="Write one CSV row per model, case and judged step here (- for stdout)."
    ),
]
JsonlOut = Annotated[
    str | None,
    typer.Option("--jsonl", metavar="FILE", help="Write the same rows as JSON Lines here (- for stdout)."),
]
JunitOut = Annotated[
    str | None,
    typer.Option(
        "--junit", metavar="FILE", help="Write JUnit XML here: a testsuite per model, a testcase per case."
    ),
]
SummaryOut = Annotated[
    str | None,
    typer.Option(
        "--summary",
        metavar="FILE",
        help="Add a short Markdown summary for a CI job page to the end of this file "
        "(e.g. $GITHUB_STEP_SUMMARY; - for stdout).",
    ),
]
ByGroup = Annotated[
    bool,
    typer.Option("--by-group", help="Also print, in the terminal, each model's overall rate per group."),
]
FailUnder = Annotated[
    float | None,
    typer.Option(
        "--fail-under",
        min=0,
        max=100,
        metavar="PCT",
        help="Exit 1 when a model's overall score is below PCT percent.",
    ),
]
MaxErrored = Annotated[
    str | None,
    typer.Option(
        "--max-errored",
        metavar="N|PCT%",
        help="Errored cases a model may have (a count, or a share of its cases like 5%; every run "
        "together) before the command exits 5; default 0.",
    ),
]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Outputs:
    """The reports a run writes (a path, `-` for stdout, or None) and the gates it must pass.

    Each field is the setting of the same name (`lobrec.settings`), so the configuration file can
    set it; `by_group` is the one that only the command line sets.
    """

    json: str | None = None
    markdown: str | None = None
    html: str | None = None
    csv: str | None = None
    jsonl: str | None = None
    junit: str | None = None
    summary: str | None = None
    by_group: bool = False
    fail_under: float | None = None
    max_errored: str | None = None

    def given(self) -> dict[str, Any]:
        """The settings as given on the command line, for `in_force`."""
        return {name: getattr(self, name) for name in _settings()}

    def resolved(self, conf: Resolved) -> Outputs:
        """These outputs with each setting as it is in force (`conf`)."""
        return dataclasses.replace(self, **{name: conf[name] for name in _settings()})

    def targets(self) -> dict[str, str | None]:
        """Each report's target by its option's name (`json` for `--json`), in the options' order."""
        from lobrec.settings import REPORT_KEYS

        return {name: getattr(self, name) for name in REPORT_KEYS}


OUTPUT_OPTIONS = Outputs()
"""A command's `outputs: Outputs = OUTPUT_OPTIONS`: the parameter `with_outputs` declares as options."""


def _settings() -> tuple[str, ...]:
    from lobrec.settings import REPORT_KEYS

    return (*REPORT_KEYS, "fail_under", "max_errored")


_OUTPUT_OPTIONS: dict[str, Any] = {
    "json": JsonOut,
    "markdown": MarkdownOut,
    "html": HtmlOut,
    "csv": CsvOut,
    "jsonl": JsonlOut,
    "junit": JunitOut,
    "summary": SummaryOut,
    "by_group": ByGroup,
    "fail_under": FailUnder,
    "max_errored": MaxErrored,
}
"""`Outputs`' options in the order `--help` lists them, each under the field it fills."""


def with_outputs(command: Callable[..., None]) -> Callable[..., None]:
    """`command` with its `outputs: Outputs` parameter declared to typer as the ten options of
    `_OUTPUT_OPTIONS`, in its place; the call gathers them back into one `Outputs`."""
    signature = inspect.signature(command, eval_str=True)
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name != "outputs":
            parameters.append(parameter)
            continue
        for name, option in _OUTPUT_OPTIONS.items():
            default = False if name == "by_group" else None
            parameters.append(parameter.replace(name=name, default=default, annotation=option))

    @functools.wraps(command)
    def declared(**given: Any) -> None:
        outputs = Outputs(**{name: given.pop(name) for name in _OUTPUT_OPTIONS})
        command(**given, outputs=outputs)

    declared.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    declared.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return declared


def parse_delays(text: str) -> tuple[float, ...]:
    """`--retry-delays`: finite, non-negative seconds separated by commas (`lobrec.settings`)."""
    from lobrec.settings import parse_delays as parse

    try:
        return parse(text)
    except ValueError as exc:
        raise fail(f"--retry-delays {exc}") from None


def in_force(**given: Any) -> Resolved:
    """The settings in force (`lobrec.settings.Resolved`): the options `given` on the command line
    (None or [] for not given) over LOBSTACK_BASE_URL over the configuration file over the
    built-in defaults; a bad file is a one-line error naming it and its key."""
    from lobrec.errors import LobrecError
    from lobrec.settings import resolve

    try:
        return resolve(given)
    except LobrecError as exc:
        raise fail(str(exc)) from None

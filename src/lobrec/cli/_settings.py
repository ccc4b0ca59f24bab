"""The settings in force for a command: its options over the environment over the configuration
file over the defaults (`lobrec.settings`), a bad value a one-line error."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lobrec.cli._output import fail, say

if TYPE_CHECKING:
    from lobrec.settings import Resolved


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
    built-in defaults; a bad file is a one-line error naming it and its key. Each note (a file
    another user owns, passed over) is said once, in one line on stderr."""
    from lobrec.settings import resolve

    conf = resolve(given)
    for note in conf.notes:
        say(note)
    return conf

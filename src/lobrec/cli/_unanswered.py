"""A model that never answered (an unknown name, a gateway that cannot be reached, a refused or
missing key): one line with the reason and the one command that fixes it, and no folder left
behind unnamed that would make every later `rescore` of the cassettes fail.

A model never answered when it failed fast (`recording.FAIL_FAST_CASES`) and not one of its cases
was scored (`unanswered_line` says which folder goes and which stays).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lobrec.cassette.layout import model_dir_name
from lobrec.errors import ConfigError
from lobrec.running.gateway import KEY_ENV

if TYPE_CHECKING:
    from lobrec.core.metrics.results import ModelResult, RunResult


@dataclass(frozen=True)
class Folders:
    """What existed before the run: the cassettes folder, and each model's folder in it."""

    root: Path
    root_existed: bool
    existed: frozenset[str]

    @classmethod
    def before(cls, root: Path, models: Iterable[str]) -> Folders:
        found = set()
        for model in models:
            try:
                if (root / model_dir_name(model)).exists():
                    found.add(model)
            except ConfigError:
                continue  # the run refuses such a name itself, in its own line
        return cls(root, root.exists(), frozenset(found))

    def tidy(self, model: str) -> Path | None:
        """Remove `model`'s folder when this run created it; the folder kept otherwise (None: removed)."""
        folder = self.root / model_dir_name(model)
        if model in self.existed:
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        if not self.root_existed:
            with contextlib.suppress(OSError):  # only when empty: another model may have recorded into it
                self.root.rmdir()
        return None


KEY_REFUSED = (401, 403)
"""The answers that say the key is missing or refused: the fix is the variable, never a retry."""


def key_hint(environ: Mapping[str, str]) -> str:
    """What to do about a refused key, naming the variable lobrec reads it from."""
    unset = "" if environ.get(KEY_ENV) else f"{KEY_ENV} is not set and this gateway checks keys: "
    return f"{unset}set {KEY_ENV} to a key this gateway accepts"


def never_answered(run: RunResult, stopped: Iterable[str]) -> list[ModelResult]:
    """The models that failed fast with not one case scored."""
    names = set(stopped)
    return [model for model in run.models if model.model in names and model.counts.scored == 0]


def _status(model: ModelResult) -> int | None:
    """The status the gateway last answered this model's first errored case with (None: no answer)."""
    for case in model.cases:
        if case.status == "errored" and case.api_calls:
            return case.api_calls[-1].status
    return None


def _reason(model: ModelResult) -> str:
    return next((case.reason for case in model.cases if case.status == "errored" and case.reason), "")


def _close_name(model: str, reason: str) -> str | None:
    """A model id the gateway named in its answer that is close to the one asked for (a typo)."""
    named = {word.strip("`'\".,;()") for word in re.findall(r"[\w.:-]+/[\w.:/-]+|\bauto\b", reason)}
    named.discard(model)
    found = difflib.get_close_matches(model, sorted(named), n=1, cutoff=0.8)
    return found[0] if found else None


def unanswered_line(
    model: ModelResult,
    command: Callable[[str, bool], str],
    base_url: str,
    folders: Folders,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The one line for a model that never answered: why, what is left on disk, and the command that
    fixes it (`command(name, again)`: the record command for a model name; `again` records into
    what is there, `--missing --retry-errored`).

    An unknown name's folder is removed when this run made it: nothing under a misspelt name is
    worth keeping, and it would fail every later `rescore`. A refused key or an unreachable gateway
    keeps its folder, named in the line with the command that records every case of it."""
    env = os.environ if environ is None else environ
    status, name = _status(model), model.model
    folder = folders.root / model_dir_name(name)
    kept = f"its errored cassettes are kept in {folder}"
    if status in KEY_REFUSED:
        why = f"the gateway refused the key ({status})"
        fix = f"{key_hint(env)}, then run: {command(name, True)}"
    elif status == 404:
        why = f"the gateway knows no model {name} at {base_url} (404)"
        kept = "nothing was kept" if folders.tidy(name) is None else f"{folder} held earlier recordings, kept"
        close = _close_name(name, _reason(model))
        if close is not None:
            fix = f"did you mean {close}? Run: {command(close, False)}"
        else:  # the gateway's own words may list the names it knows
            why = f"{why}: {_reason(model)}" if _reason(model) else why
            fix = f"check the name (and --base-url), then run: {command('MODEL', False)}"
    else:
        why = f"the gateway at {base_url} cannot be reached or does not answer"
        fix = f"start it or correct --base-url, then run: {command(name, True)}"
    return f"{name}: never answered: {why}; {kept}. To fix: {fix}"

"""The settings of a run: every setting's default, the configuration file, and the merge.

The CLI declares its options with no default of its own and fills each from `resolve` (the
constants themselves are in `lobrec.defaults`, importable without msgspec for `--help`). A value
comes from, first found:

    command line  >  environment (LOBSTACK_BASE_URL, base URL only)  >  file  >  built-in default

The file is found from the current folder upwards (ruff's and pytest's convention): the nearest
folder holding a `lobrec.toml` (top-level keys) or a `pyproject.toml` with a `[tool.lobrec]` table;
when one folder holds both, `lobrec.toml` is used (as ruff prefers `ruff.toml`), and files are
never merged. The search stops at the repository's root (the folder holding `.git`) or the home
folder, passes over a file another user owns, and reads at most `MAX_FILE_BYTES` of a file. Paths
in the file are relative to its folder and stay inside it. The API key is never read from a file:
a key-like entry is refused (docs/config.md).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import msgspec

from lobrec.defaults import (
    DEFAULT_CASSETTES,
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_ERRORED,
    DEFAULT_RETRY_DELAYS,
    DEFAULT_TIMEOUT_S,
)
from lobrec.errors import ConfigError
from lobrec.files import read_capped
from lobrec.running.gateway import DEFAULT_BASE_URL, KEY_ENV, URL_ENV, check_url

CONFIG_FILE = "lobrec.toml"
PYPROJECT = "pyproject.toml"

REPORT_KEYS = ("json", "markdown", "html", "csv", "jsonl", "junit", "summary")
"""Report paths a file may set; each is the option of the same name (`html` → `--html`)."""
PATH_KEYS = frozenset({"cassettes", "suite", *REPORT_KEYS})
"""Keys whose value is a path, relative to the file's folder when written relative."""
MAX_FILE_BYTES = 1024 * 1024
"""The most read of a settings file (1 MiB; a real one is a few kilobytes): a larger one is a
one-line error, so a huge or sparse file in a parent folder cannot stall or exhaust a run."""
SECRET_WORDS = ("key", "token", "secret", "password", "auth")
"""A key containing one of these is refused: the API key lives in LOBSTACK_API_KEY only."""


class FileSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """What a configuration file may set (kebab-case keys, as `[tool.ruff]` spells them); every key
    is optional and means the option of the same name."""

    models: list[str] | None = None
    base_url: str | None = None
    cassettes: str | None = None
    concurrency: Annotated[int, msgspec.Meta(ge=1, le=256)] | None = None
    timeout: Annotated[float, msgspec.Meta(ge=0.01)] | None = None
    retry_delays: str | list[float] | None = None
    json: str | None = None
    markdown: str | None = None
    html: str | None = None
    csv: str | None = None
    jsonl: str | None = None
    junit: str | None = None
    summary: str | None = None
    fail_under: Annotated[float, msgspec.Meta(ge=0, le=100)] | str | None = None
    max_errored: str | int | None = None
    suite: str | None = None


SETTING_KEYS = tuple(f.encode_name for f in msgspec.structs.fields(FileSettings))

DEFAULTS: dict[str, Any] = {
    "models": [],
    "base_url": DEFAULT_BASE_URL,
    "cassettes": DEFAULT_CASSETTES,
    "concurrency": DEFAULT_CONCURRENCY,
    "timeout": DEFAULT_TIMEOUT_S,
    "retry_delays": DEFAULT_RETRY_DELAYS,
    **dict.fromkeys(REPORT_KEYS),
    "fail_under": None,
    "max_errored": DEFAULT_MAX_ERRORED,
    "suite": None,
}
"""The built-in default of every setting, the value in force when nothing sets it (None: nothing in
force, the option's own meaning of absent: no report, no score gate, the bundled suite)."""

Source = Literal["command line", "environment", "file", "default"]


class Setting(msgspec.Struct, frozen=True, kw_only=True):
    """One setting in force and where it came from (`where`: the file path or the variable)."""

    key: str
    value: Any
    source: Source
    where: str | None = None


class Resolved(msgspec.Struct, frozen=True, kw_only=True):
    """Every setting in force, by option name (`base_url`), and the file read, if any."""

    settings: dict[str, Setting]
    file: str | None = None
    notes: tuple[str, ...] = ()
    """Lines to say once on stderr: a file passed over, reports from the file not written."""

    def __getitem__(self, name: str) -> Any:
        return self.settings[name].value


def parse_delays(text: str) -> tuple[float, ...]:
    """`--retry-delays` / `retry-delays`: finite, non-negative seconds separated by commas, at least
    one; ValueError otherwise."""
    try:
        delays = tuple(float(part) for part in text.split(","))
    except ValueError:
        delays = ()
    if not delays or not all(math.isfinite(delay) and delay >= 0 for delay in delays):
        raise ValueError(f"{text!r}: expected seconds separated by commas, e.g. {DEFAULT_RETRY_DELAYS}")
    return delays


class Search(NamedTuple):
    """The configuration file found (its path, and whether it is a pyproject.toml), if any, and the
    files passed over because another user owns them."""

    found: tuple[Path, bool] | None
    skipped: tuple[Path, ...] = ()


def find_config(start: Path, home: Path | None = None) -> Search:
    """The nearest configuration file from `start` upwards, and whether it is a pyproject.toml.

    The search ends at the repository's root (a folder holding `.git`, a folder or a worktree's
    file) or at `home` (the home folder), each searched itself: a folder above a project is not the
    project's, and anyone can write in `/tmp`. A file another user owns is passed over (as git
    refuses such a repository) and listed in `skipped`. A pyproject.toml without `[tool.lobrec]` is
    passed over (it configures other tools), as ruff passes over one without `[tool.ruff]`; an
    unreadable one is an error, not passed over.
    """
    skipped: list[Path] = []
    for folder in (start, *start.parents):
        for name, pyproject in ((CONFIG_FILE, False), (PYPROJECT, True)):
            path = folder / name
            if not path.is_file():
                continue
            if not _owned(path):
                skipped.append(path)
            elif not pyproject or _has_table(_read_toml(path)):
                return Search((path, pyproject), tuple(skipped))
        if folder == home or (folder / ".git").exists():
            break
    return Search(None, tuple(skipped))


def _owned(path: Path) -> bool:
    """The file belongs to the user running lobrec (always, where there are no user ids)."""
    user = getattr(os, "geteuid", None)
    try:
        return user is None or path.stat().st_uid == user()
    except OSError:
        return True  # gone or unreadable: reading it says why, in one line


def skipped_note(skipped: tuple[Path, ...]) -> str | None:
    """The one line that says which files another user owns were passed over, or None."""
    if not skipped:
        return None
    files = ", ".join(map(str, skipped))
    return f"passed over {files}: owned by another user; lobrec reads only settings files you own"


def _has_table(pyproject: Mapping[str, Any]) -> bool:
    """The pyproject has a `tool.lobrec` entry (a `tool` that is no table has none: passed over)."""
    tool = pyproject.get("tool")
    return isinstance(tool, dict) and "lobrec" in tool


def _read_toml(path: Path) -> dict[str, Any]:
    """The file as TOML, never more than MAX_FILE_BYTES read; a one-line ConfigError naming it."""
    data = read_capped(path, MAX_FILE_BYTES, "settings file", ConfigError, follow=True)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; TOML files are UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load_file(path: Path, pyproject: bool) -> FileSettings:
    """The settings of one file, paths made absolute from its folder; a one-line ConfigError naming
    the file and key for an unknown key, a wrong type, a bad value or a key-like entry."""
    table: Any = _read_toml(path)
    where = f"{path}: [tool.lobrec]" if pyproject else str(path)
    if pyproject:
        table = table.get("tool", {}).get("lobrec", {})
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: expected a table")
    found = settings_from_table(table, where, path.parent)
    check_links_inside(found, path.parent, where)
    return found


def check_links_inside(found: FileSettings, folder: Path, where: str) -> None:
    """Every path the file set stays inside `folder` once links are followed: a link committed in
    the repository (`out -> ~`) must not carry a report written to `out/.bashrc` out of it."""
    top = os.path.realpath(folder)
    for name in sorted(PATH_KEYS):
        value = getattr(found, name)
        if value is None or value == "-":
            continue
        real = os.path.realpath(value)
        if os.path.commonpath([top, real]) != top:
            raise ConfigError(
                f"{where}: {name.replace('_', '-')}: {value} leads through a link to {real}, outside "
                "the file's folder; a path in a settings file stays inside it (give the option on the "
                "command line for a path outside it)"
            )


def settings_from_table(table: Mapping[str, Any], where: str, folder: Path) -> FileSettings:
    """Decode one `[tool.lobrec]` (or `lobrec.toml`) table named `where` in errors; relative paths
    are joined to `folder` (never touched on disk)."""
    _check_keys(table, where)
    found = _decode(table, where)
    problems = _value_problems(found)
    if problems:
        key, problem = problems[0]
        raise ConfigError(f"{where}: {key}: {problem}")
    changes = {}
    for name in PATH_KEYS:
        value = getattr(found, name)
        if value is not None and not (value == "-" and name in REPORT_KEYS):  # `-`: stdout, for reports only
            changes[name] = inside(folder, value, f"{where}: {name.replace('_', '-')}")
    return msgspec.structs.replace(found, **changes)


def inside(folder: Path, value: str, named: str) -> str:
    """A path from a file, joined to the file's folder; a one-line ConfigError (`named`: the file and
    key) when it would lead outside that folder's tree: absolute, `~`, or `..` past the top.

    A file can be edited by a pull request: a path in it must not reach `~/.bashrc`. The command
    line (typed by the person running lobrec) may give any path. Lexical only; links are checked once
    the file is read (`check_links_inside`).
    """
    import ntpath

    outside = (
        "starts with ~"
        if value.startswith("~")
        else "is absolute"
        if Path(value).is_absolute() or ntpath.isabs(value) or ntpath.splitdrive(value)[0]
        else "leads out of the file's folder"
        if os.path.normpath(value).split(os.sep)[0] == ".."
        else None
    )
    if outside is not None:
        raise ConfigError(
            f"{named}: {value!r} {outside}; a path in a settings file stays inside the file's folder "
            "(give the option on the command line for a path outside it)"
        )
    return str(folder / value)


def _check_keys(table: Mapping[str, Any], where: str) -> None:
    """Refuse a key-like entry (the API key is never read from a file), then an unknown key."""
    for key in table:
        if any(word in key.lower() for word in SECRET_WORDS):
            raise ConfigError(
                f"{where}: {key}: the API key is never read from a file; set {KEY_ENV} in the environment"
            )
    unknown = [key for key in table if key not in SETTING_KEYS]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(SETTING_KEYS)})")


def _decode(table: Mapping[str, Any], where: str) -> FileSettings:
    """The table as FileSettings, a wrong type named by its key; retry delays as a list spelled as
    `--retry-delays` spells them."""
    try:
        found = msgspec.convert(dict(table), FileSettings)
    except msgspec.ValidationError as exc:
        message, _, at = str(exc).partition(" - at `$.")
        key = at.split("`")[0].split("[")[0].split(".")[0] if at else "?"
        raise ConfigError(f"{where}: {key}: {message.replace(' | null', '')}") from None
    if isinstance(found.retry_delays, list):
        found = msgspec.structs.replace(found, retry_delays=",".join(f"{d:g}" for d in found.retry_delays))
    return found


def _refusal(value: Any, check: Callable[[Any], object], errors: type[Exception]) -> str | None:
    """What `check` says against a value set in the file, in the option's words; None when it
    accepts it or nothing is set."""
    if value is None:
        return None
    try:
        check(value)
    except errors as exc:
        return str(exc)
    return None


def _value_problems(found: FileSettings) -> list[tuple[str, str]]:
    """Values of the right type that the option itself would refuse, in the option's words (the
    base URL by the gateway's own rule: an empty one is never replaced by the remote default).
    Retry delays given as a list are already spelt as the option spells them (`_decode`)."""
    from lobrec.core.metrics.gates import parse_allowance, parse_score_percent

    checks: list[tuple[str, Any, Callable[[Any], object], type[Exception]]] = [
        ("base-url", found.base_url, check_url, ConfigError),
        ("retry-delays", found.retry_delays, parse_delays, ValueError),
        ("max-errored", found.max_errored, lambda value: parse_allowance(str(value), ""), ValueError),
        (
            "fail-under",
            found.fail_under,
            lambda value: parse_score_percent(str(value), ""),
            ValueError,
        ),
    ]
    problems = [(key, problem) for key, *check in checks if (problem := _refusal(*check)) is not None]
    if found.models is not None and not all(model.strip() for model in found.models):
        problems.append(("models", "a model name is empty"))
    for name in PATH_KEYS:
        if getattr(found, name) == "":
            problems.append((name.replace("_", "-"), "an empty path"))
    return problems


def merge(
    cli: Mapping[str, Any],
    environ: Mapping[str, str],
    file: FileSettings | None,
    file_path: str | None = None,
) -> Resolved:
    """Command line over environment over file over default, setting by setting (pure).

    `cli` maps option names (`base_url`) to what was given, None or an empty list meaning not
    given; only the base URL has an environment variable.
    """
    settings = {
        name: _setting(name, default, cli.get(name), environ, file, file_path)
        for name, default in DEFAULTS.items()
    }
    return Resolved(settings=settings, file=file_path)


def _setting(
    name: str,
    default: Any,
    given: Any,
    environ: Mapping[str, str],
    file: FileSettings | None,
    file_path: str | None,
) -> Setting:
    """One setting from the first source that gives it: command line, environment, file, default."""
    if given is not None and given != []:
        return Setting(key=name, value=given, source="command line")
    if name == "base_url" and environ.get(URL_ENV):
        return Setting(key=name, value=environ[URL_ENV], source="environment", where=URL_ENV)
    from_file = getattr(file, name) if file is not None else None
    if from_file is not None:
        return Setting(key=name, value=_file_value(name, from_file), source="file", where=file_path)
    return Setting(key=name, value=default, source="default")


def _file_value(name: str, from_file: Any) -> Any:
    """A file's value as the option takes it: `max-errored` as text, `fail-under = "80%"` as a number."""
    from lobrec.core.metrics.gates import parse_score_percent

    if name == "max_errored":
        return str(from_file)
    if name == "fail_under" and isinstance(from_file, str):
        return parse_score_percent(from_file, "fail-under")
    return from_file


def resolve(
    cli: Mapping[str, Any], cwd: Path | None = None, environ: Mapping[str, str] | None = None
) -> Resolved:
    """The settings in force for a command run in `cwd`: the file found there, merged."""
    here = cwd or _current_folder()
    search = find_config(here.resolve(), _home())
    found = search.found
    file = load_file(*found) if found is not None else None
    path = str(found[0]) if found is not None else None
    resolved = reports_for_the_configured_folder(
        merge(cli, os.environ if environ is None else environ, file, path), file, here
    )
    note = skipped_note(search.skipped)
    return resolved if note is None else msgspec.structs.replace(resolved, notes=(note, *resolved.notes))


def reports_for_the_configured_folder(resolved: Resolved, file: FileSettings | None, cwd: Path) -> Resolved:
    """The file's report paths dropped, with a note saying so, when the run's cassettes folder is
    given on the command line and is not the one the file configures (its `cassettes`, else the
    default `cassettes`): the file's `html = "out/report.html"` describes the project's recordings,
    and an ad-hoc `record --cassettes scratch/` must not overwrite it with a page of its own."""
    cassettes = resolved.settings["cassettes"]
    dropped = [name for name in REPORT_KEYS if resolved.settings[name].source == "file"]
    if file is None or cassettes.source != "command line" or not dropped:
        return resolved
    configured = os.path.realpath(cwd / (file.cassettes or DEFAULT_CASSETTES))
    given = os.path.realpath(cwd / str(cassettes.value))
    if configured == given:
        return resolved
    options = ", ".join(f"--{name}" for name in dropped)
    note = (
        f"not writing the reports {resolved.file} sets ({options}): they are for its cassettes folder "
        f"{configured}, and this run's is {given}; give {options} to write them"
    )
    unset = {name: Setting(key=name, value=DEFAULTS[name], source="default") for name in dropped}
    return msgspec.structs.replace(
        resolved, settings={**resolved.settings, **unset}, notes=(*resolved.notes, note)
    )


def _home() -> Path | None:
    """The home folder, where the search for a file ends; None when there is none to find."""
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def _current_folder() -> Path:
    """The folder the command runs in; one that was removed under the shell is a ConfigError (the
    search for the file, and every relative path, start there)."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise ConfigError(
            "the current folder no longer exists (removed while the shell was in it); "
            "cd to a folder that exists"
        ) from None

"""`lobrec audit`: check a cassette directory before it is merged.

Cassettes are contributed in pull requests and replayed by everyone, so a reviewer needs two
answers a diff does not give at a glance: does any file carry a credential (an API key in a header,
a token in a body), and is every file a cassette that replay will accept? Replay already refuses
bad files one case at a time; the audit reports all of them at once, and CI fails on any.

What is a finding, one line each, naming the file (and the JSON path inside it):

- credentials: request headers other than `content-type` (recording keeps only that one, so an
  `authorization` or `api-key` header means the file was not written by lobrec), credential
  response headers (`set-cookie`, `authorization`, ...), and any string that looks like a secret
  (`sk-` keys, `Bearer` tokens, `api_key=` pairs, cloud and chat tokens, private keys, and the
  exact value of `LOBSTACK_API_KEY` when it is set). A finding never prints the secret itself.
- files replay would refuse or misread: symlinks, non-regular files, files over the size cap, bad
  JSON or shape (the same message replay gives), unusable elapsed headers, a manifest that does not
  match its directory, names that are not cassette names, leftover temporary files, cassettes the
  manifest does not list, and request URLs that are not a chat-completions URL.
- repeated runs: each `runs/<n>/` folder of a model folder is audited like the model folder (its
  manifest must name the same model); anything else under `runs/` is a finding, and so is a run
  missing below the highest (replay counts it as unrecorded).

Reading goes through `read_capped`, so the audit itself never follows a symlink, never reads past
the cap and never blocks on a FIFO. Nothing is executed and nothing is written. The one symlink
followed is the root itself, when the folder given is one (`cassettes_root`, the rule `rescore`
follows too).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from lobrec.cassette.format import (
    MAX_CASSETTE_BYTES,
    RecordedRequest,
    RecordedResponse,
    decode_cassette,
    read_capped,
)
from lobrec.cassette.headers import (
    COST_HEADER,
    ELAPSED_HEADER,
    ERROR_HEADER,
    NO_RESPONSE_STATUS,
    RECORDED_REQUEST_HEADERS,
    cost_usd,
    recorded_elapsed,
)
from lobrec.cassette.layout import (
    LOCK,
    MANIFEST,
    MAX_RUNS,
    RUNS_DIR,
    is_case_id,
    model_dir_name,
    model_from_dir_name,
    not_one_model,
    run_gap_problem,
    run_number,
)
from lobrec.cassette.locks import refuse_while_recording
from lobrec.cassette.manifest import load_manifest, manifest_problems
from lobrec.cassette.spellings import holds, spellings
from lobrec.core.metrics.results import SuiteRef
from lobrec.errors import CassetteError, ConfigError
from lobrec.running.gateway import mask_url

ALLOWED_TOP_LEVEL_FILES = frozenset({"README.md", ".gitattributes", ".gitignore"})
"""Files that may sit next to the model directories (they are still scanned for credentials)."""

CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "cookie",
        "set-cookie",
        "www-authenticate",
        "x-auth-token",
    }
)

SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an sk- API key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("a bearer token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*")),
    (
        "an API key assignment",
        re.compile(
            r"(?i)\b(?:api[_-]?key|access[_-]?token|secret[_-]?key)\b\\?[\"']?\s*[:=]\s*\\?[\"']?"
            r"[A-Za-z0-9._~+/-]{8,}"
        ),
    ),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
)
"""What looks like a credential. `<redacted>`, what recording writes over the key, matches none."""

_TEMPORARY = re.compile(r"^\..+\.tmp$")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Finding:
    """One problem, as one line: `path: [json path: ]message`."""

    path: Path
    message: str
    where: str = ""
    """A JSON path inside the file (`$.interactions[0].request.headers.authorization`), if any."""

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{self.path}: {where}{self.message}"


def audit(
    root: Path, *, secrets: Sequence[str | None] = (), suite_version: str | None = None
) -> list[Finding]:
    """Every finding under `root`, in path order; [] when the directory is clean.

    `secrets` are exact values to look for besides the patterns (the CLI passes LOBSTACK_API_KEY).
    `suite_version`, when given, is the suite the cassettes are for: a manifest of another major
    version is a finding, since rescore cannot re-judge it.
    Raises RecordInProgress while a `lobrec record` writes any of its model folders (the lock rule
    of `cassette.locks`), and CassetteError when `root` is not a directory, is one model's own
    folder or is empty (as `rescore` refuses them: a clean result there would vouch for nothing);
    a root that is a symlink to one is followed, as `rescore` follows it (`cassettes_root`), while
    every symlink under it is a finding.
    """
    _auditable(root)
    exact = tuple(secret for secret in secrets if secret and len(secret) >= 8)
    findings: list[Finding] = []
    for entry in _entries(root):
        if entry.is_symlink():
            findings.append(_symlink(entry))
        elif entry.is_dir():
            findings.extend(_model_directory(entry, exact, suite_version))
        elif entry.name in ALLOWED_TOP_LEVEL_FILES:
            findings.extend(_raw_scan(entry, exact))
        else:
            findings.append(Finding(entry, "not a model directory (only model directories belong here)"))
    masked = [
        Finding(Path(_masked(str(f.path), exact)), _masked(f.message, exact), _masked(f.where, exact))
        for f in findings
    ]
    return sorted(masked, key=lambda finding: (str(finding.path), finding.where, finding.message))


def _auditable(root: Path) -> None:
    """Refuse a root that is one model's folder, an empty one, or one a record is writing (its
    half-written state would read as findings)."""
    not_one_model(root)
    if not any(root.iterdir()):
        raise CassetteError(f"{root}: an empty folder; nothing to audit")
    refuse_while_recording([entry for entry in _entries(root) if entry.is_dir() and not entry.is_symlink()])


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.iterdir(), key=lambda path: path.name)


def _symlink(path: Path) -> Finding:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    kind = "model directories" if path.is_dir() else "cassettes"
    noun = "real directories" if path.is_dir() else "regular files"
    return Finding(path, f"is a symlink (to {target}); {kind} must be {noun}")


# --- a model directory ----------------------------------------------------------------------------


def _model_directory(
    directory: Path, exact: tuple[str, ...], suite_version: str | None, owner: str | None = None
) -> Iterator[Finding]:
    """A model folder, or with `owner` (the model folder's name) one of its `runs/<n>/` folders."""
    name = directory.name if owner is None else owner
    if owner is None and not _is_model_dir_name(name):
        yield Finding(directory, "not a model directory name (a percent-encoded model name)")
    listed, problems = _manifest_of(directory, exact, suite_version, name)
    yield from problems
    for entry in _entries(directory):
        if entry.name == MANIFEST:
            continue
        if entry.name == RUNS_DIR and owner is None and not entry.is_symlink():
            yield from _runs(entry, exact, suite_version, name)
        else:
            yield from _entry(entry, exact, listed)
    yield from _listed_without_cassette(directory, listed or set())


def _listed_without_cassette(directory: Path, listed: set[str]) -> Iterator[Finding]:
    for case_id in sorted(listed):
        if is_case_id(case_id) and not (directory / f"{case_id}.json").exists():
            yield Finding(
                directory / MANIFEST, f"lists case {case_id!r}, which has no cassette", f"$.cases.{case_id}"
            )


def _is_model_dir_name(name: str) -> bool:
    try:
        return model_dir_name(model_from_dir_name(name)) == name
    except ConfigError:
        return False


def _manifest_of(
    directory: Path, exact: tuple[str, ...], suite_version: str | None, owner: str
) -> tuple[set[str] | None, list[Finding]]:
    """The cases a folder's manifest lists (None without a readable one) and its findings."""
    path = directory / MANIFEST
    if path.is_symlink():
        return None, [_symlink(path)]
    if not path.exists():
        return None, [Finding(directory, f"no {MANIFEST}")]
    return _manifest(directory, path, exact, suite_version, owner)


def _entry(entry: Path, exact: tuple[str, ...], listed: set[str] | None) -> Iterator[Finding]:
    """One entry of a model or run folder, other than its manifest and `runs/`."""
    if entry.name == LOCK and entry.is_file() and not entry.is_symlink():
        yield from _raw_scan(entry, exact)  # the writer lock: a pid, nothing else
    elif entry.is_symlink():
        yield _symlink(entry)
    elif _TEMPORARY.match(entry.name):
        yield Finding(entry, "a temporary file left by an interrupted write; delete it")
        yield from _raw_scan(entry, exact)
    elif entry.is_dir():
        yield Finding(entry, "not a regular file")
    elif not _is_case_file(entry.name):
        yield Finding(entry, "not a cassette file name (<case-id>.json)")
        yield from _raw_scan(entry, exact)
    else:
        yield from _cassette(entry, exact)
        if listed is not None and entry.name.removesuffix(".json") not in listed:
            yield Finding(entry, f"not listed in {MANIFEST}: replay treats the case as stale")


def _runs(runs: Path, exact: tuple[str, ...], suite_version: str | None, owner: str) -> Iterator[Finding]:
    """A model folder's `runs/`: run folders 2..K, each audited like the model folder, no gaps."""
    if not runs.is_dir():
        yield Finding(runs, f"not a folder ({RUNS_DIR}/ holds the run folders {RUNS_DIR}/<n>/)")
        yield from _raw_scan(runs, exact)
        return
    numbers = []
    for entry in _entries(runs):
        number = run_number(entry.name)
        if entry.is_symlink():
            yield _symlink(entry)
        elif number is None or not entry.is_dir():
            yield Finding(
                entry,
                f"not a run folder (runs 2 to {MAX_RUNS} live in {RUNS_DIR}/<n>/, n in decimal "
                "without leading zeros; run 1 is the model folder itself)",
            )
            if entry.is_file():
                yield from _raw_scan(entry, exact)
        else:
            numbers.append(number)
            yield from _model_directory(entry, exact, suite_version, owner)
    present = set(numbers)
    too_many = run_gap_problem(runs, numbers)
    if too_many is not None:
        yield Finding(runs, too_many.removeprefix(f"{runs}: "))
        return
    for missing in range(2, max(numbers, default=1)):
        if missing not in present:
            yield Finding(
                runs / str(missing),
                f"missing: the highest run is {max(numbers)}, so run {missing} counts as unrecorded",
            )


def _is_case_file(name: str) -> bool:
    return name.endswith(".json") and is_case_id(name.removesuffix(".json"))


def _manifest(
    directory: Path, path: Path, exact: tuple[str, ...], suite_version: str | None, owner: str
) -> tuple[set[str] | None, list[Finding]]:
    """A manifest's findings; `owner` is the model folder's name, which its model must give."""
    try:
        manifest = load_manifest(directory)
    except CassetteError as exc:
        return None, [_from_error(path, exc), *_raw_scan(path, exact)]
    problems = [
        Finding(path, problem.finding, problem.field)
        for problem in manifest_problems(manifest, directory, owner, _judging(suite_version))
    ]
    problems.extend(_scan(path, msgspec.to_builtins(manifest), "$", exact))
    return set(manifest.cases), problems


def _judging(suite_version: str | None) -> SuiteRef | None:
    """The suite the audit holds manifests against (only its version is read)."""
    return None if suite_version is None else SuiteRef(name="", version=suite_version)


# --- one cassette ---------------------------------------------------------------------------------


def _cassette(path: Path, exact: tuple[str, ...]) -> Iterator[Finding]:
    try:
        data = read_capped(path, MAX_CASSETTE_BYTES)
    except CassetteError as exc:
        yield _from_error(path, exc)
        return
    try:
        cassette = decode_cassette(data, path)  # the exact check (and message) replay applies
    except CassetteError as exc:
        yield _from_error(path, exc)
        yield from _raw_scan(path, exact, data)
        return
    if not cassette.interactions:
        yield Finding(path, "no interactions (a recorded case has at least one)")
    for index, interaction in enumerate(cassette.interactions):
        yield from _request(path, interaction.request, f"$.interactions[{index}].request")
        yield from _response(path, interaction.response, f"$.interactions[{index}].response")
    yield from _scan(path, msgspec.to_builtins(cassette), "$", exact)


def _request(path: Path, request: RecordedRequest, where: str) -> Iterator[Finding]:
    if request.method != "POST":
        yield Finding(path, f"method {request.method!r}, expected 'POST'", f"{where}.method")
    if not _is_chat_url(request.uri):
        yield Finding(path, f"not a chat-completions URL: {_preview(mask_url(request.uri))}", f"{where}.uri")
    for name in request.headers:
        lowered = name.lower()
        if lowered in CREDENTIAL_HEADERS:
            yield Finding(path, "a credential header in a request", f"{where}.headers.{name}")
        elif lowered not in RECORDED_REQUEST_HEADERS:
            yield Finding(
                path, "a request header lobrec never records (only content-type)", f"{where}.headers.{name}"
            )


def _response(path: Path, response: RecordedResponse, where: str) -> Iterator[Finding]:
    for name in response.headers:
        if name.lower() in CREDENTIAL_HEADERS:
            yield Finding(path, "a credential header in a response", f"{where}.headers.{name}")
    yield from _check_elapsed(path, response.headers, f"{where}.headers.{ELAPSED_HEADER}")
    yield from _check_cost(path, response.headers, f"{where}.headers.{COST_HEADER}")
    yield from _lone_surrogates(path, response.body.string, f"{where}.body.string")
    if response.status.code != NO_RESPONSE_STATUS and response.headers.get(ERROR_HEADER):
        yield Finding(path, f"{ERROR_HEADER} on a status-{response.status.code} answer", where)
    for name in response.headers:
        if name.lower() == "content-encoding":
            yield Finding(
                path,
                "content-encoding on a recorded body (cassettes hold decoded text; replay ignores it)",
                f"{where}.headers.{name}",
            )


def _check_elapsed(path: Path, headers: dict[str, list[str]], where: str) -> Iterator[Finding]:
    values = headers.get(ELAPSED_HEADER)
    if values is None:
        return
    try:
        recorded_elapsed(headers)  # replay's rule
    except (ValueError, IndexError):
        shown = values[0] if len(values) == 1 else values
        yield Finding(path, f"{_preview(shown)} is not a duration in ms", where)


def _check_cost(path: Path, headers: dict[str, list[str]], where: str) -> Iterator[Finding]:
    values = headers.get(COST_HEADER)
    if values is not None and cost_usd(", ".join(values)) is None:
        shown = _preview(", ".join(values))
        yield Finding(path, f"{shown} is not a credible price (the call counts as unpriced)", where)


def _is_chat_url(uri: str) -> bool:
    parts = urlsplit(uri)
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and parts.username is None
        and parts.password is None
        and not parts.query
        and parts.path.endswith("/chat/completions")
    )


def _from_error(path: Path, exc: CassetteError) -> Finding:
    """A loader's error (which starts with the path) as a finding for that path."""
    message = str(exc)
    prefix = f"{path}: "
    return Finding(path, message.removeprefix(prefix))


# --- credentials ---------------------------------------------------------------------------------


def _scan(path: Path, value: Any, where: str, exact: tuple[str, ...]) -> Iterator[Finding]:
    """Every string (keys included) of a decoded file, checked for secrets."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, str):
            yield from _secrets_in(path, node, here, exact)
        elif isinstance(node, dict):
            for key, item in node.items():
                child = f"{here}.{key}" if re.fullmatch(r"[A-Za-z0-9_-]+", str(key)) else f"{here}[{key!r}]"
                yield from _secrets_in(path, str(key), child, exact)
                stack.append((item, child))
        elif isinstance(node, list):
            stack.extend((item, f"{here}[{index}]") for index, item in enumerate(node))


def _raw_scan(path: Path, exact: tuple[str, ...], data: bytes | None = None) -> Iterator[Finding]:
    """Secrets in a file that is not a well-formed cassette, by line."""
    if data is None:
        try:
            data = read_capped(path, MAX_CASSETTE_BYTES)
        except CassetteError:
            return
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        yield from _secrets_in(path, line, f"line {number}", exact)


def _secrets_in(path: Path, text: str, where: str, exact: tuple[str, ...]) -> Iterator[Finding]:
    for secret in exact:
        if holds(text, secret):
            yield Finding(path, "holds the value of LOBSTACK_API_KEY", where)
    for kind, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            yield Finding(path, f"looks like {kind} ({_mask(match.group())})", where)


def _mask(secret: str) -> str:
    """Enough to find it, never enough to use it: the first 6 characters and the length."""
    return f"{secret[:6]}…, {len(secret)} characters"


def _masked(text: str, exact: tuple[str, ...]) -> str:
    """`text` (a finding's path or message) with every secret in it masked as `_mask` shows one:
    a JSON key, a header name or a file name can be the secret as much as a value can."""
    for secret in exact:
        for form in spellings(secret):
            text = text.replace(form, f"<{_mask(form)}>")
    for _, pattern in SECRET_PATTERNS:
        text = pattern.sub(lambda match: f"<{_mask(match.group())}>", text)
    return text


def _lone_surrogates(path: Path, text: str, where: str) -> Iterator[Finding]:
    """A body (or a JSON text inside one, a call's arguments) that escapes a lone surrogate
    (`"\\ud800"`): valid JSON, but no UTF-8 text can hold the character; replay reads it as
    U+FFFD and the reports spell it out, so a reviewer should know it is there."""
    if "\\u" not in text:
        return
    for string in _json_strings(text, depth=3):
        found = _SURROGATE.search(string)
        if found:
            yield Finding(
                path, f"escapes a lone surrogate (\\u{ord(found.group()):04x}); replay reads U+FFFD", where
            )
            return


def _json_strings(text: str, depth: int) -> Iterator[str]:
    """Every string of `text` read as JSON, and of the JSON texts inside them, `depth` levels down."""
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return
    stack = [parsed]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
            if depth > 1 and node.lstrip().startswith(("{", "[", '"')):
                yield from _json_strings(node, depth - 1)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())


def _preview(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"

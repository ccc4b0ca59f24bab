"""The suite file's types, and strict decoding of it.

The Structs *are* the file format: unknown fields are errors, so a typo in a hand-written case
fails loudly instead of silently defaulting. Decoding is pure (bytes in, `Suite` out); reading the
file from disk is the shell's job (`lobrec.suite_file`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any, Literal

import msgspec

from lobrec.core.judge.jsonvalue import duplicate_key, too_deep
from lobrec.core.memo import per_object
from lobrec.core.suite.jsonschema import MAX_DEPTH as SCHEMA_MAX_DEPTH
from lobrec.errors import SuiteError

Group = Literal["selection", "arguments", "near_misses", "no_call", "parallel", "chains"]
GROUPS: tuple[Group, ...] = ("selection", "arguments", "near_misses", "no_call", "parallel", "chains")


def ordered_groups(groups: Iterable[str]) -> list[str]:
    """The suite's group order first, then any other group names alphabetically."""
    present = set(groups)
    return [group for group in GROUPS if group in present] + sorted(present - set(GROUPS))


SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


def version_order(version: str) -> tuple[int, ...]:
    """A SEMVER version's (major, minor, patch), for comparing versions; labels are ignored."""
    return tuple(int(part) for part in version.split("-")[0].split("+")[0].split("."))


MAX_DEPTH = 128
"""How deeply a suite file may nest arrays and objects. A tool schema may nest `SCHEMA_MAX_DEPTH`
(64) levels below its place in the file; every parser and judge that walks the suite recurses once
per level, so a deeper file is refused before anything reads it."""

MAX_CASE_ID_LENGTH = 64
CASE_ID_RULE = (
    f"a case id is 1 to {MAX_CASE_ID_LENGTH} ASCII letters, digits, '_', '.' and '-', starting with "
    "a letter or digit"
)
"""Case ids name cassette files (`<id>.json`), so every id must be a plain file name anywhere."""
_CASE_ID_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


@functools.lru_cache(maxsize=4096)
def case_id_problem(case_id: str) -> str | None:
    """Why `case_id` cannot be a case id (it could not name its cassette file), or None.

    The one rule for ids: `lobrec suite check`, `record`, `rescore` and the cassette layer all ask
    here, so an id the check accepts is one recording can write. Remembered per id: a rescore asks
    about the same 80 ids for every model.
    """
    if not case_id:
        return "it is empty"
    if len(case_id) > MAX_CASE_ID_LENGTH:
        return f"it is {len(case_id)} characters long, over {MAX_CASE_ID_LENGTH}"
    for char in case_id:
        if char not in _CASE_ID_CHARACTERS:
            return f"it holds {_describe(char)}"
    if not case_id[0].isalnum():
        return f"it starts with {case_id[0]!r}"
    if ".." in case_id:
        return "it holds '..'"
    if case_id.endswith("."):
        return "it ends in '.'"
    return None


def shown_id(case_id: str, limit: int = 40) -> str:
    """A case id for a message: quoted, control characters escaped, a long one cut short."""
    if len(case_id) <= limit:
        return repr(case_id)
    return f"{case_id[:limit]!r}... ({len(case_id)} characters)"


def case_label(case_id: str) -> str:
    """How every message names a case: `case sel-01`, the id quoted and escaped when it is not a safe id."""
    return f"case {case_id if case_id_problem(case_id) is None else shown_id(case_id)}"


def _describe(char: str) -> str:
    if char == " ":
        return "a space"
    if char == "/" or char == "\\":
        return f"a path separator {char!r}"
    if not char.isprintable():
        return f"the control character {char!r}"
    return f"{char!r}"


class Strict(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True, omit_defaults=True):
    """Base for every suite Struct: strict, immutable, keyword-only, compact when encoded.

    msgspec passes these options on to subclasses; each subclass says `frozen=True` again for the
    type checker, which reads every class's own keywords (dataclass_transform) and would otherwise
    take it for a mutable class inheriting from a frozen one."""


# --- tools ---------------------------------------------------------------------------------------


class FunctionSpec(Strict, frozen=True, kw_only=True, weakref=True):
    name: str
    description: str = ""
    parameters: dict[str, Any]


class Tool(Strict, frozen=True, kw_only=True):
    """An OpenAI-style function tool, exactly as it is sent to the gateway."""

    type: Literal["function"]
    function: FunctionSpec

    @property
    def name(self) -> str:
        return self.function.name


# --- messages ------------------------------------------------------------------------------------


class Message(Strict, frozen=True, kw_only=True):
    """A chat message as sent to the gateway."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None


# --- argument checks (a tagged union on "kind") -------------------------------------------------


class CheckBase(Strict, tag_field="kind", frozen=True, kw_only=True):
    arg: str
    """The top-level argument the check addresses."""


class Eq(CheckBase, tag="eq", frozen=True, kw_only=True):
    value: Any


class Subset(CheckBase, tag="subset", frozen=True, kw_only=True):
    value: dict[str, Any] | list[Any]


class Regex(CheckBase, tag="regex", frozen=True, kw_only=True):
    pattern: str


class OneOf(CheckBase, tag="oneOf", frozen=True, kw_only=True):
    values: list[Any]


class Contains(CheckBase, tag="contains", frozen=True, kw_only=True):
    value: str


class Present(CheckBase, tag="present", frozen=True, kw_only=True):
    pass


class Absent(CheckBase, tag="absent", frozen=True, kw_only=True):
    pass


class Range(CheckBase, tag="range", frozen=True, kw_only=True):
    min: float | None = None
    max: float | None = None
    optional: bool = False
    """Also pass when the argument is left out (or null), as `oneOf [..., null]` does: "a limit
    of at least the default, or none" without listing every allowed number."""


Check = Eq | Subset | Regex | OneOf | Contains | Present | Absent | Range


# --- steps ---------------------------------------------------------------------------------------


class ExpectedCall(Strict, frozen=True, kw_only=True):
    """One call a step expects: the tool's name and the checks its arguments must pass.

    `answer` is the reference arguments a perfect model would send (used by `lobrec suite check`
    and by the fake gateway's oracle). `result` is the scripted tool output the runner sends back
    for the model's call matched to this one, when another step follows.
    """

    name: str
    checks: list[Check] = []
    answer: dict[str, Any]
    result: str | None = None


class AnswerCall(Strict, frozen=True, kw_only=True):
    """One call of a hand-written sample answer: a tool name and its arguments."""

    name: str
    arguments: dict[str, Any]


class SampleAnswer(Strict, frozen=True, kw_only=True):
    """A whole reply to one step, written by hand to test the step's checks.

    As a `wrong` answer it is a plausible mistake the judge must reject, `why` saying what is
    wrong; as an alternate it is another right answer the judge must accept. `calls` may be empty
    (the model answered in text).
    """

    why: str
    calls: list[AnswerCall]


class CallStep(Strict, tag_field="expect", tag="call", frozen=True, kw_only=True):
    """A step that expects one or more calls in a single response.

    `wrong` and `alternates` are never sent; `lobrec suite check` judges each through the real
    judge: every alternate must pass this step, every wrong answer must fail it.
    """

    calls: list[ExpectedCall]
    alternates: list[SampleAnswer] = []
    wrong: list[SampleAnswer] = []


class NoCallStep(Strict, tag_field="expect", tag="no_call", frozen=True, kw_only=True):
    """A step that expects a text answer and no tool call; `answer` is a reference reply."""

    answer: str = ""


Step = CallStep | NoCallStep


# --- cases and the suite -------------------------------------------------------------------------


class Case(Strict, frozen=True, kw_only=True):
    id: str
    group: Group
    note: str = ""
    """What the case tests, for people reading the suite; never sent."""
    tools: list[str]
    """Names of the suite tools offered to the model, in the order they are sent."""
    messages: list[Message]
    steps: list[Step]


class Suite(Strict, frozen=True, kw_only=True, weakref=True):
    name: str
    version: str
    system_prompt: str
    counts: dict[Group, int] | None = None
    """Cases per group, as this version declares them; absent in 1.0.0, which is held to its own."""
    tools: list[Tool]
    cases: list[Case]

    @property
    def major(self) -> int:
        return int(self.version.split(".", 1)[0])

    def tool(self, name: str) -> Tool | None:
        for tool in self.tools:
            if tool.function.name == name:
                return tool
        return None

    def case(self, case_id: str) -> Case | None:
        """The first case with this id (an index built once per suite: judging asks per result)."""
        return _case_index(self).get(case_id)

    def offered_tools(self, case: Case) -> list[Tool]:
        """The Tool objects a case sends, in order; unknown names are skipped (the check reports them)."""
        by_name = _tool_index(self)
        return [by_name[name] for name in case.tools if name in by_name]


@per_object
def _tool_index(suite: Suite) -> dict[str, Tool]:
    return {tool.function.name: tool for tool in suite.tools}


@per_object
def _case_index(suite: Suite) -> dict[str, Case]:
    index: dict[str, Case] = {}
    for case in suite.cases:
        index.setdefault(case.id, case)
    return index


_suite_decoder = msgspec.json.Decoder(Suite)


def decode_suite(data: bytes | str, source: str = "suite.json") -> Suite:
    """Decode a suite file strictly; errors name `source` and the JSON path.

    An object with a repeated key is refused: msgspec would keep the last, silently. So is a file
    nested deeper than `MAX_DEPTH`, with one line naming where, before any parser recurses into it.
    """
    deep = too_deep(data, MAX_DEPTH)
    if deep is not None:
        raise SuiteError(f"{source}: {_position(data, deep)}: {_too_deep_message()}")
    repeated = duplicate_key(data)
    if repeated is not None:
        raise SuiteError(f"{source}: {repeated}")
    try:
        return _suite_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise SuiteError(f"{source}: {_explained(str(exc), data)}") from None
    except msgspec.DecodeError as exc:
        raise SuiteError(f"{source}: not valid JSON: {exc}") from None
    except RecursionError:  # the scan above keeps files this deep out; never a traceback regardless
        raise SuiteError(f"{source}: {_too_deep_message()}") from None


def _tags(union: Any) -> list[str]:
    return [str(member.__struct_config__.tag) for member in union.__args__]


_TAGS = {"kind": ("a check's kind", _tags(Check)), "expect": ("a step's expect", _tags(Step))}
"""The tag fields a suite file spells, and their valid values, named when a value is not one."""
_CASE_PATH = re.compile(r"`\$\.cases\[(\d+)\]\.?([^`]*)`")


def _explained(message: str, data: bytes | str) -> str:
    """msgspec's `Invalid value 'equals' - at `$.cases[14].steps[0]...kind``, said by case id with
    the valid values: `case arg-01: Invalid value 'equals' - at `steps[0]...kind`; a check's kind is
    one of: eq, subset, ...`. Other messages are kept as they are."""
    found = _CASE_PATH.search(message)
    if found is not None:
        index, rest = int(found.group(1)), found.group(2)
        try:
            case = msgspec.json.decode(data)["cases"][index]
            case_id = case["id"] if isinstance(case, dict) and isinstance(case.get("id"), str) else None
        except (msgspec.DecodeError, KeyError, IndexError, TypeError):
            case_id = None
        if case_id is not None:
            where = f"`{rest}`" if rest else "the case"
            message = f"{case_label(case_id)}: {message[: found.start()]}{where}{message[found.end() :]}"
    field = message.rstrip("`").rsplit(".", 1)[-1]
    if "Invalid value" in message and field in _TAGS:
        what, values = _TAGS[field]
        message += f"; {what} is one of: {', '.join(values)}"
    return message


def _too_deep_message() -> str:
    return (
        f"nested more than {MAX_DEPTH} levels deep; a suite file nests arrays and objects at most "
        f"{MAX_DEPTH} levels (a tool schema at most {SCHEMA_MAX_DEPTH})"
    )


def _position(data: bytes | str, offset: int) -> str:
    """`line L, column C` of a byte offset (1-based; the column counts bytes)."""
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    line = text.count(b"\n", 0, offset) + 1
    column = offset - (text.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def encode_suite(suite: Suite) -> bytes:
    """The canonical, human-diffable form of a suite (two-space indent, trailing newline)."""
    return msgspec.json.format(msgspec.json.encode(suite), indent=2) + b"\n"

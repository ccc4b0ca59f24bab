"""The scripted models: which case and step a request is, and what each fixture model answers.

Pure functions of the suite and the request bytes (and, for `fixture/flaky`, the run number the
server counts), so every model's answers can be tested without a socket.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import msgspec

from lobrec.core.judge.jsonvalue import json_type
from lobrec.core.suite.format import CallStep, Case, NoCallStep, SampleAnswer, Suite
from lobrec.errors import ConfigError
from lobrec.fakegateway.completions import (
    ChatCall,
    FakeReply,
    Turn,
    completion_body,
    error_reply,
    json_bytes,
    parse_request,
    price,
)

ORACLE = "fixture/oracle"
SILENT = "fixture/silent"
EAGER = "fixture/eager"
SLOPPY = "fixture/sloppy"
NO_TEMPERATURE = "fixture/no-temperature"
UNPRICED = "fixture/unpriced"
PLAUSIBLE = "fixture/plausible"
FLAKY = "fixture/flaky"
AUTO = "auto"
ALPHA = "fake/alpha"
BETA = "fake/beta"
MODELS: tuple[str, ...] = (
    ORACLE,
    SILENT,
    EAGER,
    SLOPPY,
    NO_TEMPERATURE,
    UNPRICED,
    PLAUSIBLE,
    FLAKY,
    AUTO,
    ALPHA,
    BETA,
)
AUTO_CHOICES: tuple[str, str] = (ALPHA, BETA)
"""The models `auto` routes to, picked by case; `auto` answers as the model it picks, and each is
also served under its own name, so a routing view can compare Nex's choices with the candidates."""
ROUTED_MISS = 4
"""`fake/alpha` and `fake/beta` each get one case in about ROUTED_MISS wrong (by a hash of the case
id salted with the model's name, so they miss different cases and the choice matters)."""

UNKNOWN_CASE = "I don't know this case."
NO_MORE_STEPS = "This case has no more steps."
SILENT_REPLY = "I can't help with tools right now."
NO_TOOLS_OFFERED = "No tools were offered."
DONE = "Done."
MADE_UP_FALLBACK = "lookup"


class Location(msgspec.Struct, frozen=True, kw_only=True):
    """The case a request belongs to, and the step it asks for (0-based)."""

    case: Case
    step: int


# --- which case and step ------------------------------------------------------------------------


def _prefix_matches(messages: list[dict[str, Any]], offset: int, case: Case) -> bool:
    if len(messages) < offset + len(case.messages):
        return False
    return all(
        got.get("role") == want.role and got.get("content") == want.content
        for got, want in zip(messages[offset:], case.messages, strict=False)
    )


def _case_offset(messages: list[dict[str, Any]], case: Case) -> int | None:
    """Where the case's messages start in the request (0, or 1 after a system prompt), or None."""
    if not case.messages:
        return None
    skip_system = messages[0].get("role") == "system" and case.messages[0].role != "system"
    offset = 1 if skip_system else 0
    return offset if _prefix_matches(messages, offset, case) else None


def locate(suite: Suite, messages: list[dict[str, Any]]) -> Location | None:
    """Find the case whose messages start the request, and the step asked for.

    The runner may or may not put the system prompt before a case's own messages, so a leading
    system message is skipped when the case does not start with one. The step is the number of
    assistant turns after the case's messages. The longest matching case wins.
    """
    best: tuple[Case, int] | None = None
    for case in suite.cases:
        offset = _case_offset(messages, case)
        if offset is not None and (best is None or len(case.messages) > len(best[0].messages)):
            best = (case, offset)
    if best is None:
        return None
    case, offset = best
    asked = messages[offset + len(case.messages) :]
    return Location(case=case, step=sum(1 for message in asked if message.get("role") == "assistant"))


# --- scripted models ------------------------------------------------------------------------------


def _arguments(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False)


def oracle_turn(location: Location | None) -> Turn:
    """The suite's reference answer for the step: every expected call, or the reference text."""
    if location is None:
        return Turn(content=UNKNOWN_CASE)
    if location.step >= len(location.case.steps):
        return Turn(content=NO_MORE_STEPS)
    step = location.case.steps[location.step]
    if isinstance(step, NoCallStep):
        return Turn(content=step.answer or DONE)
    return Turn(calls=[(call.name, _arguments(call.answer)) for call in step.calls])


SloppyBehaviour = Literal[
    "correct", "wrong_tool", "made_up_name", "not_json", "schema_break", "parallel_split", "needless_call"
]
SLOPPY_BEHAVIOURS: tuple[SloppyBehaviour, ...] = (
    "correct",
    "wrong_tool",
    "correct",
    "made_up_name",
    "correct",
    "not_json",
    "correct",
    "schema_break",
    "parallel_split",
    "needless_call",
)
"""Four slots in ten are correct; a mistake that does not fit the step (a split of one call, a
needless call where a call is due) leaves it correct, so about half the cases pass."""


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def sloppy_plan(case: Case) -> tuple[SloppyBehaviour, int]:
    """The mistake `fixture/sloppy` makes on a case, and the step it makes it at (by case-id hash)."""
    digest = _digest(case.id)
    return SLOPPY_BEHAVIOURS[digest[0] % len(SLOPPY_BEHAVIOURS)], digest[1] % max(1, len(case.steps))


def _made_up(name: str, taken: set[str]) -> str:
    candidate = f"{name}_v2"
    while candidate in taken:
        candidate += "_v2"
    return candidate


_WRONG_VALUES: tuple[Any, ...] = (12345, "not-a-number", True, ["unexpected"], {"unexpected": 1}, None)


def _allowed_types(parameters: dict[str, Any], key: str, value: Any) -> set[str]:
    """The JSON types the schema lets argument `key` take (the value's own when it declares none)."""
    properties = parameters.get("properties")
    schema = properties.get(key) if isinstance(properties, dict) else None
    declared = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(declared, str):
        allowed = {declared}
    elif isinstance(declared, list):
        allowed = {kind for kind in declared if isinstance(kind, str)}
    else:
        allowed = {json_type(value)}
    if "number" in allowed:
        allowed.add("integer")
    return allowed


def break_schema(arguments: dict[str, Any], parameters: dict[str, Any]) -> str:
    """Arguments with the first one's value of a type its schema does not allow (`[]` if none)."""
    if not arguments:
        return "[]"
    key = next(iter(arguments))
    allowed = _allowed_types(parameters, key, arguments[key])
    for wrong in _WRONG_VALUES:
        if json_type(wrong) not in allowed:
            return _arguments({**arguments, key: wrong})
    return "[]"


def _needless_call(offered: Sequence[str]) -> Turn:
    """A call where none is due: to the first tool offered (a made-up one when none is)."""
    return Turn(calls=[(offered[0] if offered else MADE_UP_FALLBACK, "{}")])


def _made_up_name(suite: Suite, step: CallStep, offered: Sequence[str], turn: Turn) -> Turn:
    taken = set(offered) | {tool.name for tool in suite.tools}
    return Turn(calls=[(_made_up(step.calls[0].name, taken), turn.calls[0][1]), *turn.calls[1:]])


def _wrong_tool(suite: Suite, step: CallStep, offered: Sequence[str], turn: Turn) -> Turn:
    """The first call's arguments sent to another tool offered (a made-up one when none is)."""
    expected_names = {call.name for call in step.calls}
    others = [name for name in offered if name not in expected_names]
    if not others:
        return _made_up_name(suite, step, offered, turn)
    return Turn(calls=[(others[0], turn.calls[0][1]), *turn.calls[1:]])


def _not_json(suite: Suite, step: CallStep, offered: Sequence[str], turn: Turn) -> Turn:
    name, arguments = turn.calls[0]
    return Turn(calls=[(name, arguments[: len(arguments) // 2]), *turn.calls[1:]])


def _schema_break(suite: Suite, step: CallStep, offered: Sequence[str], turn: Turn) -> Turn:
    first = step.calls[0]
    tool = suite.tool(first.name)
    parameters = tool.function.parameters if tool is not None else {}
    return Turn(calls=[(first.name, break_schema(first.answer, parameters)), *turn.calls[1:]])


def _parallel_split(suite: Suite, step: CallStep, offered: Sequence[str], turn: Turn) -> Turn:
    return Turn(calls=turn.calls[:1])


_MISTAKES: dict[SloppyBehaviour, Callable[[Suite, CallStep, Sequence[str], Turn], Turn]] = {
    "wrong_tool": _wrong_tool,
    "made_up_name": _made_up_name,
    "not_json": _not_json,
    "schema_break": _schema_break,
    "parallel_split": _parallel_split,
}
"""Each mistake at a call step; `correct` and `needless_call` leave a call step's turn as it is."""


def sloppy_turn(suite: Suite, location: Location, offered: Sequence[str], behaviour: SloppyBehaviour) -> Turn:
    """The oracle's turn for the step with one of the mistakes real models make."""
    turn = oracle_turn(location)
    if behaviour == "correct" or location.step >= len(location.case.steps):
        return turn
    step = location.case.steps[location.step]
    if isinstance(step, NoCallStep):
        return _needless_call(offered)
    mistake = _MISTAKES.get(behaviour)
    return turn if mistake is None else mistake(suite, step, offered, turn)


def plausible_turn(location: Location) -> Turn | None:
    """`fixture/plausible`: at each call step, one of the suite's own wrong answers (by case hash).

    The mistakes a weaker model makes (a date a week off, an unasked filter, a contradicting
    message), so a rescore across suite versions shows the cases a tightened check now fails.
    None where the step has no wrong answers (the oracle answers instead).
    """
    if location.step >= len(location.case.steps):
        return None
    step = location.case.steps[location.step]
    if not isinstance(step, CallStep) or not step.wrong:
        return None
    return _sample_turn(step.wrong[_digest(f"{location.case.id}/{location.step}")[0] % len(step.wrong)])


def _sample_turn(sample: SampleAnswer) -> Turn:
    """A hand-written sample answer as the model's turn (`"Done."` when it makes no call)."""
    if not sample.calls:
        return Turn(content=DONE)
    return Turn(calls=[(call.name, _arguments(call.arguments)) for call in sample.calls])


FLAKY_CYCLE: tuple[str, ...] = ("sel-03", "arg-02", "near-03", "par-04", "chain-02", "sel-07")
"""Cases where `fixture/flaky` passes run k unless (k + i) % 3 == 0, i being the case's index here."""
FLAKY_FIRST_RUN_ONLY = "arg-09"
"""The case `fixture/flaky` passes on run 1 only."""
FLAKY_NEVER = "near-08"
"""The case `fixture/flaky` fails on every run."""
FLAKY_CASES: tuple[str, ...] = (*FLAKY_CYCLE, FLAKY_FIRST_RUN_ONLY, FLAKY_NEVER)
"""Suite 1.1.0 cases from five groups, all with a call step first; every other case is the oracle's."""


def flaky_passes(case_id: str, run: int) -> bool:
    """Whether `fixture/flaky` answers run `run` (1, 2, ...) of a case like the oracle.

    A fixed script rather than chance, so tests of repeated recording can compute by hand which
    runs of which cases pass (the table is in docs/fake-gateway.md).
    """
    if run < 1:
        raise ValueError(f"runs are counted from 1, not {run}")
    if case_id == FLAKY_NEVER:
        return False
    if case_id == FLAKY_FIRST_RUN_ONLY:
        return run == 1
    if case_id in FLAKY_CYCLE:
        return (run + FLAKY_CYCLE.index(case_id)) % 3 != 0
    return True


def flaky_turn(location: Location, run: int) -> Turn | None:
    """`fixture/flaky`'s first step of a case on a run `flaky_passes` fails; None: the oracle's turn.

    A failing run answers with the step's first `wrong` answer (`"Done."` if it has no calls), or
    without calling a tool when the step has none. Later steps, and cases whose first step expects
    no call, are always the oracle's: only the first request of a case is the same on every run.
    """
    if location.step != 0 or flaky_passes(location.case.id, run):
        return None
    step = location.case.steps[0] if location.case.steps else None
    if not isinstance(step, CallStep):
        return None
    return _sample_turn(step.wrong[0]) if step.wrong else Turn(content=SILENT_REPLY)


def routed_misses(model: str, case_id: str) -> bool:
    """Whether `fake/alpha` or `fake/beta` gets this case wrong."""
    return model in AUTO_CHOICES and _digest(f"{model}/{case_id}")[0] % ROUTED_MISS == 0


def routed_turn(location: Location, offered: Sequence[str], model: str) -> Turn | None:
    """A candidate's turn on a case it misses; None: the oracle's. `fake/alpha` answers with the
    suite's own wrong answers (a needless call at a no-call step), `fake/beta` answers in words
    where a call is due (and rightly where none is)."""
    if not routed_misses(model, location.case.id) or location.step >= len(location.case.steps):
        return None
    step = location.case.steps[location.step]
    if model == BETA:
        return Turn(content=SILENT_REPLY) if isinstance(step, CallStep) else None
    if isinstance(step, NoCallStep):
        return _needless_call(offered)
    return plausible_turn(location)


class _Asked(NamedTuple):
    """A request as a scripted model sees it: the case it is (if any) and which run of it."""

    suite: Suite
    call: ChatCall
    model: str
    location: Location | None
    run: int


def _routed(asked: _Asked) -> Turn | None:
    if asked.location is None:
        return None
    return routed_turn(asked.location, asked.call.tool_names, asked.model)


def _silent(asked: _Asked) -> Turn | None:
    return Turn(content=SILENT_REPLY)


def _eager(asked: _Asked) -> Turn | None:
    if not asked.call.tool_names:
        return Turn(content=NO_TOOLS_OFFERED)
    return Turn(calls=[(asked.call.tool_names[0], "{}")])


def _plausible(asked: _Asked) -> Turn | None:
    return None if asked.location is None else plausible_turn(asked.location)


def _flaky(asked: _Asked) -> Turn | None:
    return None if asked.location is None else flaky_turn(asked.location, asked.run)


def _sloppy(asked: _Asked) -> Turn | None:
    if asked.location is None:
        return None
    behaviour, strike = sloppy_plan(asked.location.case)
    if asked.location.step != strike:
        return None
    return sloppy_turn(asked.suite, asked.location, asked.call.tool_names, behaviour)


_SCRIPTS: dict[str, Callable[[_Asked], Turn | None]] = {
    ALPHA: _routed,
    BETA: _routed,
    SILENT: _silent,
    EAGER: _eager,
    PLAUSIBLE: _plausible,
    FLAKY: _flaky,
    SLOPPY: _sloppy,
}
"""Each model's own turn, None where it answers as the oracle; a model not listed always does."""


def _script(suite: Suite, call: ChatCall, model: str, location: Location | None, run: int) -> Turn:
    served = _served_model(model, location)  # `auto` answers as the model it routes to
    script = _SCRIPTS.get(served)
    turn = None if script is None else script(_Asked(suite, call, served, location, run))
    return oracle_turn(location) if turn is None else turn


# --- the answer -----------------------------------------------------------------------------------


def _served_model(model: str, location: Location | None) -> str:
    if model != AUTO:
        return model
    if location is None:
        return AUTO_CHOICES[0]
    return auto_choice(location.case.id)


def auto_choice(case_id: str) -> str:
    """The model `auto` routes a case to: fixed per case by a hash of its id."""
    return AUTO_CHOICES[_digest(case_id)[0] % len(AUTO_CHOICES)]


def _ok_headers(model: str, call: ChatCall, completion: dict[str, Any]) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if model != UNPRICED:
        usage = completion["usage"]
        headers["x-lobstack-cost-usd"] = price(usage["prompt_tokens"], usage["completion_tokens"])
    if model == NO_TEMPERATURE and call.has_temperature:
        headers["x-lobstack-dropped-params"] = "temperature"
    return headers


def answer(suite: Suite, request_json: bytes, model: str | None = None, *, run: int = 1) -> FakeReply:
    """What the gateway answers a chat request when no fault is injected.

    `request_json` is the raw request body; `model` overrides the body's `model` (None: use it);
    `run` is how many times the gateway has been sent these bytes, this time included (only
    `fixture/flaky` reads it). Invalid bodies get 400 and unknown models 404, in the gateway's error
    shape. The same bytes and run always get the same reply.
    """
    call = parse_request(request_json)
    if isinstance(call, FakeReply):
        return call
    named = model if model is not None else call.model
    model = scripted_as(named)
    if model is None:
        return error_reply(
            404,
            f"The model `{named}` does not exist. Known models: {', '.join(MODELS)}.",
            "invalid_request_error",
            "model_not_found",
        )
    location = locate(suite, call.messages)
    turn = _script(suite, call, model, location, run)
    step = location.step if location is not None else 0
    served = named if named != model else _served_model(model, location)
    completion = completion_body(request_json, named, served, step, turn)
    return FakeReply(status=200, headers=_ok_headers(model, call, completion), body=json_bytes(completion))


COPY_MARK = "@"
"""`fixture/oracle@7` answers as fixture/oracle under its own name: many models for benchmarks of
runs at scale (a rate limit per model, 20 models through one gateway)."""


def scripted_as(model: str) -> str | None:
    """The scripted model that answers `model` (itself, or the model before `@` of a copy)."""
    if model in MODELS:
        return model
    base, mark, label = model.partition(COPY_MARK)
    return base if mark and label and base in MODELS else None


# --- recorded replies -----------------------------------------------------------------------------

RECORDED_PREFIX = "recorded/"
"""Model `recorded/<stem>` is answered with `<replies dir>/<stem>.json` at every request."""


class RecordedReply(msgspec.Struct, kw_only=True):
    """A reply file: the wire corpus's format (`status`, `headers`, `body`, optional `body_text`)."""

    status: int
    headers: dict[str, str] = {}
    body: Any = None
    body_text: str | None = None


def load_replies(folder: str | Path) -> dict[str, FakeReply]:
    """Every `*.json` reply in `folder`, by model name, to be served verbatim.

    The body is `body_text` byte for byte when present, else `body` as JSON. Of the recorded headers
    only `content-type` and the gateway's `x-lobstack-*` are kept: lengths and encodings are the
    fake's own.
    """
    path = Path(folder)
    if not path.is_dir():
        raise ConfigError(f"--replies {folder}: not a folder")
    replies: dict[str, FakeReply] = {}
    for file in sorted(path.glob("*.json")):
        try:
            recorded = msgspec.json.decode(file.read_bytes(), type=RecordedReply)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ConfigError(f"{file}: not a reply file ({exc})") from None
        body = (
            recorded.body_text.encode("utf-8")
            if recorded.body_text is not None
            else json_bytes(recorded.body)
        )
        headers = {"content-type": "application/json"}
        headers.update(
            {
                name.lower(): value
                for name, value in recorded.headers.items()
                if name.lower() == "content-type" or name.lower().startswith("x-lobstack-")
            }
        )
        replies[RECORDED_PREFIX + file.stem] = FakeReply(status=recorded.status, headers=headers, body=body)
    return replies

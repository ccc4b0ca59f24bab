"""A fake Lobstack gateway: the real chat-completions wire format on loopback, scripted models, faults.

Tests, benchmarks and the demo need a gateway that answers the same bytes every time, costs nothing,
needs no key, and fails on demand (429 bursts, resets, hangs, truncated bodies) so that retries and
errored cases can be exercised through real sockets. A mock transport cannot show what a real HTTP
client does with a reset or a short body; this server can.

Two layers:

- the brain, pure and testable without sockets: `parse_request`, `locate` (which case and step a
  request belongs to), `answer` (what a scripted model replies, as a `FakeReply`), `sloppy_plan`,
  and `FaultBook` (which fault, if any, the next request gets);
- the server, `FakeGateway`: a standard-library `ThreadingHTTPServer` that reads requests, asks the
  brain, sleeps for latency, and performs faults on the socket. `start_fake_gateway_process` runs it
  as a separate process (`python -m lobrec.fakegateway`).

The control API (`/__fake__/faults`, `/__fake__/log`, `/__fake__/reset`) and every model are
described in `docs/fake-gateway.md`.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import re
import selectors
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec

from lobrec.core.jsonvalue import json_type
from lobrec.core.suite import CallStep, Case, NoCallStep, Suite
from lobrec.errors import ConfigError

# --- constants ------------------------------------------------------------------------------------

CHAT_PATHS = ("/v1/chat/completions", "/api/gateway/v1/chat/completions")
MODELS_PATHS = ("/v1/models", "/api/gateway/v1/models")

ORACLE = "fixture/oracle"
SILENT = "fixture/silent"
EAGER = "fixture/eager"
SLOPPY = "fixture/sloppy"
NO_TEMPERATURE = "fixture/no-temperature"
UNPRICED = "fixture/unpriced"
PLAUSIBLE = "fixture/plausible"
AUTO = "auto"
MODELS: tuple[str, ...] = (ORACLE, SILENT, EAGER, SLOPPY, NO_TEMPERATURE, UNPRICED, PLAUSIBLE, AUTO)
AUTO_CHOICES: tuple[str, str] = ("fake/alpha", "fake/beta")
"""The concrete models `auto` pretends to route to, picked by case so reports can show the choice."""

CREATED = 1792540800
"""2026-10-21T00:00:00Z, the suite's date: a fixed `created` keeps every answer byte-identical."""

UNKNOWN_CASE = "I don't know this case."
NO_MORE_STEPS = "This case has no more steps."
SILENT_REPLY = "I can't help with tools right now."
NO_TOOLS_OFFERED = "No tools were offered."
DONE = "Done."
MADE_UP_FALLBACK = "lookup"

PROMPT_PRICE = Decimal("0.0000005")
COMPLETION_PRICE = Decimal("0.0000015")
"""US dollars per fake token (a token is four bytes); only the header's shape and stability matter."""

MAX_REQUEST_BYTES = 32 * 1024 * 1024
LISTENING = re.compile(r"fake gateway listening on (http://\S+/v1)")

# --- replies --------------------------------------------------------------------------------------


class FakeReply(msgspec.Struct, frozen=True, kw_only=True):
    """One HTTP answer decided by the brain: status, headers (lower-case names), body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """What a scripted model says: text, or tool calls as (name, arguments text) pairs."""

    content: str | None = None
    calls: list[tuple[str, str]] = []


class Location(msgspec.Struct, frozen=True, kw_only=True):
    """The case a request belongs to, and the step it asks for (0-based)."""

    case: Case
    step: int


class ChatCall(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of a valid chat-completions request the brain reads."""

    model: str
    messages: list[dict[str, Any]]
    tool_names: list[str]
    has_temperature: bool


def _json_bytes(value: Any) -> bytes:
    return msgspec.json.encode(value)


_ERROR_KINDS: dict[int, tuple[str, str, str]] = {
    400: ("invalid_request_error", "bad_request", "The request was rejected."),
    429: ("rate_limit_error", "rate_limit_exceeded", "Rate limit reached; retry after 1 second."),
    500: ("server_error", "internal_error", "The gateway failed to process the request."),
    502: ("upstream_error", "bad_gateway", "The upstream provider returned an invalid response."),
    503: ("server_error", "service_unavailable", "The gateway is overloaded; try again later."),
    504: ("upstream_error", "upstream_timeout", "The upstream provider did not answer in time."),
}


def error_reply(status: int, message: str, error_type: str, code: str | None) -> FakeReply:
    """The gateway's error shape: `{"error": {"message", "type", "code"}}`; 429 adds `retry-after`."""
    headers = {"content-type": "application/json"}
    if status == 429:
        headers["retry-after"] = "1"
    body = _json_bytes({"error": {"message": message, "type": error_type, "code": code}})
    return FakeReply(status=status, headers=headers, body=body)


def status_fault_reply(status: int) -> FakeReply:
    """An injected error status, worded like the gateway's own and marked as injected."""
    error_type, code, message = _ERROR_KINDS[status]
    return error_reply(status, f"{message} (injected fault)", error_type, code)


def json_reply(body: bytes, status: int = 200) -> FakeReply:
    return FakeReply(status=status, headers={"content-type": "application/json"}, body=body)


def _bad_request(message: str) -> FakeReply:
    return error_reply(400, message, "invalid_request_error", "invalid_request")


# --- reading a request ----------------------------------------------------------------------------


def parse_request(body: bytes) -> ChatCall | FakeReply:
    """Validate a request body like a real API: a JSON object with `model` and `messages`.

    Returns the parsed call, or the 400 reply the gateway would send.
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return _bad_request("The request body is not valid JSON.")
    if not isinstance(data, dict):
        return _bad_request("The request body must be a JSON object.")
    model = data.get("model")
    if not isinstance(model, str) or not model:
        return _bad_request("`model` is required and must be a non-empty string.")
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        return _bad_request("`messages` is required and must be a non-empty array.")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return _bad_request(f"`messages[{index}]` must be an object with a string `role`.")
    tools = data.get("tools", [])
    if not isinstance(tools, list):
        return _bad_request("`tools` must be an array.")
    tool_names: list[str] = []
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str):
            return _bad_request(f"`tools[{index}].function.name` is required and must be a string.")
        tool_names.append(name)
    if data.get("stream"):
        return _bad_request("Streaming is not supported by the fake gateway.")
    return ChatCall(
        model=model, messages=messages, tool_names=tool_names, has_temperature="temperature" in data
    )


def _prefix_matches(messages: list[dict[str, Any]], offset: int, case: Case) -> bool:
    if len(messages) < offset + len(case.messages):
        return False
    return all(
        got.get("role") == want.role and got.get("content") == want.content
        for got, want in zip(messages[offset:], case.messages, strict=False)
    )


def locate(suite: Suite, messages: list[dict[str, Any]]) -> Location | None:
    """Find the case whose messages start the request, and the step asked for.

    The runner may or may not put the system prompt before a case's own messages, so a leading
    system message is skipped when the case does not start with one. The step is the number of
    assistant turns after the case's messages. The longest matching case wins.
    """
    best: tuple[int, Case, int] | None = None
    for case in suite.cases:
        if not case.messages:
            continue
        skip_system = messages[0].get("role") == "system" and case.messages[0].role != "system"
        offset = 1 if skip_system else 0
        if _prefix_matches(messages, offset, case) and (best is None or len(case.messages) > best[0]):
            best = (len(case.messages), case, offset)
    if best is None:
        return None
    length, case, offset = best
    step = sum(1 for message in messages[offset + length :] if message.get("role") == "assistant")
    return Location(case=case, step=step)


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


def break_schema(arguments: dict[str, Any], parameters: dict[str, Any]) -> str:
    """Arguments with the first one's value of a type its schema does not allow (`[]` if none)."""
    if not arguments:
        return "[]"
    key = next(iter(arguments))
    properties = parameters.get("properties")
    schema = properties.get(key) if isinstance(properties, dict) else None
    declared = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(declared, str):
        allowed = {declared}
    elif isinstance(declared, list):
        allowed = {kind for kind in declared if isinstance(kind, str)}
    else:
        allowed = {json_type(arguments[key])}
    if "number" in allowed:
        allowed.add("integer")
    for wrong in _WRONG_VALUES:
        if json_type(wrong) not in allowed:
            return _arguments({**arguments, key: wrong})
    return "[]"


def sloppy_turn(suite: Suite, location: Location, offered: Sequence[str], behaviour: SloppyBehaviour) -> Turn:
    """The oracle's turn for the step with one of the mistakes real models make."""
    turn = oracle_turn(location)
    if behaviour == "correct" or location.step >= len(location.case.steps):
        return turn
    step = location.case.steps[location.step]
    taken = set(offered) | {tool.name for tool in suite.tools}
    if isinstance(step, NoCallStep):
        return Turn(calls=[(offered[0] if offered else MADE_UP_FALLBACK, "{}")])
    assert isinstance(step, CallStep)
    first, arguments = step.calls[0], turn.calls[0][1]
    rest = turn.calls[1:]
    expected_names = {call.name for call in step.calls}
    others = [name for name in offered if name not in expected_names]
    if behaviour == "wrong_tool" and others:
        return Turn(calls=[(others[0], arguments), *rest])
    if behaviour in ("wrong_tool", "made_up_name"):
        return Turn(calls=[(_made_up(first.name, taken), arguments), *rest])
    if behaviour == "not_json":
        return Turn(calls=[(first.name, arguments[: len(arguments) // 2]), *rest])
    if behaviour == "schema_break":
        tool = suite.tool(first.name)
        parameters = tool.function.parameters if tool is not None else {}
        return Turn(calls=[(first.name, break_schema(first.answer, parameters)), *rest])
    if behaviour == "parallel_split":
        return Turn(calls=turn.calls[:1])
    return turn


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
    sample = step.wrong[_digest(f"{location.case.id}/{location.step}")[0] % len(step.wrong)]
    if not sample.calls:
        return Turn(content=DONE)
    return Turn(calls=[(call.name, _arguments(call.arguments)) for call in sample.calls])


def _script(suite: Suite, call: ChatCall, model: str, location: Location | None) -> Turn:
    if model == SILENT:
        return Turn(content=SILENT_REPLY)
    if model == EAGER:
        if not call.tool_names:
            return Turn(content=NO_TOOLS_OFFERED)
        return Turn(calls=[(call.tool_names[0], "{}")])
    if model == PLAUSIBLE and location is not None:
        turn = plausible_turn(location)
        if turn is not None:
            return turn
    if model == SLOPPY and location is not None:
        behaviour, strike = sloppy_plan(location.case)
        if location.step == strike:
            return sloppy_turn(suite, location, call.tool_names, behaviour)
    return oracle_turn(location)


# --- the completion body --------------------------------------------------------------------------


def _tokens(size: int) -> int:
    return max(1, math.ceil(size / 4))


def price(prompt_tokens: int, completion_tokens: int) -> str:
    """The `x-lobstack-cost-usd` value: a plain decimal string, never in exponent notation."""
    return format((prompt_tokens * PROMPT_PRICE + completion_tokens * COMPLETION_PRICE).normalize(), "f")


def _message(turn: Turn, step: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content}
    if turn.calls:
        message["tool_calls"] = [
            {"id": f"call_{step}_{i}", "type": "function", "function": {"name": name, "arguments": text}}
            for i, (name, text) in enumerate(turn.calls)
        ]
    return message


def _served_model(model: str, location: Location | None) -> str:
    if model != AUTO:
        return model
    if location is None:
        return AUTO_CHOICES[0]
    return AUTO_CHOICES[_digest(location.case.id)[0] % len(AUTO_CHOICES)]


def completion_body(request_body: bytes, model: str, location: Location | None, turn: Turn) -> dict[str, Any]:
    """A real OpenAI chat completion, fully determined by the request bytes and the turn."""
    message = _message(turn, location.step if location is not None else 0)
    prompt_tokens = _tokens(len(request_body))
    completion_tokens = _tokens(len(_json_bytes(message)))
    request_hash = hashlib.sha256(model.encode("utf-8") + b"\0" + request_body).hexdigest()
    return {
        "id": f"chatcmpl-{request_hash[:24]}",
        "object": "chat.completion",
        "created": CREATED,
        "model": _served_model(model, location),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if turn.calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _ok_headers(model: str, call: ChatCall, completion: dict[str, Any]) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if model != UNPRICED:
        usage = completion["usage"]
        headers["x-lobstack-cost-usd"] = price(usage["prompt_tokens"], usage["completion_tokens"])
    if model == NO_TEMPERATURE and call.has_temperature:
        headers["x-lobstack-dropped-params"] = "temperature"
    return headers


def answer(suite: Suite, request_json: bytes, model: str | None = None) -> FakeReply:
    """What the gateway answers a chat request when no fault is injected.

    `request_json` is the raw request body; `model` overrides the body's `model` (None: use it).
    Invalid bodies get 400 and unknown models 404, in the gateway's error shape. The same bytes
    always get the same reply.
    """
    call = parse_request(request_json)
    if isinstance(call, FakeReply):
        return call
    model = model if model is not None else call.model
    if model not in MODELS:
        return error_reply(
            404,
            f"The model `{model}` does not exist. Known models: {', '.join(MODELS)}.",
            "invalid_request_error",
            "model_not_found",
        )
    location = locate(suite, call.messages)
    turn = _script(suite, call, model, location)
    completion = completion_body(request_json, model, location, turn)
    return FakeReply(status=200, headers=_ok_headers(model, call, completion), body=_json_bytes(completion))


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
            else _json_bytes(recorded.body)
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


# --- fault injection ------------------------------------------------------------------------------

Fault = Literal[
    "400",
    "429",
    "500",
    "502",
    "503",
    "504",
    "hang",
    "reset",
    "truncate",
    "not_json",
    "not_completion",
    "huge",
]
STATUS_FAULTS: dict[str, int] = {"400": 400, "429": 429, "500": 500, "502": 502, "503": 503, "504": 504}


class FaultRule(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """Which requests a rule applies to (null matches anything) and what the n-th one gets."""

    model: str | None = None
    case: str | None = None
    step: int | None = None
    faults: list[Fault] = []
    then: Fault | Literal["ok"] = "ok"
    hang_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 30.0
    huge_bytes: Annotated[int, msgspec.Meta(ge=0, le=1024**3)] = 8 * 1024 * 1024


class FaultRules(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    rules: list[FaultRule]


class FaultAction(msgspec.Struct, frozen=True, kw_only=True):
    """A fault chosen for one request, with its rule's parameters."""

    fault: Fault
    hang_seconds: float = 30.0
    huge_bytes: int = 8 * 1024 * 1024


_rules_decoder = msgspec.json.Decoder(FaultRules)


def decode_fault_rules(body: bytes) -> list[FaultRule]:
    """Decode a `POST /__fake__/faults` body; raises ValueError naming the JSON path."""
    try:
        return _rules_decoder.decode(body).rules
    except msgspec.ValidationError as exc:
        raise ValueError(f"fault rules: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ValueError(f"fault rules: not valid JSON: {exc}") from None


class FaultBook:
    """The fault rules and how many requests each has seen; not thread-safe (the server locks).

    For each request the first rule whose non-null fields match applies. Requests are counted per
    rule and per (model, case, step), so a burst replays for every step and model it matches.
    """

    def __init__(self) -> None:
        self._rules: list[FaultRule] = []
        self._seen: dict[tuple[int, str | None, str | None, int | None], int] = {}

    @property
    def rules(self) -> list[FaultRule]:
        return list(self._rules)

    def add(self, rules: Sequence[FaultRule]) -> None:
        self._rules.extend(rules)

    def clear(self) -> None:
        self._rules.clear()
        self._seen.clear()

    def take(self, model: str | None, case: str | None, step: int | None) -> FaultAction | None:
        """The fault for the next request with these coordinates, or None for the normal answer."""
        for index, rule in enumerate(self._rules):
            if rule.model is not None and rule.model != model:
                continue
            if rule.case is not None and rule.case != case:
                continue
            if rule.step is not None and rule.step != step:
                continue
            key = (index, model, case, step)
            count = self._seen.get(key, 0)
            self._seen[key] = count + 1
            chosen = rule.faults[count] if count < len(rule.faults) else rule.then
            if chosen == "ok":
                return None
            return FaultAction(fault=chosen, hang_seconds=rule.hang_seconds, huge_bytes=rule.huge_bytes)
        return None


class LogEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One chat request as the gateway saw it; `status` is None when no response was sent."""

    model: str | None
    case: str | None
    step: int | None
    fault: Fault | None
    status: int | None


def planned_status(fault: FaultAction | None, reply: FakeReply) -> int | None:
    """The status line a request gets under a fault (None: the connection is reset)."""
    if fault is None or fault.fault in ("hang", "truncate"):
        return reply.status
    if fault.fault == "reset":
        return None
    if fault.fault in STATUS_FAULTS:
        return STATUS_FAULTS[fault.fault]
    return 200


NOT_JSON_BODY = b"<html><body><h1>Lobstack</h1><p>upstream sent something unexpected</p></body></html>"
NOT_COMPLETION_BODY = b'{"ok":true}'


# --- the server -----------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], gateway: FakeGateway) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.gateway = gateway
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (timeouts, aborted huge bodies) is normal here, not worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """Headers and body go out in two writes; with Nagle on, the body waits ~40 ms for the client's
    delayed ACK on every kept-alive request, and that stall, not `--latency-ms`, would set the pace."""
    server_version = "lobrec-fake-gateway"
    sys_version = ""
    timeout = 300
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: never print requests, and so never their Authorization header."""

    # -- routing --

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if path in CHAT_PATHS:
            self._chat()
        elif path == "/__fake__/faults":
            self._add_faults()
        elif path == "/__fake__/reset":
            self._read_body()
            self.server.gateway.reset()
            self._send(json_reply(b'{"ok":true}'))
        else:
            self._read_body()
            self._send(self._not_found("POST", path))

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/__fake__/log":
            body = _json_bytes(self.server.gateway.log())
            self._send(json_reply(body))
        elif path in MODELS_PATHS:
            data = [
                {"id": name, "object": "model", "created": CREATED, "owned_by": "lobrec"}
                for name in [*MODELS, *self.server.gateway.replies]
            ]
            self._send(json_reply(_json_bytes({"object": "list", "data": data})))
        elif path in CHAT_PATHS:
            self._send(error_reply(405, "Use POST.", "invalid_request_error", "method_not_allowed"))
        else:
            self._send(self._not_found("GET", path))

    @staticmethod
    def _not_found(method: str, path: str) -> FakeReply:
        return error_reply(404, f"No route for {method} {path}.", "invalid_request_error", "not_found")

    # -- I/O helpers --

    def _read_body(self) -> bytes | None:
        """The request body, or None after answering 411/413 (the connection is then closed)."""
        length = self.headers.get("content-length")
        if length is None:
            if self.headers.get("transfer-encoding"):
                self.close_connection = True
                self._send(error_reply(411, "Send a Content-Length.", "invalid_request_error", "no_length"))
                return None
            return b""
        try:
            size = int(length)
        except ValueError:
            size = -1
        if size < 0 or size > MAX_REQUEST_BYTES:
            self.close_connection = True
            self._send(error_reply(413, "The body is too large.", "invalid_request_error", "too_large"))
            return None
        return self.rfile.read(size)

    def _start(self, status: int, headers: dict[str, str], length: int) -> None:
        # No Date header: the same request gets the same response bytes, which keeps cassettes stable.
        self.send_response_only(status)
        self.send_header("server", self.server_version)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(length))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()

    def _send(self, reply: FakeReply) -> None:
        try:
            self._start(reply.status, reply.headers, len(reply.body))
            self.wfile.write(reply.body)
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    # -- control API --

    def _add_faults(self) -> None:
        body = self._read_body()
        if body is None:
            return
        try:
            rules = decode_fault_rules(body)
        except ValueError as exc:
            self._send(error_reply(400, str(exc), "invalid_request_error", "invalid_fault_rules"))
            return
        count = self.server.gateway.add_faults(rules)
        self._send(json_reply(_json_bytes({"rules": count})))

    # -- chat --

    def _chat(self) -> None:
        body = self._read_body()
        if body is None:
            return
        gateway = self.server.gateway
        call = parse_request(body)
        if isinstance(call, FakeReply):
            gateway._record(LogEntry(model=None, case=None, step=None, fault=None, status=call.status))
            self._send(call)
            return
        location = locate(gateway.suite, call.messages)
        case_id = location.case.id if location is not None else None
        step = location.step if location is not None else None
        fault, reply = gateway._decide(call.model, case_id, step, body)
        gateway._wait(gateway.latency_ms / 1000)
        if fault is None:
            self._send(reply)
        else:
            self._perform(fault, reply)

    def _perform(self, action: FaultAction, reply: FakeReply) -> None:
        fault = action.fault
        if fault in STATUS_FAULTS:
            self._send(status_fault_reply(STATUS_FAULTS[fault]))
        elif fault == "hang":
            if self.server.gateway._wait(action.hang_seconds):
                self.close_connection = True
                return
            self._send(reply)
        elif fault == "reset":
            self._reset()
        elif fault == "truncate":
            self.close_connection = True
            try:
                self._start(reply.status, reply.headers, len(reply.body))
                self.wfile.write(reply.body[: len(reply.body) // 2])
            except (ConnectionError, TimeoutError):
                pass
        elif fault == "not_json":
            self._send(json_reply(NOT_JSON_BODY))
        elif fault == "not_completion":
            self._send(json_reply(NOT_COMPLETION_BODY))
        elif fault == "huge":
            self._huge(reply, action.huge_bytes)

    def _reset(self) -> None:
        """Abort the connection: SO_LINGER 0 makes close() send RST instead of FIN."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.rfile.close()  # drops the last reference to the socket: the RST goes out now

    def _huge(self, reply: FakeReply, size: int) -> None:
        """A valid completion whose content is `size` bytes of padding, written in chunks."""
        marker = "\u0000HUGE\u0000"
        completion = json.loads(reply.body) if reply.status == 200 else None
        if completion is None:
            self._send(reply)
            return
        completion["choices"][0]["message"]["content"] = marker
        head, tail = _json_bytes(completion).split(_json_bytes(marker)[1:-1], 1)
        chunk = b"a" * 65536
        try:
            self._start(200, reply.headers, len(head) + size + len(tail))
            self.wfile.write(head)
            left = size
            while left > 0:
                self.wfile.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
            self.wfile.write(tail)
        except (ConnectionError, TimeoutError):
            self.close_connection = True


class FakeGateway:
    """The fake gateway served from this process.

    Use as a context manager, or call `start()` and `stop()`::

        with FakeGateway(suite) as gateway:
            client = openai.OpenAI(base_url=gateway.url, api_key="test")

    Parameters: `suite` decides the scripted answers; `host` must be loopback unless `allow_remote`;
    `port` 0 picks a free port; `latency_ms` is slept before every chat answer.
    """

    def __init__(
        self,
        suite: Suite,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_ms: int = 0,
        *,
        allow_remote: bool = False,
        replies: dict[str, FakeReply] | None = None,
    ) -> None:
        if not allow_remote and not is_loopback(host):
            raise ConfigError(
                f"refusing to listen on {host}, which is not a loopback address; "
                "pass --allow-remote to serve other machines"
            )
        self.suite = suite
        self.host = host
        self.port = port
        self.latency_ms = latency_ms
        self.replies = dict(replies or {})
        self._lock = threading.Lock()
        self._book = FaultBook()
        self._log: list[LogEntry] = []
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def bind(self) -> FakeGateway:
        """Open the listening socket (port 0 becomes a real port); raises OSError if it cannot."""
        if self._server is None:
            self._stopping.clear()
            self._server = _Server((self.host, self.port), self)
            self.port = self._server.server_address[1]
        return self

    @property
    def url(self) -> str:
        """The base URL to give a client, ending in `/v1`."""
        if self._server is None:
            raise RuntimeError("the fake gateway is not bound yet; call start()")
        host = self._server.server_address[0]
        if ":" in str(host):
            host = f"[{host}]"
        return f"http://{host}:{self.port}/v1"

    def start(self) -> FakeGateway:
        """Serve from a daemon thread."""
        server = self.bind()._server
        assert server is not None
        if self._thread is None:
            self._thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-gateway", daemon=True
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve from the calling thread until interrupted (the CLI's loop)."""
        server = self.bind()._server
        assert server is not None
        try:
            server.serve_forever(poll_interval=0.2)
        finally:
            self._stopping.set()
            server.server_close()

    def stop(self) -> None:
        """Stop serving; requests hanging or sleeping for latency are released at once."""
        self._stopping.set()
        if self._server is not None:
            if self._thread is not None:
                self._server.shutdown()
                self._thread.join()
                self._thread = None
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGateway:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- control (also reachable over HTTP) --

    def add_faults(self, rules: Sequence[FaultRule]) -> int:
        """Append fault rules; returns how many rules are now in force."""
        with self._lock:
            self._book.add(rules)
            return len(self._book.rules)

    def reset(self) -> None:
        """Forget every fault rule, count and log entry."""
        with self._lock:
            self._book.clear()
            self._log.clear()

    def log(self) -> list[LogEntry]:
        """Every chat request seen since the last reset, in arrival order."""
        with self._lock:
            return list(self._log)

    # -- used by the handler --

    def _record(self, entry: LogEntry) -> None:
        with self._lock:
            self._log.append(entry)

    def _decide(
        self, model: str, case: str | None, step: int | None, body: bytes
    ) -> tuple[FaultAction | None, FakeReply]:
        reply = self.replies.get(model) or answer(self.suite, body)
        with self._lock:
            fault = self._book.take(model, case, step)
            status = planned_status(fault, reply)
            name = fault.fault if fault is not None else None
            self._log.append(LogEntry(model=model, case=case, step=step, fault=name, status=status))
        return fault, reply

    def _wait(self, seconds: float) -> bool:
        """Sleep, waking early when the gateway stops; True if it stopped."""
        if seconds <= 0:
            return self._stopping.is_set()
        return self._stopping.wait(seconds)


# --- as a separate process ------------------------------------------------------------------------


def start_fake_gateway_process(
    suite_path: str | Path,
    latency_ms: int = 0,
    *,
    host: str = "127.0.0.1",
    extra_args: Sequence[str] = (),
    startup_timeout: float = 30.0,
) -> tuple[subprocess.Popen[bytes], str]:
    """Run `python -m lobrec.fakegateway` on a free port; returns the process and its base URL.

    Stop it with `stop_fake_gateway_process` (terminate, wait, close the pipe). Raises
    RuntimeError, with what the process printed, if it does not announce itself in time.
    """
    command = [
        sys.executable,
        "-m",
        "lobrec.fakegateway",
        "--suite",
        str(suite_path),
        "--host",
        host,
        "--port",
        "0",
        "--latency-ms",
        str(latency_ms),
        *extra_args,
    ]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert process.stdout is not None
    line = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(startup_timeout):
            line = process.stdout.readline()
    text = line.decode("utf-8", "replace").strip()
    match = LISTENING.fullmatch(text)
    if match is None:
        stop_fake_gateway_process(process)
        raise RuntimeError(
            f"the fake gateway did not start (exit code {process.returncode}); it printed {text!r}"
        )
    return process, match.group(1)


def stop_fake_gateway_process(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Terminate the process, wait for it (kill if it lingers) and close its stdout pipe."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()

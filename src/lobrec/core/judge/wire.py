"""The chat-completions wire format: request bodies out, tool calls in, bytes only.

Bodies are encoded deterministically (msgspec, fixed key order) so the same case always sends the
same bytes; replay matches recorded requests on those bytes. Parsing a reply never raises on what a
*model* wrote (that is judged); it raises `NotACompletion` only when the body is not a chat
completion at all, which is the gateway's fault, not the model's (the runner maps it to the shell's
`GatewayError`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from lobrec.core.judge.jsonvalue import (
    LONE_SURROGATE,
    UNPROVEN,
    DuplicateKeyError,
    fast_loads,
    parse_int,
    repeated_key,
    unique_object,
)
from lobrec.core.memo import per_object
from lobrec.core.suite.format import Case, Message, Suite, Tool

_encoder = msgspec.json.Encoder(decimal_format="number")
"""A `Decimal` (an integer past Python's digit limit, `jsonvalue.parse_int`) goes out as the number."""


class ChatRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Exactly the four fields the methodology allows, in a fixed order."""

    model: str
    messages: list[Message | dict[str, Any]]
    tools: list[Tool] | msgspec.Raw
    """The tools, or their JSON as `offered_tools_json` wrote it."""
    temperature: int = 0


def request_body(
    model: str, messages: list[Message | dict[str, Any]], tools: list[Tool] | msgspec.Raw
) -> bytes:
    request = ChatRequest(model=model, messages=messages, tools=tools)
    try:
        return _encoder.encode(request)
    except UnicodeEncodeError:
        # A chain echoes the model's message as received, and JSON may carry a lone surrogate
        # (`"\ud800"`) that UTF-8 cannot: it goes back as the same escape, not as U+FFFD.
        return _encoder.encode(msgspec.structs.replace(request, messages=_escaping_surrogates(messages)))


def offered_tools_json(suite: Suite, case: Case) -> msgspec.Raw:
    """The JSON of the tools `case` offers (`Suite.offered_tools`), written once per suite and tool
    list: every model's request repeats it, and it is most of the bytes of a request."""
    written = _tools_written(suite)
    names = tuple(case.tools)
    found = written.get(names)
    if found is None:
        found = written[names] = msgspec.Raw(_encoder.encode(suite.offered_tools(case)))
    return found


@per_object
def _tools_written(suite: Suite) -> dict[tuple[str, ...], msgspec.Raw]:
    return {}


def _escaped(text: str) -> msgspec.Raw:
    """A JSON string whose lone surrogates are written as `\\udXXX` escapes."""
    quoted = json.dumps(text, ensure_ascii=False)
    return msgspec.Raw(LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted).encode("utf-8"))


def _escaping_surrogates(value: Any) -> Any:
    if isinstance(value, Message):  # a tool message's `tool_call_id` echoes the call's id as received
        return _escaping_surrogates(msgspec.to_builtins(value))
    if isinstance(value, str):
        return _escaped(value) if LONE_SURROGATE.search(value) else value
    if isinstance(value, list):
        return [_escaping_surrogates(item) for item in value]
    if isinstance(value, dict):
        # A key cannot be raw JSON; a lone surrogate in a key (never in a call lobrec judges)
        # becomes U+FFFD.
        return {_without_surrogates(key): _escaping_surrogates(item) for key, item in value.items()}
    return value


class ObservedCall(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of the model's `tool_calls`, however malformed.

    `arguments` is the parsed JSON object, or None when the arguments are missing, not a string,
    not JSON, or not an object; `problem` then says which, in words.
    """

    index: int
    id: str | None
    name: str | None
    arguments_text: str | None
    arguments: dict[str, Any] | None
    problem: str | None = None
    raw: Any = None
    quirks: list[str] = []
    """Wire-format tolerances this call leaned on (see QUIRK_*), shown in results and reports."""


QUIRK_MISSING_ARGUMENTS = "missing arguments"
QUIRK_ARGUMENTS_OBJECT = "arguments as an object"
QUIRK_CONTENT_FILTER = "content filter"
QUIRK_REJECTED_BY_PROVIDER = "call rejected by the provider"


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of one chat completion that judging needs."""

    model: str | None
    content: str | None
    calls: list[ObservedCall]
    tool_calls_problem: str | None = None
    """Set when `tool_calls` itself is malformed (not a list): counts as a failed call attempt."""
    message: dict[str, Any] | None = None
    """The assistant message as received, echoed whole into a chain's next request."""
    withheld: str | None = None
    """Why the provider sent no message (its content filter): a visible, counted reason."""
    quirks: list[str] = []


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Repeated(dict[str, Any]):
    """An object of a reply body that spelled a key twice (the last value kept, as Python does):
    marked so that arguments sent as an object obey the same duplicate-key rule as a string."""

    duplicate: str


def _marking_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    try:
        return unique_object(pairs)
    except DuplicateKeyError:
        marked = _Repeated(pairs)
        marked.duplicate = repeated_key(pairs) or ""
        return marked


def _repeated_key_inside(value: Any) -> str | None:
    """The first key spelled twice anywhere inside a parsed value, or None."""
    if isinstance(value, _Repeated):
        return value.duplicate
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        found = _repeated_key_inside(item)
        if found is not None:
            return found
    return None


def _loads(
    text: str | bytes,
    *,
    unique_keys: bool = False,
    mark_duplicates: bool = False,
    keep_surrogates: bool = False,
) -> Any:
    """Strict JSON: Python's json accepts NaN and Infinity, which JSON does not.

    JSON may also spell a lone surrogate (`"\\ud800"`), which Python keeps in the str and the
    results file cannot encode: each becomes U+FFFD, unless `keep_surrogates` (the message a chain
    echoes, which `request_body` writes back with the same escapes).
    """
    data = fast_loads(text)  # text with no repeated key, no surrogate, nothing out of range
    if data is not UNPROVEN:
        return data
    return _careful_loads(
        text, unique_keys=unique_keys, mark_duplicates=mark_duplicates, keep_surrogates=keep_surrogates
    )


def _careful_loads(
    text: str | bytes,
    *,
    unique_keys: bool = False,
    mark_duplicates: bool = False,
    keep_surrogates: bool = False,
) -> Any:
    """`_loads` where `fast_loads` cannot prove its reading: Python's parser, with the hooks."""
    hook = unique_object if unique_keys else _marking_duplicates if mark_duplicates else None
    data = json.loads(text, parse_constant=_reject_constant, parse_int=parse_int, object_pairs_hook=hook)
    if not keep_surrogates and _has_surrogates(text):
        data = _without_surrogates(data)
    return data


def loads_json(text: str | bytes) -> Any:
    """`text` read as JSON the way the judge reads a model's output (NaN and Infinity are not
    JSON); raises ValueError, or RecursionError past Python's nesting limit."""
    return _loads(text)


def _has_surrogates(text: str | bytes) -> bool:
    probe = text.decode(json.detect_encoding(text), "surrogatepass") if isinstance(text, bytes) else text
    return bool(_SURROGATE_ESCAPE.search(probe) or LONE_SURROGATE.search(probe))


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, _Repeated):
        cleaned = _Repeated(
            (_without_surrogates(key), _without_surrogates(item)) for key, item in value.items()
        )
        cleaned.duplicate = _without_surrogates(value.duplicate)
        return cleaned
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    return value


def _parse_arguments(name: str | None, text: Any) -> tuple[dict[str, Any] | None, str | None, list[str]]:
    """The arguments as a JSON object, or None and why not; then the quirks accepted on the way.

    Missing, null or "" mean no arguments (`{}`). An object where a string belongs is a server
    that broke the wire format (it parsed the model's JSON for us): accepted as already parsed.
    Duplicate keys do not parse as an object: which value a tool reads is undefined.
    """
    label = name or "the call"
    if text is None or text == "":
        return {}, None, [QUIRK_MISSING_ARGUMENTS]
    if isinstance(text, dict):
        repeated = _repeated_key_inside(text)
        if repeated is not None:
            return (
                None,
                f"arguments of {label} are not a JSON object: the key {repeated!r} appears more than once",
                [],
            )
        return text, None, [QUIRK_ARGUMENTS_OBJECT]
    if not isinstance(text, str):
        return None, f"arguments of {label} are {type(text).__name__}, not a string or an object", []
    try:
        parsed = _loads(text, unique_keys=True)
    except DuplicateKeyError as exc:
        return None, f"arguments of {label} are not a JSON object: {exc}", []
    except (ValueError, RecursionError):
        return None, f"arguments of {label} are not valid JSON", []
    if not isinstance(parsed, dict):
        return None, f"arguments of {label} are JSON but not an object", []
    return parsed, None, []


def _parse_call(index: int, item: Any) -> ObservedCall:
    if not isinstance(item, dict):
        function: Any = None
        problem: str | None = f"tool call {index} is not an object"
    else:
        function = item.get("function")
        problem = None if isinstance(function, dict) else f"tool call {index} has no function object"
    call_id = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else None
    if not isinstance(function, dict):
        return ObservedCall(
            index=index, id=call_id, name=None, arguments_text=None, arguments=None, problem=problem, raw=item
        )
    name = function.get("name") if isinstance(function.get("name"), str) else None
    text = function.get("arguments")
    arguments, arguments_problem, quirks = _parse_arguments(name, text)
    return ObservedCall(
        index=index,
        id=call_id,
        name=name,
        arguments_text=text if isinstance(text, str) else None,
        arguments=arguments,
        problem=f"tool call {index} has no name" if name is None else arguments_problem,
        raw=item,
        quirks=quirks,
    )


def _text(message: dict[str, Any]) -> str | None:
    """The verdict text: a string as is; a list of parts, its text parts joined (not `thinking`);
    an object (a server that parsed structured output), as JSON; a null content, the refusal."""
    content = message.get("content")
    if isinstance(content, list):
        texts = [part["text"] for part in content if _is_text_part(part)]
        return "".join(texts) if texts else None
    if isinstance(content, dict):
        return json.dumps(content, ensure_ascii=False)
    if isinstance(content, str):
        return content
    refusal = message.get("refusal")
    return refusal if isinstance(refusal, str) and refusal else None


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str)


class NotACompletion(ValueError):
    """A 2xx body that is not a chat completion: the gateway's fault, not the model's."""


def is_success(status: int) -> bool:
    """A 2xx: the gateway's success, whose body is the model's completion (a 201 or 203 as a 200)."""
    return 200 <= status <= 299


def parse_completion(body: bytes, status: int = 200) -> Reply:
    """Read a 2xx body as a chat completion; raise NotACompletion when it is not one (a 204's empty
    body included: the gateway's fault, not the model's)."""
    received = data = fast_loads(body)  # msgspec refuses a lone surrogate: this reading holds none
    if received is UNPROVEN:
        try:
            received = _careful_loads(body, mark_duplicates=True, keep_surrogates=True)
        except (ValueError, RecursionError):
            raise NotACompletion(f"the gateway's {status} body is not JSON ({len(body)} bytes)") from None
        # What is judged and written to the results has no lone surrogate; the echo keeps them.
        data = _without_surrogates(received) if _has_surrogates(body) else received
    choice = _first_choice(data, status)
    message = choice.get("message")
    model = data.get("model") if isinstance(data.get("model"), str) else None
    if message is None and choice.get("finish_reason") == "content_filter":
        return Reply(
            model=model,
            content=None,
            calls=[],
            withheld="the provider's content filter withheld the reply (finish_reason content_filter)",
            quirks=[QUIRK_CONTENT_FILTER],
        )
    if not isinstance(message, dict):
        raise NotACompletion(f"the gateway's {status} body is not a chat completion (no message)")
    echoed: dict[str, Any] = received["choices"][0]["message"]  # the same shape, surrogates kept
    return _reply(model, message, echoed)


def _first_choice(data: Any, status: int) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise NotACompletion(f"the gateway's {status} body is not a chat completion (not an object)")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise NotACompletion(f"the gateway's {status} body is not a chat completion (no choices)")
    first: dict[str, Any] = choices[0]
    return first


def _reply(model: str | None, message: dict[str, Any], echoed: dict[str, Any]) -> Reply:
    """A completion's message (`echoed`: the same as received, lone surrogates kept) as the reply."""
    content = _text(message)
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        return Reply(model=model, content=content, calls=[], message=echoed)
    if not isinstance(tool_calls, list):
        return Reply(
            model=model,
            content=content,
            calls=[],
            tool_calls_problem=f"tool_calls is {type(tool_calls).__name__}, not a list",
            message=echoed,
        )
    calls = [
        msgspec.structs.replace(_parse_call(i, item), raw=as_received)
        for i, (item, as_received) in enumerate(zip(tool_calls, echoed["tool_calls"], strict=True))
    ]
    quirks = sorted({quirk for call in calls for quirk in call.quirks})
    return Reply(model=model, content=content, calls=calls, message=echoed, quirks=quirks)


def _failed_generation(body: bytes, *, keep_surrogates: bool = False) -> tuple[bool, Any]:
    """(True, the model's output) for a 400 `tool_use_failed` that carries one, else (False, None)."""
    try:
        error = _loads(body, mark_duplicates=True, keep_surrogates=keep_surrogates).get("error")
    except (ValueError, RecursionError, AttributeError):
        return False, None
    if not isinstance(error, dict) or error.get("code") != "tool_use_failed":
        return False, None
    generation = error.get("failed_generation")
    return generation is not None, generation


def tool_use_failed(status: int, body: bytes) -> bool:
    """A 400 that is the model's answer: the provider (Groq) refused the model's own call and sent
    the model's output back in `failed_generation`. Decided here, on the recorded body, so replay
    agrees with live. Without a `failed_generation` (missing or null) there is nothing of the
    model's to judge, and the 400 errors the case like any other."""
    return status == 400 and _failed_generation(body)[0]


def _generated_items(generation: Any) -> list[Any]:
    """The calls in a model's output: a string is the output's text, read as JSON when it is JSON
    ("" is no output: no call; text of only whitespace is text that is not JSON, judged as sent);
    any other value is the output already parsed (as arguments sent as an object are). An object is
    one call, a list one call per item (`[]`: no call); anything else (text that is not JSON, a
    number, a string) is one call that is not a call object. Lone surrogates are kept (the echo)."""
    if isinstance(generation, str):
        if generation == "":
            return []
        try:
            generation = _loads(generation, mark_duplicates=True, keep_surrogates=True)
        except (ValueError, RecursionError):
            return [generation]
    if isinstance(generation, list):
        return list(generation)
    return [generation]


def parse_tool_use_failed(body: bytes) -> Reply:
    """The calls the model made in a provider's refusal, judged like any other calls.

    The provider's verdict never decides ours: each item of `failed_generation` that is an object
    `{name, arguments}` is read as a `tool_calls` entry's `function` (the same name and arguments
    rules, object arguments and repeated keys included), and the refusal is kept as a quirk.
    """
    _, generation = _failed_generation(body, keep_surrogates=True)
    calls = []
    for index, received in enumerate(_generated_items(generation)):
        # An object is the call's `function`, echoed into a chain as the model wrote it (lone
        # surrogates kept); what is judged reads them as U+FFFD.
        judged, echoed = (
            ({"type": "function", "function": item} if isinstance(item, dict) else item)
            for item in (_without_surrogates(received), received)
        )
        call = _parse_call(index, judged)
        quirks = sorted({*call.quirks, QUIRK_REJECTED_BY_PROVIDER})
        calls.append(msgspec.structs.replace(call, raw=echoed, quirks=quirks))
    quirks = sorted({quirk for call in calls for quirk in call.quirks} | {QUIRK_REJECTED_BY_PROVIDER})
    return Reply(model=None, content=None, calls=calls, quirks=quirks)


def call_id(call: ObservedCall) -> str:
    """The id the chain uses for a call both in the echoed assistant turn and in its tool message:
    the id as received (a lone surrogate kept, where `call.id`, judged, reads it as U+FFFD)."""
    received = call.raw.get("id") if isinstance(call.raw, dict) else None
    return received if isinstance(received, str) and received else f"call_{call.index}"


def assistant_message(reply: Reply) -> dict[str, Any]:
    """The model's own turn, echoed back into a chain as received (DeepSeek's `reasoning_content`
    and the like included), except that a call with a missing or "" id gets the id its tool
    message uses."""
    message: dict[str, Any] = dict(reply.message) if reply.message is not None else {"content": reply.content}
    message["role"] = "assistant"
    calls = []
    for call in reply.calls:
        raw = call.raw
        if isinstance(raw, dict) and raw.get("id") != call_id(call):
            raw = {**raw, "id": call_id(call)}
        calls.append(raw)
    message["tool_calls"] = calls
    return message


def tool_message(call: ObservedCall, result: str) -> Message:
    return Message(role="tool", tool_call_id=call_id(call), content=result)

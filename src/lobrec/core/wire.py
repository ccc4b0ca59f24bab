"""The chat-completions wire format: request bodies out, tool calls in, bytes only.

Bodies are encoded deterministically (msgspec, fixed key order) so the same case always sends the
same bytes; replay matches recorded requests on those bytes. Parsing a reply never raises on what a
*model* wrote (that is judged); it raises `GatewayError` only when the body is not a chat
completion at all, which is the gateway's fault, not the model's.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from lobrec.core.suite import Message, Tool
from lobrec.errors import GatewayError

_encoder = msgspec.json.Encoder()


class ChatRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Exactly the four fields the methodology allows, in a fixed order."""

    model: str
    messages: list[Message | dict[str, Any]]
    tools: list[Tool]
    temperature: int = 0


def request_body(model: str, messages: list[Message | dict[str, Any]], tools: list[Tool]) -> bytes:
    return _encoder.encode(ChatRequest(model=model, messages=messages, tools=tools))


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


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of one chat completion that judging needs."""

    model: str | None
    content: str | None
    calls: list[ObservedCall]
    tool_calls_problem: str | None = None
    """Set when `tool_calls` itself is malformed (not a list): counts as a failed call attempt."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _loads(text: str | bytes) -> Any:
    """Strict JSON: Python's json accepts NaN and Infinity, which JSON does not.

    JSON may also spell a lone surrogate (`"\\ud800"`), which Python keeps in the str and nothing
    can encode afterwards (not the results file, not a chain's next request): each becomes U+FFFD.
    """
    data = json.loads(text, parse_constant=_reject_constant)
    probe = text.decode(json.detect_encoding(text), "surrogatepass") if isinstance(text, bytes) else text
    if _SURROGATE_ESCAPE.search(probe) or _SURROGATE.search(probe):
        data = _without_surrogates(data)
    return data


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    return value


def _parse_arguments(name: str | None, text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments as a JSON object, or None and why not."""
    label = name or "the call"
    if not isinstance(text, str):
        return None, f"arguments of {label} are not a string"
    try:
        parsed = _loads(text)
    except (ValueError, RecursionError):
        return None, f"arguments of {label} are not valid JSON"
    if not isinstance(parsed, dict):
        return None, f"arguments of {label} are JSON but not an object"
    return parsed, None


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
    arguments, arguments_problem = _parse_arguments(name, text)
    return ObservedCall(
        index=index,
        id=call_id,
        name=name,
        arguments_text=text if isinstance(text, str) else None,
        arguments=arguments,
        problem=f"tool call {index} has no name" if name is None else arguments_problem,
        raw=item,
    )


def parse_completion(body: bytes) -> Reply:
    """Read a 200 body as a chat completion; raise GatewayError when it is not one."""
    try:
        data = _loads(body)
    except (ValueError, RecursionError):
        raise GatewayError(f"the gateway's 200 body is not JSON ({len(body)} bytes)") from None
    if not isinstance(data, dict):
        raise GatewayError("the gateway's 200 body is not a chat completion (not an object)")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise GatewayError("the gateway's 200 body is not a chat completion (no choices)")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise GatewayError("the gateway's 200 body is not a chat completion (no message)")
    model = data.get("model") if isinstance(data.get("model"), str) else None
    content = message.get("content") if isinstance(message.get("content"), str) else None
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        return Reply(model=model, content=content, calls=[])
    if not isinstance(tool_calls, list):
        return Reply(
            model=model,
            content=content,
            calls=[],
            tool_calls_problem=f"tool_calls is {type(tool_calls).__name__}, not a list",
        )
    return Reply(
        model=model, content=content, calls=[_parse_call(i, item) for i, item in enumerate(tool_calls)]
    )


def assistant_message(reply: Reply) -> dict[str, Any]:
    """The model's own turn, echoed back into a chain exactly as it called the tools."""
    return {"role": "assistant", "content": reply.content, "tool_calls": [call.raw for call in reply.calls]}


def tool_message(call: ObservedCall, result: str) -> Message:
    return Message(role="tool", tool_call_id=call.id or f"call_{call.index}", content=result)

"""The chat-completions wire format as the fake gateway speaks it: requests in, replies out.

Kept free of any model's behaviour so that what a request must look like, and what a completion, an
error or a price looks like, is stated once for every scripted model and for the fault injector.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from decimal import Decimal
from typing import Any

import msgspec

CREATED = 1792540800
"""2026-10-21T00:00:00Z, the suite's date: a fixed `created` keeps every answer byte-identical."""

PROMPT_PRICE = Decimal("0.0000005")
COMPLETION_PRICE = Decimal("0.0000015")
"""US dollars per fake token (a token is four bytes); only the header's shape and stability matter."""


class FakeReply(msgspec.Struct, frozen=True, kw_only=True):
    """One HTTP answer decided by the brain: status, headers (lower-case names), body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """What a scripted model says: text, or tool calls as (name, arguments text) pairs."""

    content: str | None = None
    calls: list[tuple[str, str]] = []


class ChatCall(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of a valid chat-completions request the brain reads."""

    model: str
    messages: list[dict[str, Any]]
    tool_names: list[str]
    has_temperature: bool


def json_bytes(value: Any) -> bytes:
    """Compact JSON, the encoding of every body the fake sends."""
    return msgspec.json.encode(value)


_ERROR_KINDS: dict[int, tuple[str, str, str]] = {
    400: ("invalid_request_error", "bad_request", "The request was rejected."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("permission_error", "model_not_allowed", "This key is not allowed to use this model."),
    429: ("rate_limit_error", "rate_limit_exceeded", "Rate limit reached; retry after 1 second."),
    500: ("server_error", "internal_error", "The gateway failed to process the request."),
    502: ("upstream_error", "bad_gateway", "The upstream provider returned an invalid response."),
    503: ("server_error", "service_unavailable", "The gateway is overloaded; try again later."),
    504: ("upstream_error", "upstream_timeout", "The upstream provider did not answer in time."),
}


def error_reply(
    status: int, message: str, error_type: str, code: str | None, *, retry_after: int = 1
) -> FakeReply:
    """The gateway's error shape: `{"error": {"message", "type", "code"}}`; 429 adds `retry-after`."""
    headers = {"content-type": "application/json"}
    if status == 429:
        headers["retry-after"] = str(retry_after)
    body = json_bytes({"error": {"message": message, "type": error_type, "code": code}})
    return FakeReply(status=status, headers=headers, body=body)


def status_fault_reply(status: int) -> FakeReply:
    """An injected error status, worded like the gateway's own and marked as injected."""
    error_type, code, message = _ERROR_KINDS[status]
    return error_reply(status, f"{message} (injected fault)", error_type, code)


def key_refusal(authorization: str | None, required: str) -> FakeReply | None:
    """`--require-key`'s 401 for a request whose `Authorization` is not `Bearer <required>`, else
    None. Worded like OpenAI's; it never quotes what was sent, so a wrong key is not echoed."""
    sent = (authorization or "").strip()
    scheme, _, token = sent.partition(" ")
    bearer, token = scheme.lower() == "bearer", token.strip()
    if bearer and hmac.compare_digest(token.encode("utf-8", "surrogatepass"), required.encode()):
        return None
    if not sent or (bearer and not token):
        return error_reply(
            401,
            "You didn't provide an API key. Send it as `Authorization: Bearer KEY`.",
            "invalid_request_error",
            "missing_api_key",
        )
    error_type, code, message = _ERROR_KINDS[401]
    return error_reply(401, message, error_type, code)


def json_reply(body: bytes, status: int = 200) -> FakeReply:
    return FakeReply(status=status, headers={"content-type": "application/json"}, body=body)


def _bad_request(message: str) -> FakeReply:
    return error_reply(400, message, "invalid_request_error", "invalid_request")


# --- reading a request ----------------------------------------------------------------------------


def _model_problem(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    if not isinstance(model, str) or not model:
        return "`model` is required and must be a non-empty string."
    return None


def _messages_problem(data: dict[str, Any]) -> str | None:
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        return "`messages` is required and must be a non-empty array."
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return f"`messages[{index}]` must be an object with a string `role`."
    return None


def _tool_name(tool: Any) -> str | None:
    function = tool.get("function") if isinstance(tool, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _tools_problem(data: dict[str, Any]) -> str | None:
    tools = data.get("tools", [])
    if not isinstance(tools, list):
        return "`tools` must be an array."
    for index, tool in enumerate(tools):
        if _tool_name(tool) is None:
            return f"`tools[{index}].function.name` is required and must be a string."
    return None


def _stream_problem(data: dict[str, Any]) -> str | None:
    return "Streaming is not supported by the fake gateway." if data.get("stream") else None


_REQUEST_RULES = (_model_problem, _messages_problem, _tools_problem, _stream_problem)
"""What a real API checks in a request body, in the order it reports the first problem."""


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
    for rule in _REQUEST_RULES:
        problem = rule(data)
        if problem is not None:
            return _bad_request(problem)
    return ChatCall(
        model=data["model"],
        messages=data["messages"],
        tool_names=[name for tool in data.get("tools", []) if (name := _tool_name(tool)) is not None],
        has_temperature="temperature" in data,
    )


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


def completion_body(request_body: bytes, model: str, served: str, step: int, turn: Turn) -> dict[str, Any]:
    """A real OpenAI chat completion, fully determined by the request bytes and the turn.

    `model` is the one asked for (it seeds the id); `served` is the one the body names.
    """
    message = _message(turn, step)
    prompt_tokens = _tokens(len(request_body))
    completion_tokens = _tokens(len(json_bytes(message)))
    request_hash = hashlib.sha256(model.encode("utf-8") + b"\0" + request_body).hexdigest()
    return {
        "id": f"chatcmpl-{request_hash[:24]}",
        "object": "chat.completion",
        "created": CREATED,
        "model": served,
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

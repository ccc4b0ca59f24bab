"""The spellings of a secret: every form the API key can take in text lobrec writes or reads.

A gateway, a proxy or an error message can reflect the key as written, JSON-escaped, `\\u`-escaped,
in a Python repr, percent-encoded (a redirect `Location`), or base64-encoded (an id built from it, a
`Basic`/`Bearer` header echoed back). The recorder scrubs every spelling before a byte reaches a
cassette, an error text or a report (`lobrec.running.live`), and `lobrec audit` looks for the same ones
(`lobrec.cassette.audit`): this module is the one list of them.

Base64 is found at each of the three byte alignments the key can have inside a longer encoded text
(`Bearer KEY` puts it at the second): the characters that depend on the key's bytes alone are the
same whatever surrounds it, with or without padding, so they are looked for, and scrubbed, wherever
they stand. The key is at least 16 characters (`lobrec.running.gateway.MIN_KEY_LENGTH`), so that core is at
least 18 base64 characters and does not turn up by chance.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "<redacted>"
"""What a spelling of the key is replaced by."""

_PERCENT = re.compile(r"%[0-9A-F]{2}")
_NESTED_JSON_DEPTH = 3
"""How many times a JSON text inside a string of a JSON text is opened (a tool call's arguments in
a completion body in a cassette): deeper nesting is not something a gateway writes."""


def _base64_cores(data: bytes) -> Iterator[str]:
    """For each alignment of `data` in a longer text, the base64 characters that only its bytes
    decide (standard and URL-safe alphabets)."""
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        start = (0, 2, 3)[offset]  # characters that also carry bits of the bytes before
        end = (offset + len(data)) * 4 // 3  # characters after that carry bits of the bytes after
        core = encoded[start:end]
        yield core
        yield core.replace("+", "-").replace("/", "_")


def _base64_forms(secret: str) -> Iterator[str]:
    for data in (secret.encode(), f"Bearer {secret}".encode()):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            padded = encode(data).decode("ascii")
            yield padded
            yield padded.rstrip("=")
    yield from _base64_cores(secret.encode())


def _percent_forms(secret: str) -> Iterator[str]:
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret, safe="")):
        yield encoded
        yield _PERCENT.sub(lambda match: match.group().lower(), encoded)


def _escaped_forms(secret: str) -> Iterator[str]:
    escaped = json.dumps(secret)[1:-1]
    yield escaped
    yield escaped.replace("/", "\\/")
    yield "".join(f"\\u{ord(char):04x}" for char in secret)
    yield "".join(f"\\u{ord(char):04X}" for char in secret)
    yield repr(secret)[1:-1]
    yield repr(secret.encode("utf-8", "backslashreplace"))[2:-1]
    yield html.escape(secret, quote=True)


@functools.cache
def spellings(secret: str) -> tuple[str, ...]:
    """Every spelling of `secret` this module knows, longest first (so a longer form is scrubbed
    whole before a shorter one inside it)."""
    forms = {secret, *_escaped_forms(secret), *_percent_forms(secret), *_base64_forms(secret)}
    return tuple(sorted((form for form in forms if form), key=lambda form: (-len(form), form)))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every spelling of every secret replaced by `<redacted>`."""
    for secret in secrets:
        if secret:
            for form in spellings(secret):
                if form in text:
                    text = text.replace(form, REDACTED)
    return text


def spelled_in(text: str, secret: str) -> bool:
    """`secret` stands in `text` in one of its spellings."""
    return any(form in text for form in spellings(secret))


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())


def holds(text: str, secret: str, depth: int = _NESTED_JSON_DEPTH) -> bool:
    """`secret` is in `text` in any spelling, or in any string of it read as JSON (so half
    `\\u`-escaped, or inside a JSON text inside a JSON string), however it is escaped."""
    if not secret:
        return False
    if spelled_in(text, secret):
        return True
    if depth == 0 or not text.lstrip().startswith(("{", "[", '"')):
        return False
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return any(holds(string, secret, depth - 1) for string in _strings(parsed))


def scrub_bytes(data: bytes, secrets: tuple[str, ...]) -> bytes:
    """`data` (a request or reply body) with every spelling of every secret replaced by `<redacted>`."""
    for secret in secrets:
        for form in spellings(secret):
            encoded = form.encode("utf-8", "surrogatepass")
            if encoded in data:
                data = data.replace(encoded, REDACTED.encode())
    return data


def holds_secret(data: bytes, secrets: tuple[str | bytes, ...]) -> bool:
    """A secret is in these bytes in any spelling, or in any string of them read as JSON, however
    it is escaped."""
    text = data.decode("utf-8", "replace")
    return any(holds(text, s.decode() if isinstance(s, bytes) else s) for s in secrets)

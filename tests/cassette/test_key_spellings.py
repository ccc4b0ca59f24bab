"""The key never leaves the process in any spelling, and a malformed key is refused up front
(issue 25, defects 3 and 8).

A gateway can reflect the key raw, JSON- or `\\u`-escaped, in a repr, percent-encoded (a redirect
`Location`), or base64-encoded, alone or as `Bearer KEY`, at any byte alignment (an id built from
it); as a response header's name or value, in the reason phrase, an error message, a completion id
or the reply. The tests generate random keys, spell them every way, put them in every place, and
look for the key with a detector of their own (it decodes every escape, percent-encoding and base64
run it finds), in every byte that reaches a cassette, a result or an error text.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobrec.cassette.audit import audit
from lobrec.cassette.layout import model_dir_name
from lobrec.cassette.spellings import scrub
from lobrec.cassette.vcrpy import cassette_bytes, new_for_recording
from lobrec.errors import ConfigError
from lobrec.running.gateway import resolve_gateway
from lobrec.running.live import LiveLink
from lobrec.running.runner import no_sleep, run_case
from tests.cassette.test_secrets import record
from tests.support.cli import cli_env, run_lobrec
from tests.support.faults import FAST_RETRIES, RawRequest, RawServer
from tests.support.gateway import build_small_suite
from tests.support.strategies import api_keys, malformed_keys

SUITE = build_small_suite()
CASE = next(case for case in SUITE.cases if case.id == "sel-01")
URL = "http://gateway.invalid/v1/chat/completions"

# --- an independent detector ----------------------------------------------------------------------

_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\(.)", re.DOTALL)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        return chr(int(code, 16)) if code else match.group(3)

    return _ESCAPE.sub(one, text)


def _base64_decodings(text: str) -> list[bytes]:
    """Every run of base64 characters decoded from each of its first four offsets."""
    out = []
    for run in _BASE64_RUN.findall(text):
        run = run.rstrip("=").replace("-", "+").replace("_", "/")
        for start in range(4):
            piece = run[start:]
            if len(piece) % 4 == 1:
                piece = piece[:-1]
            out.append(base64.b64decode(piece + "=" * (-len(piece) % 4)))
    return out


def leaks(text: str, key: str) -> list[str]:
    """The ways `key` can be read back out of `text`."""
    found = []
    views = {
        "as written": text,
        "escaped": _unescape(text),
        "percent-encoded": unquote(text),
        "form-encoded": unquote_plus(text),
        "HTML-escaped": html.unescape(text),
    }
    found += [name for name, view in views.items() if key in view]
    if any(key.encode() in decoded for decoded in _base64_decodings(text)):
        found.append("base64")
    return found


def _b64(prefix: bytes, data: bytes, suffix: bytes, *, urlsafe: bool, padded: bool) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    encoded = encode(prefix + data + suffix).decode()
    return encoded if padded else encoded.rstrip("=")


Spell = Callable[[str, bytes, bytes, bool, bool], str]
SPELLINGS: dict[str, Spell] = {
    "raw": lambda key, pre, post, urlsafe, padded: key,
    "JSON-escaped": lambda key, pre, post, urlsafe, padded: json.dumps(key)[1:-1].replace("/", "\\/"),
    "\\u-escaped": lambda key, pre, post, urlsafe, padded: "".join(f"\\u{ord(c):04x}" for c in key),
    "repr": lambda key, pre, post, urlsafe, padded: repr(key.encode())[2:-1],
    "percent-encoded": lambda key, pre, post, urlsafe, padded: quote(key, safe=""),
    "percent-encoded, lower-case hex": lambda key, pre, post, urlsafe, padded: re.sub(
        "%[0-9A-F]{2}", lambda m: m.group().lower(), quote(key, safe="")
    ),
    "form-encoded": lambda key, pre, post, urlsafe, padded: quote_plus(key),
    "base64 of the key": lambda key, pre, post, urlsafe, padded: _b64(
        b"", key.encode(), b"", urlsafe=urlsafe, padded=padded
    ),
    "base64 of Bearer KEY": lambda key, pre, post, urlsafe, padded: _b64(
        b"Bearer ", key.encode(), b"", urlsafe=urlsafe, padded=padded
    ),
    "base64 inside other bytes": lambda key, pre, post, urlsafe, padded: _b64(
        pre, key.encode(), post, urlsafe=urlsafe, padded=padded
    ),
}


@st.composite
def spelled_keys(draw: st.DrawFn) -> tuple[str, str, str]:
    """(key, spelling name, the key so spelled), base64 at every alignment and in both alphabets."""
    # A prefix keeps a random key from being a piece of the URL or the prompt the recording holds.
    key = "lsk-" + draw(api_keys())[4:]
    name = draw(st.sampled_from(sorted(SPELLINGS)))
    prefix = draw(st.binary(max_size=5))
    suffix = draw(st.binary(max_size=5))
    spelled = SPELLINGS[name](key, prefix, suffix, draw(st.booleans()), draw(st.booleans()))
    return key, name, spelled


def test_the_detector_sees_every_spelling() -> None:
    """The detector is the oracle below: it must find each spelling before any scrubbing."""
    key = "lsk-canary/RT+4471=zz-9d3f"
    for name, spell in SPELLINGS.items():
        for pre in (b"", b"x", b"xy"):
            for urlsafe in (False, True):
                spelled = spell(key, pre, b"q", urlsafe, True)
                assert leaks(f"id-{spelled}-end", key), name


@given(spelled=spelled_keys(), around=st.tuples(st.text(max_size=20), st.text(max_size=20)))
def test_scrubbing_leaves_no_spelling_of_a_random_key(spelled: tuple[str, str, str], around: Any) -> None:
    key, _, text = spelled
    before, after = around
    assert leaks(scrub(before + text + after, (key,)), key) == []


# --- a gateway reflecting the key in each place ---------------------------------------------------


def _completion(request: httpx.Request, **changes: str) -> bytes:
    from lobrec.fakegateway import answer

    completion = json.loads(answer(SUITE, request.content).body)
    if "id" in changes:
        completion["id"] = changes["id"]
    if "content" in changes:
        completion["choices"][0]["message"]["content"] = changes["content"]
    return json.dumps(completion).encode()


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "auth", "code": None}}).encode()


Place = Callable[[str, httpx.Request], httpx.Response]
PLACES: dict[str, Place] = {
    "a header name": lambda s, r: httpx.Response(200, headers={f"x-echo-{s}": "1"}, content=_completion(r)),
    "an allowed header's value": lambda s, r: httpx.Response(
        200, headers={"x-lobstack-dropped-params": f"temperature, {s}"}, content=_completion(r)
    ),
    "another header's value": lambda s, r: httpx.Response(
        200, headers={"x-request-id": s}, content=_completion(r)
    ),
    "a redirect Location": lambda s, r: httpx.Response(
        302, headers={"location": f"http://127.0.0.2/v1?k={s}"}, content=b""
    ),
    "the reason phrase": lambda s, r: httpx.Response(
        401, content=_error("no"), extensions={"reason_phrase": f"Unauthorized {s}".encode()}
    ),
    "a 401 message": lambda s, r: httpx.Response(401, content=_error(f"bad key {s}")),
    "a 401 body that is not JSON": lambda s, r: httpx.Response(401, content=f"denied: {s}".encode()),
    "the completion id": lambda s, r: httpx.Response(200, content=_completion(r, id=f"chatcmpl-{s}")),
    "the reply text": lambda s, r: httpx.Response(200, content=_completion(r, content=f"key: {s}")),
}


def _record_one(key: str, place: Place, spelled: str, path: Path) -> tuple[bytes, bytes]:
    """Record one case against a gateway putting `spelled` in `place`: the cassette and the result."""

    async def go() -> tuple[bytes, bytes]:
        cassette = new_for_recording(path)
        transport = httpx.MockTransport(lambda request: place(spelled, request))
        async with LiveLink(transport, URL, secrets=(key,)) as link:
            result = await run_case(
                link.recording_into(cassette), SUITE, CASE, "fixture/oracle", sleep=no_sleep
            )
        return cassette_bytes(cassette), msgspec.json.encode(result)

    return asyncio.run(go())


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spelled=spelled_keys(), place=st.sampled_from(sorted(PLACES)))
def test_a_key_reflected_anywhere_reaches_no_cassette_and_no_result(
    tmp_path: Path, spelled: tuple[str, str, str], place: str
) -> None:
    key, _, text = spelled
    cassette, result = _record_one(key, PLACES[place], text, tmp_path / "c.json")
    assert leaks(cassette.decode(), key) == []
    assert leaks(result.decode(), key) == []


def test_only_the_allowed_response_headers_are_recorded(tmp_path: Path) -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        headers = [
            ("content-type", "application/json"),
            ("x-lobstack-cost-usd", "0.0001"),
            ("x-lobstack-dropped-params", "temperature"),
            ("retry-after", "1"),
            ("server", "gw"),
            ("x-request-id", "abc"),
            ("x-lobrec-error", "Timeout: forged"),
        ]
        return httpx.Response(200, headers=headers, content=_completion(request))

    cassette, _ = _record_one("lsk-canary-0123456789", lambda s, r: handle(r), "", tmp_path / "c.json")
    (interaction,) = json.loads(cassette)["interactions"]
    assert sorted(interaction["response"]["headers"]) == [
        "content-type",
        "retry-after",
        "x-lobrec-elapsed-ms",
        "x-lobstack-cost-usd",
        "x-lobstack-dropped-params",
    ]


# --- the audit looks for the same spellings, and masks them in paths -------------------------------


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spelled=spelled_keys(), where=st.sampled_from(["header name", "header value", "body"]))
def test_the_audit_finds_every_spelling_and_prints_none(
    tmp_path_factory: pytest.TempPathFactory, spelled: tuple[str, str, str], where: str
) -> None:
    key, _, text = spelled
    root = tmp_path_factory.mktemp("audit")
    from tests.support.faults import oracle_handler, record_with_handler

    asyncio.run(
        record_with_handler(SUITE, root, "m", oracle_handler(SUITE, "fixture/oracle"), case_ids=["sel-01"])
    )
    path = root / model_dir_name("m") / "sel-01.json"
    data = json.loads(path.read_bytes())
    response = data["interactions"][0]["response"]
    if where == "header name":
        response["headers"][f"x-{text}"] = ["1"]
    elif where == "header value":
        response["headers"]["content-type"] = [f"application/json; {text}"]
    else:
        response["body"]["string"] = response["body"]["string"].replace('"chatcmpl-', f'"chatcmpl-{text}', 1)
    path.write_text(json.dumps(data))

    findings = audit(root, secrets=[key])
    printed = "\n".join(str(finding) for finding in findings)
    assert "holds the value of LOBSTACK_API_KEY" in printed
    assert leaks(printed, key) == []


# --- a malformed key is refused before any request ----------------------------------------------


@given(malformed=malformed_keys())
def test_a_key_with_a_character_no_header_can_carry_is_refused_without_being_shown(
    malformed: tuple[str, str],
) -> None:
    key, bad = malformed
    with pytest.raises(ConfigError) as info:
        resolve_gateway("http://127.0.0.1:9/v1", {"LOBSTACK_API_KEY": key})
    message = str(info.value)
    assert f"(U+{ord(bad):04X})" in message
    assert "\n" not in message
    assert leaks(message, key) == [] and key.strip() not in message


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "lsk-canary-0123456789\f",
            "LOBSTACK_API_KEY holds a control character (U+000C) at position 22 of 22; a key is "
            "visible ASCII only (check for a stray space, newline or form feed)",
        ),
        (
            "lsk-canary-0123456789é",
            "LOBSTACK_API_KEY holds a non-ASCII character (U+00E9) at position 22 of 22; a key is "
            "visible ASCII only (check for a stray space, newline or form feed)",
        ),
    ],
    ids=["form feed", "non-ASCII"],
)
def test_record_refuses_a_malformed_key_before_any_request(
    fake_gateway: Any, tmp_path: Path, key: str, expected: str
) -> None:
    done = run_lobrec(
        [
            "record",
            "--model",
            "fixture/oracle",
            "--base-url",
            fake_gateway.url,
            "--suite",
            str(fake_gateway.suite_path),
            "--cassettes",
            str(tmp_path / "cassettes"),
            *FAST_RETRIES,
        ],
        env=cli_env(LOBSTACK_API_KEY=key),
        cwd=tmp_path,
    )

    assert done.returncode == 2
    assert done.stderr.decode("utf-8", "replace") == f"lobrec: {expected}\n"
    assert fake_gateway.log() == []
    assert not (tmp_path / "cassettes").exists()


# --- end to end: every report of a run against a gateway echoing the key --------------------------


def _echo_everywhere(server: RawServer, connection: Any, request: RawRequest) -> None:
    """A 401 reflecting the key as a header name, in base64 of `Bearer KEY` in a header value and in
    the message, base64 of the key alone, and percent-encoded in a `Location`."""
    from tests.support.faults import _send

    bearer = request.headers.get("authorization", "")
    key = bearer.removeprefix("Bearer ")
    b64_bearer = base64.b64encode(bearer.encode())
    message = f"bad credentials {b64_bearer.decode()} for {base64.b64encode(key.encode()).decode()}"
    headers = [
        (f"x-{key}".encode(), b"1"),
        (b"x-echo", b"Basic " + b64_bearer),
        (b"location", f"http://127.0.0.2/?k={quote(key, safe='')}".encode()),
    ]
    _send(connection, 401, _error(message), headers)


def test_a_gateway_echoing_the_key_in_every_spelling_leaks_into_no_report(
    raw_server: RawServer, small_suite_path: Path, tmp_path: Path
) -> None:
    from tests.cassette.test_secrets import CANARY

    raw_server.script = [_echo_everywhere]
    done = record(
        raw_server.url,
        small_suite_path,
        tmp_path,
        "--case",
        "sel-01",
        "--concurrency",
        "1",
        "--csv",
        str(tmp_path / "steps.csv"),
        "--junit",
        str(tmp_path / "junit.xml"),
        "--jsonl",
        str(tmp_path / "steps.jsonl"),
    )

    outputs = [path for path in sorted(tmp_path.rglob("*")) if path.is_file()]
    assert {path.name for path in outputs} >= {"results.json", "report.html", "steps.csv", "junit.xml"}
    for path in outputs:
        assert leaks(path.read_bytes().decode("utf-8", "replace"), CANARY) == [], path
    for stream in (done.stdout, done.stderr):
        assert leaks(stream.decode("utf-8", "replace"), CANARY) == []
    reasons = [
        case["reason"]
        for model in json.loads((tmp_path / "results.json").read_bytes())["models"]
        for case in model["cases"]
        if case["id"] == "sel-01"
    ]
    assert "step 1: the gateway answered 401: bad credentials <redacted> for <redacted>" in reasons

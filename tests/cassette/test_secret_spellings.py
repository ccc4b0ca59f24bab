"""The key in any spelling a JSON text or a status line allows (issue 12, items 1 and 4).

A gateway that JSON-escapes the key (`canary\\/RT+4471=zz`), `\\u`-escapes it, or puts it in the
HTTP reason phrase must not get it into a cassette, and a 200 answer holding it is errored rather
than altered, since altering it would change the verdict.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lobrec.cassette.spellings import holds_secret
from lobrec.cassette.vcrpy import new_for_recording, save
from lobrec.errors import GatewayError
from lobrec.running.exchange import Answer
from lobrec.running.live import LiveLink

KEY = "lsk-canary/RT+4471=zz-9d3f"
URL = "http://127.0.0.1:9/v1/chat/completions"


def _body(content: str) -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps({"model": "m", "choices": [{"index": 0, "message": message}]}).encode()


def _escaped(text: str) -> str:
    return json.dumps(text)[1:-1].replace("/", "\\/")


def _unicode(text: str) -> str:
    return "".join(f"\\u{ord(char):04x}" for char in text)


def _raw(
    content: bytes, status: int = 200, reason: bytes = b"OK"
) -> Callable[[httpx.Request], httpx.Response]:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content, extensions={"reason_phrase": reason})

    return handle


def _exchange(handler: Callable[[httpx.Request], httpx.Response], path: Path) -> Answer | str:
    async def go() -> Answer | str:
        cassette = new_for_recording(path)
        async with LiveLink(httpx.MockTransport(handler), URL, secrets=(KEY,)) as link:
            try:
                return await link.recording_into(cassette).send(b"{}")
            except GatewayError as exc:
                return str(exc)
            finally:
                save(cassette)

    return asyncio.run(go())


def _with(content: str) -> bytes:
    return _body("x").replace(b'"x"', b'"your key is ' + content.encode() + b'"')


SPELLINGS = {
    "raw": KEY,
    "JSON-escaped slash": _escaped(KEY),
    "every character \\u-escaped": _unicode(KEY),
    "half \\u-escaped": _unicode(KEY[:6]) + KEY[6:],
}


@pytest.mark.parametrize("spelling", list(SPELLINGS), ids=list(SPELLINGS))
def test_a_200_answer_holding_the_key_errors_its_case_and_keeps_nothing(
    tmp_path: Path, spelling: str
) -> None:
    path = tmp_path / "c.json"
    outcome = _exchange(_raw(_with(SPELLINGS[spelling])), path)

    assert outcome == "the gateway's 200 answer contains the API key; it was not recorded"
    assert not holds_secret(path.read_bytes(), (KEY.encode(),))


@pytest.mark.parametrize("spelling", list(SPELLINGS), ids=list(SPELLINGS))
def test_an_error_answer_and_its_reason_phrase_are_recorded_without_the_key(
    tmp_path: Path, spelling: str
) -> None:
    path = tmp_path / "c.json"
    error = json.dumps({"error": {"message": "bad key"}}).replace("bad key", "bad key " + SPELLINGS[spelling])
    reason = f"Unauthorized Bearer {KEY}".encode()
    response = _exchange(_raw(error.encode(), status=401, reason=reason), path)

    assert isinstance(response, Answer) and response.status == 401
    recorded = path.read_bytes()
    assert not holds_secret(recorded, (KEY.encode(),))
    (interaction,) = json.loads(recorded)["interactions"]
    assert interaction["response"]["status"]["message"] == "Unauthorized Bearer <redacted>"


def test_an_answer_without_the_key_is_kept_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    body = _body("lsk-canary alone is not the key")
    response = _exchange(_raw(body), path)
    assert isinstance(response, Answer) and response.body == body

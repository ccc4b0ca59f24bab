"""Faults a test can stage: a scripted raw server, recording without sockets, other gateway processes.

The fake gateway process (`tests/support/gateway.py`) makes every fault it documents. A few faults
need bytes no well-behaved HTTP server writes: a reset in the middle of a body, a body that
trickles in a byte at a time, a gzip bomb, a Latin-1 header, a body that is not UTF-8, a redirect,
a gateway that echoes the API key back. `RawServer` writes those by hand on a loopback socket, one
scripted behaviour per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from lobrec.cassette.format import Manifest, ManifestCase, ManifestSuite
from lobrec.cassette.layout import case_file_name, model_dir_name
from lobrec.cassette.manifest import case_fingerprint, save_manifest
from lobrec.cassette.vcrpy import new_for_recording, save
from lobrec.core.metrics.results import CaseResult
from lobrec.core.suite.format import Suite
from lobrec.errors import SuiteError
from lobrec.fakegateway import answer
from lobrec.running.live import LiveLink
from lobrec.running.runner import no_sleep, run_case
from lobrec.suite_file import load_suite
from tests.support.gateway import FakeGatewayProcess, running_gateway

REPO = Path(__file__).resolve().parents[2]
REAL_SUITE = REPO / "suite" / "suite.json"
FAST_RETRIES = ["--retry-delays", "0.01,0.02,0.04"]


def real_suite_path() -> Path | None:
    """`suite/suite.json` when it decodes and has its 80 cases, else None (for the small suite)."""
    try:
        suite = load_suite(REAL_SUITE)
    except SuiteError:
        return None
    return REAL_SUITE if len(suite.cases) == 80 else None


# --- recording without sockets -------------------------------------------------------------------

MOCK_URL = "http://gateway.invalid/v1/chat/completions"


async def record_with_handler(
    suite: Suite,
    root: Path,
    model: str,
    handler: Callable[[httpx.Request], httpx.Response],
    *,
    case_ids: Sequence[str] = (),
) -> list[CaseResult]:
    """Record `suite` for `model` into `root` as `lobrec record` lays it out, with `handler` as the
    gateway (an `httpx.MockTransport`): cassettes and a manifest that `rescore` reads."""
    directory = root / model_dir_name(model)
    manifest = Manifest(
        model=model,
        suite=ManifestSuite(name=suite.name, version=suite.version),
        lobrec_version="test",
        started_at="2026-10-21T00:00:00+00:00",
        finished_at="2026-10-21T00:00:00+00:00",
    )
    results = []
    async with LiveLink(httpx.MockTransport(handler), MOCK_URL) as link:
        for case in suite.cases:
            if case_ids and case.id not in case_ids:
                continue
            cassette = new_for_recording(directory / case_file_name(case.id))
            results.append(await run_case(link.recording_into(cassette), suite, case, model, sleep=no_sleep))
            save(cassette)
            manifest.cases[case.id] = ManifestCase(fingerprint=case_fingerprint(suite, case))
    save_manifest(directory, manifest)
    return results


def oracle_handler(suite: Suite, model: str = "fixture/oracle") -> Callable[[httpx.Request], httpx.Response]:
    """A MockTransport handler answering like the fake gateway's `model` (no sockets)."""

    def handle(request: httpx.Request) -> httpx.Response:
        reply = answer(suite, request.content, model)
        return httpx.Response(reply.status, headers=reply.headers, content=reply.body)

    return handle


# --- a scripted raw HTTP server on loopback ------------------------------------------------------


@dataclass
class RawRequest:
    headers: dict[str, str]
    body: bytes


Behaviour = Callable[["RawServer", socket.socket, RawRequest], None]


def _status_line(status: int) -> bytes:
    return f"HTTP/1.1 {status} {httpx.codes.get_reason_phrase(status) or 'Status'}\r\n".encode()


def _head(status: int, headers: Sequence[tuple[bytes, bytes]], length: int) -> bytes:
    lines = [_status_line(status)]
    lines += [name + b": " + value + b"\r\n" for name, value in headers]
    lines.append(f"content-length: {length}\r\nconnection: close\r\n\r\n".encode())
    return b"".join(lines)


def _rst_close(connection: socket.socket) -> None:
    """Close with RST (SO_LINGER 0), as a crashed proxy would."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


@dataclass
class RawServer:
    """Loopback HTTP/1.1 server that answers the n-th request with `script[n]` (then `ok`).

    Every answer closes the connection, so each attempt of the runner is one connection.
    `suite` decides what `ok` answers (the fake gateway's oracle, for the model in the request).
    """

    suite: Suite
    script: list[Behaviour] = field(default_factory=list)
    requests: list[RawRequest] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    listener: socket.socket | None = None

    @property
    def url(self) -> str:
        assert self.listener is not None
        host, port = self.listener.getsockname()
        return f"http://{host}:{port}/v1"

    def start(self) -> RawServer:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        threading.Thread(target=self._accept, daemon=True, name="raw-server").start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            self.listener.close()

    def _accept(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with contextlib.suppress(OSError):
            connection.settimeout(10)
            request = _read_request(connection)
            if request is None:
                connection.close()
                return
            self.requests.append(request)
            behaviour = self.script.pop(0) if self.script else ok
            behaviour(self, connection, request)
            with contextlib.suppress(OSError):
                connection.close()

    def reply_for(self, request: RawRequest) -> tuple[int, dict[str, str], bytes]:
        reply = answer(self.suite, request.body)
        return reply.status, dict(reply.headers), reply.body


def _read_request(connection: socket.socket) -> RawRequest | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    return RawRequest(headers=headers, body=body)


def _send(
    connection: socket.socket, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    base = [(b"content-type", b"application/json"), *headers]
    connection.sendall(_head(status, base, len(body)) + body)


def ok(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    status, _, body = server.reply_for(request)
    _send(connection, status, body)


def reset_mid_body(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    status, _, body = server.reply_for(request)
    connection.sendall(_head(status, [(b"content-type", b"application/json")], len(body)))
    connection.sendall(body[: len(body) // 2])
    time.sleep(0.05)
    _rst_close(connection)


def drip(interval: float) -> Behaviour:
    """The headers at once, then the body one byte per `interval` seconds until the client leaves."""

    def behave(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
        status, _, body = server.reply_for(request)
        connection.sendall(_head(status, [(b"content-type", b"application/json")], len(body)))
        for index in range(len(body)):
            if server.stopping.wait(interval):
                return
            connection.sendall(body[index : index + 1])

    return behave


@functools.cache
def gzip_bomb_body(size: int) -> bytes:
    return gzip.compress(b"0" * size, compresslevel=9)


def gzip_bomb(size: int) -> Behaviour:
    """A 200 whose gzip body inflates to `size` bytes (64 KiB on the wire for 64 MiB)."""

    def behave(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
        _send(connection, 200, gzip_bomb_body(size), [(b"content-encoding", b"gzip")])

    return behave


def bad_gzip(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    """A 200 that says gzip but is not (the decoder fails mid-read)."""
    _send(connection, 200, b"\x1f\x8b\x08\x00garbage-not-deflate" * 4, [(b"content-encoding", b"gzip")])


def latin1_header(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    status, _, body = server.reply_for(request)
    _send(connection, status, body, [(b"x-upstream-note", b"caf\xe9 cr\xe8me")])


def not_utf8(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    _, _, body = server.reply_for(request)
    completion = json.loads(body)
    completion["choices"][0]["message"]["content"] = "MARK"
    _send(connection, 200, json.dumps(completion).encode().replace(b"MARK", b"caf\xe9"))


def redirect(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
    _send(connection, 302, b"", [(b"location", b"http://127.0.0.2:9/v1/chat/completions")])


def status(code: int, body: bytes = b"") -> Behaviour:
    def behave(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
        _send(connection, code, body)

    return behave


def echo_key(code: int = 200) -> Behaviour:
    """A gateway that reflects the Authorization header into a header, the body and an error message."""

    def behave(server: RawServer, connection: socket.socket, request: RawRequest) -> None:
        secret = request.headers.get("authorization", "")
        reflected = [(b"x-echo-authorization", secret.encode())]
        if code != 200:
            message = {"error": {"message": f"bad key {secret}", "type": "auth", "code": None}}
            _send(connection, code, json.dumps(message).encode(), reflected)
            return
        status_, _, body = server.reply_for(request)
        completion = json.loads(body)
        completion["id"] = f"chatcmpl-{secret}"
        completion["choices"][0]["message"]["content"] = f"your key is {secret}"
        _send(connection, status_, json.dumps(completion).encode(), reflected)

    return behave


@pytest.fixture
def raw_server(fake_gateway_process: FakeGatewayProcess) -> Iterator[RawServer]:
    """A scripted raw server answering for the small e2e suite; set `.script` before recording."""
    server = RawServer(suite=fake_gateway_process.suite).start()
    try:
        yield server
    finally:
        server.stop()


# --- fake gateway processes with other suites or latency -----------------------------------------


GatewayProcess = FakeGatewayProcess
gateway_process = running_gateway


@pytest.fixture(scope="module")
def whole_suite_path(small_suite_path: Path) -> Path:
    """The real 80-case suite when it is ready, else the small e2e suite."""
    return real_suite_path() or small_suite_path


@pytest.fixture(scope="module")
def whole_suite_gateway(whole_suite_path: Path, _clean_proxy_environment: None) -> Iterator[GatewayProcess]:
    """A fake gateway process serving the whole suite (reset before use by each test)."""
    with gateway_process(whole_suite_path) as gateway:
        yield gateway


@pytest.fixture(scope="module")
def recorded(small_suite_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Suite, Path]:
    """A good recording of the small suite for `fixture/oracle` and `auto`, made once without sockets."""
    suite = load_suite(small_suite_path)
    root = tmp_path_factory.mktemp("good") / "cassettes"
    for model in ("fixture/oracle", "auto"):
        asyncio.run(record_with_handler(suite, root, model, oracle_handler(suite, model)))
    return suite, root

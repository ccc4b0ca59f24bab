"""The fake gateway's server: a standard-library threaded HTTP server around the pure brain.

It reads requests, asks `models.answer` and the fault book, sleeps for latency, and performs faults
on the real socket, because a mock transport cannot show what a client does with a reset or a short
body. `process.start_fake_gateway_process` runs it as a separate process.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import urlsplit

import msgspec

from lobrec.core.suite.format import Suite
from lobrec.errors import ConfigError
from lobrec.fakegateway.completions import (
    CREATED,
    ChatCall,
    FakeReply,
    error_reply,
    json_bytes,
    json_reply,
    key_refusal,
    parse_request,
    status_fault_reply,
)
from lobrec.fakegateway.faults import (
    NOT_COMPLETION_BODY,
    NOT_JSON_BODY,
    STATUS_FAULTS,
    Fault,
    FaultAction,
    FaultBook,
    FaultRule,
    decode_fault_rules,
    planned_status,
)
from lobrec.fakegateway.models import FLAKY, MODELS, answer, locate, scripted_as
from lobrec.fakegateway.ratelimit import RateLimit, RateLimiter, checked_limit, rate_limited_reply

CHAT_PATHS = ("/v1/chat/completions", "/api/gateway/v1/chat/completions")
MODELS_PATHS = ("/v1/models", "/api/gateway/v1/models")

MAX_REQUEST_BYTES = 32 * 1024 * 1024


class LogEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One chat request as the gateway saw it; `status` is None when no response was sent.

    `fault` is the injected fault, `"rate_limit"` for the rate limiter's own 429, or
    `"require_key"` for `--require-key`'s 401.
    """

    model: str | None
    case: str | None
    step: int | None
    fault: Fault | Literal["rate_limit", "require_key"] | None
    status: int | None


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
            body = json_bytes(self.server.gateway.log())
            self._send(json_reply(body))
        elif path in MODELS_PATHS:
            refused = self.server.gateway.key_refusal(self.headers.get("authorization"))
            if refused is not None:
                self._send(refused)
                return
            data = [
                {"id": name, "object": "model", "created": CREATED, "owned_by": "lobrec"}
                for name in [*MODELS, *self.server.gateway.replies]
            ]
            self._send(json_reply(json_bytes({"object": "list", "data": data})))
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
        self._send(json_reply(json_bytes({"rules": count})))

    # -- chat --

    def _chat(self) -> None:
        body = self._read_body()
        if body is None:
            return
        gateway = self.server.gateway
        call = parse_request(body)
        refused = gateway._refuse_key(self.headers.get("authorization"), call)
        if refused is not None:
            self._send(refused)  # whatever the body says (parsed only for the log), as a real gateway
            return
        if isinstance(call, FakeReply):
            gateway._record(LogEntry(model=None, case=None, step=None, fault=None, status=call.status))
            self._send(call)
            return
        _, case_id, step = gateway._coordinates(call)
        limited = gateway._limit(call.model, case_id, step)
        if limited is not None:
            self._send(limited)  # at once: a real gateway refuses before doing any work
            return
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
        head, tail = json_bytes(completion).split(json_bytes(marker)[1:-1], 1)
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
    `port` 0 picks a free port; `latency_ms` is slept before every chat answer. `rate_limit` (requests
    per second, a token bucket holding `rate_limit_burst`, by default max(1, rate)) answers 429 to
    chat requests beyond it, with one bucket per model when `rate_limit_per_model`; `clock` is
    the limiter's time in seconds, replaceable so tests need not sleep. `require_key` answers 401 to
    chat and model-list requests without `Authorization: Bearer <require_key>`.
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
        rate_limit: float | None = None,
        rate_limit_burst: float | None = None,
        rate_limit_per_model: bool = False,
        require_key: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not allow_remote and not is_loopback(host):
            raise ConfigError(
                f"refusing to listen on {host}, which is not a loopback address; "
                "pass --allow-remote to serve other machines"
            )
        if rate_limit is None and (rate_limit_burst is not None or rate_limit_per_model):
            raise ConfigError("--rate-limit-burst and --rate-limit-per-model need --rate-limit")
        self.rate_limit: RateLimit | None = (
            None
            if rate_limit is None
            else checked_limit(rate_limit, rate_limit_burst, per_model=rate_limit_per_model)
        )
        self.require_key = checked_key(require_key)
        self.suite = suite
        self.host = host
        self.port = port
        self.latency_ms = latency_ms
        self.replies = dict(replies or {})
        self._lock = threading.Lock()
        self._book = FaultBook()
        self._log: list[LogEntry] = []
        self._runs: dict[bytes, int] = {}
        """How many times each `fixture/flaky` request body (by SHA-256) was answered without a fault."""
        self._limiter = RateLimiter(self.rate_limit) if self.rate_limit is not None else None
        self._clock = clock
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def bind(self) -> FakeGateway:
        """Open the listening socket (port 0 becomes a real port); a ConfigError naming the address
        if it cannot (a port taken, an address this machine lacks)."""
        if self._server is None:
            self._stopping.clear()
            try:
                self._server = _Server((self.host, self.port), self)
            except OSError as exc:
                why = exc.strerror or exc
                raise ConfigError(f"cannot listen on {self.host}:{self.port}: {why}") from None
            self.port = self._server.server_address[1]
        return self

    @property
    def url(self) -> str:
        """The base URL to give a client, ending in `/v1`."""
        if self._server is None:
            raise RuntimeError("the fake gateway is not bound yet; call start()")
        host = str(self._server.server_address[0])  # an AF_INET or AF_INET6 server's: a str
        if ":" in host:
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
        """Forget every fault rule, count and log entry, `fixture/flaky`'s runs; refill the buckets."""
        with self._lock:
            self._book.clear()
            self._log.clear()
            self._runs.clear()
            if self._limiter is not None:
                self._limiter.clear()

    def log(self) -> list[LogEntry]:
        """Every chat request seen since the last reset, in arrival order."""
        with self._lock:
            return list(self._log)

    # -- used by the handler --

    def _record(self, entry: LogEntry) -> None:
        with self._lock:
            self._log.append(entry)

    def key_refusal(self, authorization: str | None) -> FakeReply | None:
        """The 401 for a request without the required key (None when none is required or it is right)."""
        return None if self.require_key is None else key_refusal(authorization, self.require_key)

    def _coordinates(self, call: ChatCall | FakeReply) -> tuple[str | None, str | None, int | None]:
        """The model, case and step a request is, for the log (all None for an invalid body)."""
        if isinstance(call, FakeReply):
            return None, None, None
        location = locate(self.suite, call.messages)
        if location is None:
            return call.model, None, None
        return call.model, location.case.id, location.step

    def _refuse_key(self, authorization: str | None, call: ChatCall | FakeReply) -> FakeReply | None:
        """The 401 for a chat request without the required key (logged), or None to go on.

        Checked first, so a refused request takes no rate-limit token, fault count or flaky run.
        """
        refused = self.key_refusal(authorization)
        if refused is not None:
            model, case, step = self._coordinates(call)
            self._record(LogEntry(model=model, case=case, step=step, fault="require_key", status=401))
        return refused

    def _limit(self, model: str, case: str | None, step: int | None) -> FakeReply | None:
        """The limiter's 429 for a request beyond the rate (logged), or None to answer it.

        Checked before the fault book and the flaky runs, so a refused request uses up neither.
        """
        if self._limiter is None:
            return None
        with self._lock:
            wait = self._limiter.take(model, self._clock())
            if wait == 0:
                return None
            self._log.append(LogEntry(model=model, case=case, step=step, fault="rate_limit", status=429))
        return rate_limited_reply(self._limiter.limit, model, wait)

    def _decide(
        self, model: str, case: str | None, step: int | None, body: bytes
    ) -> tuple[FaultAction | None, FakeReply]:
        recorded = self.replies.get(model)
        # A copy (`fixture/flaky@LABEL`) counts its runs too: it answers exactly as its model.
        reply = recorded or (None if scripted_as(model) == FLAKY else answer(self.suite, body))
        with self._lock:
            fault = self._book.take(model, case, step)
            if reply is None:
                # Decided under the lock, so two identical requests at once are two different runs.
                reply = answer(self.suite, body, run=self._next_run(body, counts=fault is None))
            status = planned_status(fault, reply)
            name = fault.fault if fault is not None else None
            self._log.append(LogEntry(model=model, case=case, step=step, fault=name, status=status))
        return fault, reply

    def _next_run(self, body: bytes, *, counts: bool) -> int:
        """The run a `fixture/flaky` request is (1 the first time these bytes come); call locked.

        Only a request answered without a fault `counts`: a retry after an injected fault is the
        same run again, so recording K runs gets runs 1..K whatever faults are injected.
        """
        key = hashlib.sha256(body).digest()
        run = self._runs.get(key, 0) + 1
        if counts:
            self._runs[key] = run
        return run

    def _wait(self, seconds: float) -> bool:
        """Sleep, waking early when the gateway stops; True if it stopped."""
        if seconds <= 0:
            return self._stopping.is_set()
        return self._stopping.wait(seconds)


def checked_key(key: str | None) -> str | None:
    """`--require-key`'s value, refused unless it could travel in a header: visible ASCII, not empty."""
    if key is not None and (not key or not all("!" <= char <= "~" for char in key)):
        raise ConfigError("--require-key must be a non-empty key of visible ASCII characters (! to ~)")
    return key

"""A fake Lobstack gateway: the real chat-completions wire format on loopback, scripted models, faults.

Tests, benchmarks and the demo need a gateway that answers the same bytes every time, costs nothing,
needs no key, and fails on demand (429 bursts, resets, hangs, truncated bodies) so that retries and
errored cases can be exercised through real sockets. A mock transport cannot show what a real HTTP
client does with a reset or a short body; this server can.

The package is split by responsibility. This module exports what a program needs to run the fake
and talk about its models (the server and its process, the fault rule, the model names, `answer`);
the parts of each module are imported from that module:

- `completions`: the chat-completions API as the fake speaks it: request parsing, completion and
  error bodies, prices (`parse_request`, `FakeReply`);
- `models`: the scripted models, pure and testable without sockets (`locate`, `answer`,
  `sloppy_plan`, `load_replies`);
- `faults`: fault rules and the book that picks the fault for each request (`FaultBook`);
- `ratelimit`: the token bucket behind `--rate-limit` (`take_token`, `RateLimiter`);
- `server`: `FakeGateway`, a standard-library `ThreadingHTTPServer` that asks the brain, checks
  the key (`--require-key`), sleeps for latency and performs faults on the socket;
- `process`: `start_fake_gateway_process`, which runs it as a separate process
  (`python -m lobrec.fakegateway`), and `stop_fake_gateway_process`.

The control API (`/__fake__/faults`, `/__fake__/log`, `/__fake__/reset`) and every model are
described in `docs/fake-gateway.md`.
"""

from __future__ import annotations

from lobrec.fakegateway.faults import FaultRule
from lobrec.fakegateway.models import (
    AUTO,
    EAGER,
    FLAKY,
    FLAKY_CASES,
    MODELS,
    NO_TEMPERATURE,
    ORACLE,
    PLAUSIBLE,
    RECORDED_PREFIX,
    SILENT,
    SLOPPY,
    UNPRICED,
    answer,
    flaky_passes,
    load_replies,
    locate,
)
from lobrec.fakegateway.process import start_fake_gateway_process, stop_fake_gateway_process
from lobrec.fakegateway.server import FakeGateway, LogEntry, is_loopback

__all__ = [
    "AUTO",
    "EAGER",
    "FLAKY",
    "FLAKY_CASES",
    "MODELS",
    "NO_TEMPERATURE",
    "ORACLE",
    "PLAUSIBLE",
    "RECORDED_PREFIX",
    "SILENT",
    "SLOPPY",
    "UNPRICED",
    "FakeGateway",
    "FaultRule",
    "LogEntry",
    "answer",
    "flaky_passes",
    "is_loopback",
    "load_replies",
    "locate",
    "start_fake_gateway_process",
    "stop_fake_gateway_process",
]

"""A fake Lobstack gateway: the real chat-completions wire format on loopback, scripted models, faults.

Tests, benchmarks and the demo need a gateway that answers the same bytes every time, costs nothing,
needs no key, and fails on demand (429 bursts, resets, hangs, truncated bodies) so that retries and
errored cases can be exercised through real sockets. A mock transport cannot show what a real HTTP
client does with a reset or a short body; this server can.

The package is split by responsibility, and every public name is re-exported here:

- `wire`: request parsing, completion and error bodies, prices (`parse_request`, `FakeReply`);
- `models`: the scripted models, pure and testable without sockets (`locate`, `answer`,
  `sloppy_plan`, `load_replies`);
- `faults`: fault rules and the book that picks the fault for each request (`FaultBook`);
- `server`: `FakeGateway`, a standard-library `ThreadingHTTPServer` that asks the brain, sleeps
  for latency and performs faults on the socket, and `start_fake_gateway_process`, which runs it as
  a separate process (`python -m lobrec.fakegateway`).

The control API (`/__fake__/faults`, `/__fake__/log`, `/__fake__/reset`) and every model are
described in `docs/fake-gateway.md`.
"""

from __future__ import annotations

from lobrec.fakegateway.faults import (
    NOT_COMPLETION_BODY,
    NOT_JSON_BODY,
    STATUS_FAULTS,
    Fault,
    FaultAction,
    FaultBook,
    FaultRule,
    FaultRules,
    decode_fault_rules,
    planned_status,
)
from lobrec.fakegateway.models import (
    AUTO,
    AUTO_CHOICES,
    DONE,
    EAGER,
    MADE_UP_FALLBACK,
    MODELS,
    NO_MORE_STEPS,
    NO_TEMPERATURE,
    NO_TOOLS_OFFERED,
    ORACLE,
    PLAUSIBLE,
    RECORDED_PREFIX,
    SILENT,
    SILENT_REPLY,
    SLOPPY,
    SLOPPY_BEHAVIOURS,
    UNKNOWN_CASE,
    UNPRICED,
    Location,
    RecordedReply,
    SloppyBehaviour,
    answer,
    break_schema,
    load_replies,
    locate,
    oracle_turn,
    plausible_turn,
    sloppy_plan,
    sloppy_turn,
)
from lobrec.fakegateway.server import (
    CHAT_PATHS,
    LISTENING,
    MAX_REQUEST_BYTES,
    MODELS_PATHS,
    FakeGateway,
    LogEntry,
    is_loopback,
    start_fake_gateway_process,
    stop_fake_gateway_process,
)
from lobrec.fakegateway.wire import (
    COMPLETION_PRICE,
    CREATED,
    PROMPT_PRICE,
    ChatCall,
    FakeReply,
    Turn,
    completion_body,
    error_reply,
    json_reply,
    parse_request,
    price,
    status_fault_reply,
)

__all__ = [
    "AUTO",
    "AUTO_CHOICES",
    "CHAT_PATHS",
    "COMPLETION_PRICE",
    "CREATED",
    "DONE",
    "EAGER",
    "LISTENING",
    "MADE_UP_FALLBACK",
    "MAX_REQUEST_BYTES",
    "MODELS",
    "MODELS_PATHS",
    "NOT_COMPLETION_BODY",
    "NOT_JSON_BODY",
    "NO_MORE_STEPS",
    "NO_TEMPERATURE",
    "NO_TOOLS_OFFERED",
    "ORACLE",
    "PLAUSIBLE",
    "PROMPT_PRICE",
    "RECORDED_PREFIX",
    "SILENT",
    "SILENT_REPLY",
    "SLOPPY",
    "SLOPPY_BEHAVIOURS",
    "STATUS_FAULTS",
    "UNKNOWN_CASE",
    "UNPRICED",
    "ChatCall",
    "FakeGateway",
    "FakeReply",
    "Fault",
    "FaultAction",
    "FaultBook",
    "FaultRule",
    "FaultRules",
    "Location",
    "LogEntry",
    "RecordedReply",
    "SloppyBehaviour",
    "Turn",
    "answer",
    "break_schema",
    "completion_body",
    "decode_fault_rules",
    "error_reply",
    "is_loopback",
    "json_reply",
    "load_replies",
    "locate",
    "oracle_turn",
    "parse_request",
    "planned_status",
    "plausible_turn",
    "price",
    "sloppy_plan",
    "sloppy_turn",
    "start_fake_gateway_process",
    "status_fault_reply",
    "stop_fake_gateway_process",
]

"""Running a case: steps in order through an exchange, the retry rule, chains.

`case_run` is the one code path for live and replay, written without I/O (as h11 is for httpx): a
generator that yields each request body and each wait the retry rule asks for, is sent each answer
(or has the exchange's failure thrown in), and returns the judged case. Two drivers carry its
messages and decide nothing: `run_case` awaits a live `Exchange` (answers from the network,
recorded as they pass, `lobrec.running.live`) and the retry waits; `replay_case` asks a `Replayer` (answers
from a cassette, `lobrec.running.playback`) synchronously, and recorded retries replay without waiting. See
`lobrec.running.exchange` for the seam and the failures it raises.

The retry rule: retry only when the request did not complete, or the gateway answered 429, 502, 503
or 504; at most 3 retries, waiting 1, 2 and 4 seconds (`--retry-delays` changes them; replay
retries exactly as often as the recording did). Any other answer is the model's result: every
2xx is read as a chat completion (a 201 or 203 completion is judged like a 200; a 2xx that is not a
completion, a 204 included, errors the case as a 200 that is not one does). Another status (an
error, or a 1xx/3xx, which carries no completion), or a request that still fails, errors the case,
except a 400 that is the model's answer (Groq's `tool_use_failed`, see `wire.tool_use_failed`),
which is judged.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import msgspec

from lobrec.cassette.headers import COST_HEADER, DROPPED_PARAMS_HEADER, cost_usd
from lobrec.core.judge import wire
from lobrec.core.judge.step import judge_step
from lobrec.core.metrics.results import ApiCall, CaseResult, StepVerdict, oversized
from lobrec.core.suite.format import CallStep, Case, Message, Suite
from lobrec.defaults import DEFAULT_RETRY_DELAYS, DEFAULT_TIMEOUT_S
from lobrec.errors import CassetteError, CassetteMiss, GatewayError, LobrecError, TransportFailure
from lobrec.running.exchange import (
    TIMED_OUT,
    Answer,
    Exchange,
    Replayer,
    Timing,
    failure_kind,
    failure_timing,
    latency_ms,
)
from lobrec.settings import parse_delays

RETRY_STATUSES = frozenset({429, 502, 503, 504})
DEFAULT_RETRY_DELAYS_S = parse_delays(DEFAULT_RETRY_DELAYS)

Sleep = Callable[[float], Awaitable[None]]


async def no_sleep(_: float) -> None:
    """A sleep that does not wait: retries at once (tests record through it)."""


class Wait(NamedTuple):
    """What a case run yields between attempts: the retry rule's delay."""

    seconds: float


CaseRun = Generator[bytes | Wait, Answer | None, CaseResult]
"""A case being run (`case_run`): it yields request bodies and waits, is sent the answer to each
body (None after a wait) or has the exchange's failure thrown in, and returns the case's result."""


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """The methodology's defaults; tests shrink them through `--retry-delays`/`--timeout`, never here."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    delays_s: tuple[float, ...] = DEFAULT_RETRY_DELAYS_S


def _failed_call(step: int, attempt: int, failure: GatewayError) -> ApiCall:
    """An attempt that got no usable answer: no status; timed when it was a transport failure,
    not timed when lobrec refused the answer itself (too large, not text, holding the key)."""
    return _call(step, attempt, None, failure_timing(failure), error=str(failure))


def _call(step: int, attempt: int, status: int | None, timing: Timing, **more: Any) -> ApiCall:
    return ApiCall(step=step, attempt=attempt, status=status, latency_ms=latency_ms(timing), **more)


def _dropped(answer: Answer) -> list[str]:
    value = answer.headers.get(DROPPED_PARAMS_HEADER, "")
    return sorted({part.strip() for part in value.split(",") if part.strip()})


def _error_message(answer: Answer) -> str:
    """The gateway's own error message, shortened, for an errored case's reason."""
    try:
        data: Any = json.loads(answer.body)
        message = data["error"]["message"]
        if isinstance(message, str):  # JSON may spell a lone surrogate, which nothing can encode
            return message[:200].encode("utf-8", "replace").decode("utf-8")
    except (ValueError, KeyError, TypeError):
        pass
    return answer.reason_phrase or "error"


LASTING_STATUSES = {401: "the key is refused", 403: "the key is refused", 404: "no such model or URL"}
"""Answers that another attempt would get again: a wrong key, or a model or path the gateway does
not know (the gateway sends them at once, with no retry)."""
LASTING_FAILURES = {
    "ConnectError": "the gateway cannot be reached (connection refused, DNS or TLS failure)",
    TIMED_OUT: "the gateway does not answer in time",
}
"""Transport failures (retried, by the rule) that say the gateway is not there at all when every
attempt of a case ends in one."""


def lasting_failure(case: CaseResult) -> str | None:
    """Why `case` errored, when that reason would stop every case of its model alike: its attempts
    never got an answer to use and its last one ended in a `LASTING_STATUSES` answer or a
    `LASTING_FAILURES` failure. The text names the reason the same way for every case (the
    recording's fail-fast compares them), else None."""
    if case.status != "errored" or not case.api_calls or any(c.status == 200 for c in case.api_calls):
        return None
    return _lasting_status(case.api_calls[-1]) or _lasting_transport_failure(case.api_calls)


def _lasting_status(last: ApiCall) -> str | None:
    if last.status not in LASTING_STATUSES:
        return None
    return f"the gateway answered {last.status}: {LASTING_STATUSES[last.status]}"


def _lasting_transport_failure(calls: Sequence[ApiCall]) -> str | None:
    """A `LASTING_FAILURES` kind every one of `calls` ended in (no answer), when they all did."""
    kinds = {failure_kind(call.error) if call.status is None and call.error else None for call in calls}
    kind = kinds.pop() if len(kinds) == 1 else None
    return f"{kind}: {LASTING_FAILURES[kind]}" if kind in LASTING_FAILURES else None


class CaseErrored(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


RecordedAttempts = Callable[[bytes], int]
"""Replay: how many attempts the recording made with a request body (`Replayer.attempts`)."""


def _send_with_retries(
    body: bytes, step: int, attempts: list[ApiCall], policy: RetryPolicy, recorded: RecordedAttempts | None
) -> Generator[bytes | Wait, Answer | None, Answer]:
    """The retry rule. Replay makes as many attempts as the recording made with this body (its
    retry policy, whatever `--retry-delays` it had), so a case errored after 3 attempts replays as
    errored, not as stale for a 4th attempt it never made; a body never recorded gets the default
    and misses at once (stale)."""
    tries = (recorded(body) if recorded is not None else 0) or 1 + len(policy.delays_s)
    for attempt in range(tries):
        answer = yield from _attempt(body, step, attempt, attempts, tries)
        if answer is not None:
            return answer
        yield Wait(policy.delays_s[attempt] if attempt < len(policy.delays_s) else 0.0)
    raise AssertionError("unreachable")


def _attempt(
    body: bytes, step: int, attempt: int, attempts: list[ApiCall], tries: int
) -> Generator[bytes, Answer | None, Answer | None]:
    """One attempt, appended to `attempts`: the answer to judge, None to try again (the retry
    rule), or CaseErrored."""
    last = attempt == tries - 1
    try:
        answer = yield body
    except TransportFailure as exc:
        attempts.append(_failed_call(step, attempt, exc))
        if last:
            raise CaseErrored(f"step {step + 1}: the request failed {tries} times; last: {exc}") from None
        return None
    except GatewayError as exc:
        attempts.append(_failed_call(step, attempt, exc))
        raise CaseErrored(f"step {step + 1}: {exc}") from None
    assert answer is not None, "a request body is answered"
    attempts.append(
        _call(
            step,
            attempt,
            answer.status,
            answer.timing,
            cost_usd=cost_usd(answer.headers.get(COST_HEADER)),
            dropped_params=_dropped(answer),
        )
    )
    if answer.status in RETRY_STATUSES:
        if last:
            raise CaseErrored(f"step {step + 1}: the gateway answered {answer.status} {tries} times")
        return None
    if not wire.is_success(answer.status) and not wire.tool_use_failed(answer.status, answer.body):
        raise CaseErrored(f"step {step + 1}: the gateway answered {answer.status}: {_error_message(answer)}")
    return answer


def _reply(answer: Answer) -> wire.Reply:
    """The answer read as the model's reply; a body that is not a completion is the gateway's fault."""
    if wire.tool_use_failed(answer.status, answer.body):
        return wire.parse_tool_use_failed(answer.body)
    try:
        return wire.parse_completion(answer.body, answer.status)
    except wire.NotACompletion as exc:
        raise GatewayError(str(exc)) from None


def _next_messages(
    messages: list[Message | dict[str, Any]], step: CallStep, reply: wire.Reply, verdict: StepVerdict
) -> list[Message | dict[str, Any]]:
    """The model's own calls, then each call's scripted result, in the order the model called."""
    result_for = {
        observed: step.calls[expected].result or "" for expected, observed in enumerate(verdict.pairing)
    }
    tool_messages = [wire.tool_message(reply.calls[j], result_for[j]) for j in sorted(result_for)]
    return [*messages, wire.assistant_message(reply), *tool_messages]


def case_run(
    suite: Suite, case: Case, model: str, policy: RetryPolicy, recorded: RecordedAttempts | None = None
) -> CaseRun:
    """Run every step of a case (a chain stops at its first failing step) and judge each: the one
    code path of live and replay (see the module docstring for how it is driven); replay passes
    `recorded`, the attempts its recording made."""
    offered = suite.offered_tools(case)
    tools_json = wire.offered_tools_json(suite, case)
    messages: list[Message | dict[str, Any]] = list(case.messages)
    verdicts: list[StepVerdict] = []
    attempts: list[ApiCall] = []

    def result(status: Literal["scored", "errored", "stale"], reason: str | None = None) -> CaseResult:
        return CaseResult(
            id=case.id, group=case.group, status=status, reason=reason, steps=verdicts, api_calls=attempts
        )

    for index, step in enumerate(case.steps):
        body = wire.request_body(model, messages, tools_json)
        try:
            reply = _reply((yield from _send_with_retries(body, index, attempts, policy, recorded)))
        except CaseErrored as exc:
            return result("errored", exc.reason)
        except CassetteMiss as exc:
            return result("stale", f"step {index + 1}: {exc}")
        except (CassetteError, GatewayError) as exc:  # CassetteError: a recorded answer replay cannot trust
            return result("errored", f"step {index + 1}: {exc}")
        attempts[-1] = _judged(attempts[-1], reply.model)
        verdict = judge_step(step, reply, offered, index)
        verdicts.append(verdict)
        too_large = oversized(verdicts)
        if too_large is not None:  # errored, and its verdicts dropped: they are what is too large
            verdicts.clear()
            return result("errored", too_large)
        if not verdict.passed or index == len(case.steps) - 1 or not isinstance(step, CallStep):
            break
        messages = _next_messages(messages, step, reply, verdict)
    return result("scored")


def _resume(run: CaseRun, outcome: Answer | LobrecError | None) -> bytes | Wait | CaseResult:
    """Hand the run what its last request got (an answer, the exchange's failure, None after a
    wait, or None to start it); its next request, or its result once it is done."""
    try:
        return run.throw(outcome) if isinstance(outcome, LobrecError) else run.send(outcome)
    except StopIteration as done:
        finished: CaseResult = done.value
        return finished


async def run_case(
    exchange: Exchange,
    suite: Suite,
    case: Case,
    model: str,
    *,
    policy: RetryPolicy = RetryPolicy(),
    sleep: Sleep | None = None,
) -> CaseResult:
    """`case_run` through a live exchange. `sleep` waits between retries: `asyncio.sleep` (looked up
    at call time) unless given."""
    wait = sleep or asyncio.sleep
    run = case_run(suite, case, model, policy)
    request = _resume(run, None)
    while not isinstance(request, CaseResult):
        if isinstance(request, Wait):
            await wait(request.seconds)
            request = _resume(run, None)
            continue
        try:
            outcome: Answer | LobrecError = await exchange.send(request)
        except LobrecError as failure:
            outcome = failure
        request = _resume(run, outcome)
    return request


def replay_case(replayer: Replayer, suite: Suite, case: Case, model: str) -> CaseResult:
    """`case_run` through a recording: synchronous, and recorded retries replay without waiting,
    as many as were recorded."""
    run = case_run(suite, case, model, RetryPolicy(), replayer.attempts)
    request = _resume(run, None)
    while not isinstance(request, CaseResult):
        if isinstance(request, Wait):
            request = _resume(run, None)
            continue
        try:
            outcome: Answer | LobrecError = replayer.send(request)
        except LobrecError as failure:
            outcome = failure
        request = _resume(run, outcome)
    return request


def _judged(call: ApiCall, answered_by: str | None) -> ApiCall:
    return msgspec.structs.replace(call, judged=True, answered_by=answered_by)


def temperature_ignored(cases: Sequence[CaseResult]) -> bool:
    """The gateway said it dropped temperature on any judged call of the model."""
    return any(
        "temperature" in call.dropped_params for case in cases for call in case.api_calls if call.judged
    )


class Progress:
    """What a run reports as it goes; the CLI draws a progress bar from it. Defaults do nothing."""

    def planned(self, count: int) -> None:
        """The run will report this many cases (known once it has picked them)."""

    def planned_models(self, counts: dict[str, int]) -> None:
        """Of those, how many each model will report (for a breakdown when several run at once)."""

    def started(self, model: str, case_id: str) -> None:
        """A case began."""

    def finished(self, model: str, result: CaseResult) -> None:
        """A case ended (scored, errored, stale or unrecorded)."""

    def note(self, message: str) -> None:
        """Something the user must read now, not at the end (a model that stopped early)."""


async def run_jobs(jobs: Sequence[Callable[[], Awaitable[None]]], concurrency: int) -> bool:
    """Run jobs with at most `concurrency` at once. Returns False when the run was cancelled
    (Ctrl-C, SIGTERM): unfinished jobs are cancelled and awaited, finished ones are kept.

    A job that raises (a full disk while its cassette is written) stops the run the same way, and
    its exception is raised as itself, not inside the TaskGroup's ExceptionGroup: callers catch an
    OSError or a LobrecError as from a plain await and print one line instead of a traceback.
    """
    limit = asyncio.Semaphore(max(1, concurrency))

    async def bounded(job: Callable[[], Awaitable[None]]) -> None:
        async with limit:
            await job()

    try:
        async with asyncio.TaskGroup() as group:
            for job in jobs:
                group.create_task(bounded(job))
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        return False
    except BaseExceptionGroup as failed:
        raise _first_failure(failed) from None
    return True


def _first_failure(group: BaseExceptionGroup) -> BaseException:
    """The first exception a TaskGroup collected (the others are usually the same failure again)."""
    first: BaseException = group
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    return first

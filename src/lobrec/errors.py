"""Everything lobrec raises when it cannot run.

A wrong answer from a model is never an exception: it is data (a `Mismatch` in a step verdict).
An exception means lobrec itself could not do what was asked. The tree:

    LobrecError
    ├── SuiteError          the suite file is unreadable, malformed or breaks a build rule
    ├── SchemaError         a tool schema uses a keyword the validator does not support
    ├── ConfigError         bad options: no API key for a remote URL, an unsafe model name, ...
    ├── GatewayError        the gateway could not be used: transport failure, error status, bad body
    │   └── TransportFailure    the request did not complete (network error or time-out)
    ├── CassetteError       a cassette or manifest is unreadable, too large, or unsafe
    │   ├── CassetteMiss        replay asked for a request the cassette does not hold
    │   └── RecordInProgress    a `lobrec record` is still writing the cassettes asked for
    └── VersionMismatch     cassettes were recorded on another major suite version

Each type carries the exit code `lobrec` ends with when it meets one (`exit_code`, from
`lobrec.exits`): bad input (2) for all but `RecordInProgress`, whose folders are incomplete for now
(4, as a rescore with stale cases). The CLI's one handler (`lobrec.cli._command.Command.invoke`)
prints the message as one line and exits with that code; commands only raise.
"""

from __future__ import annotations

from typing import ClassVar

from lobrec.exits import Exit


class LobrecError(Exception):
    """Base of every error lobrec raises on purpose; the CLI prints these as one line."""

    exit_code: ClassVar[Exit] = Exit.BAD_INPUT
    """What `lobrec` exits with when a command meets this error."""


class SuiteError(LobrecError):
    """The suite file cannot be loaded or breaks a build rule."""


class SchemaError(LobrecError):
    """A JSON Schema uses a keyword outside the supported subset, or is malformed."""


class ConfigError(LobrecError):
    """Options or environment that make a run impossible or unsafe."""


class GatewayError(LobrecError):
    """The gateway answered in a way that is not a model's result (errored case)."""


class TransportFailure(GatewayError):
    """The request did not complete: network error, reset, or no answer within the time-out."""

    def __init__(self, message: str, *, elapsed_ms: float = 0.0) -> None:
        super().__init__(message)
        self.elapsed_ms = elapsed_ms


class CassetteError(LobrecError):
    """A cassette or manifest that cannot be trusted or read."""


class CassetteMiss(CassetteError):
    """Replay needed a request that was never recorded (the case is stale)."""


class RecordInProgress(CassetteError):
    """A `lobrec record` holds a model folder's writer lock: its cassettes are not complete yet."""

    exit_code: ClassVar[Exit] = Exit.INCOMPLETE


class VersionMismatch(LobrecError):
    """Recorded and current suites differ in major version; scores are not comparable."""

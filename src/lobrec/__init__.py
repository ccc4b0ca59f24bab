"""lobrec: record-and-replay evaluation of tool calling through the Lobstack gateway.

The public surface is small and imported lazily, so `lobrec --version` does not pay for httpx or
vcrpy::

    import lobrec
    suite = lobrec.load_suite()  # the bundled suite, or a path; SuiteError if no run could use it
    outcome = asyncio.run(lobrec.rescore(suite, lobrec.RescoreOptions(cassettes=Path("cassettes"))))
    outcome.run.models[0].metrics.overall.rate

`record(suite, gateway, RecordOptions(...), progress)` and `rescore(suite, RescoreOptions(...),
progress)` are shaped alike; both return a frozen outcome. Every type they (and `judge_step`,
`validate`, `load_suite`, `resolve_gateway`) take or return is exported here, and so is every
error they raise (`LobrecError` and its subclasses; `tests/package/test_public_api.py` pins both).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lobrec._version import __version__

_EXPORTS = {
    # the suite
    "load_suite": "lobrec.suite_file",
    "Suite": "lobrec.core.suite.format",
    "Case": "lobrec.core.suite.format",
    "CallStep": "lobrec.core.suite.format",
    "NoCallStep": "lobrec.core.suite.format",
    "Tool": "lobrec.core.suite.format",
    # judging one step, and the JSON Schema subset (its one home is `lobrec.schema`)
    "judge_step": "lobrec.core.judge.step",
    "Reply": "lobrec.core.judge.wire",
    "StepVerdict": "lobrec.core.metrics.results",
    "validate": "lobrec.schema",
    # the results
    "RunResult": "lobrec.core.metrics.results",
    "ModelResult": "lobrec.core.metrics.results",
    "CaseResult": "lobrec.core.metrics.results",
    # recording and rescoring: each takes its options and returns a frozen outcome
    "record": "lobrec.running.recording",
    "RecordOptions": "lobrec.running.recording",
    "RecordOutcome": "lobrec.running.recording",
    "RetryPolicy": "lobrec.running.runner",
    "rescore": "lobrec.running.replay",
    "RescoreOptions": "lobrec.running.replay",
    "RescoreOutcome": "lobrec.running.replay",
    "Progress": "lobrec.running.runner",
    "resolve_gateway": "lobrec.running.gateway",
    "Gateway": "lobrec.running.gateway",
    # every error a public function can raise (`lobrec.errors`)
    "LobrecError": "lobrec.errors",
    "SuiteError": "lobrec.errors",
    "SchemaError": "lobrec.errors",
    "ConfigError": "lobrec.errors",
    "GatewayError": "lobrec.errors",
    "TransportFailure": "lobrec.errors",
    "CassetteError": "lobrec.errors",
    "CassetteMiss": "lobrec.errors",
    "RecordInProgress": "lobrec.errors",
    "VersionMismatch": "lobrec.errors",
}

__all__ = [
    "CallStep",
    "Case",
    "CaseResult",
    "CassetteError",
    "CassetteMiss",
    "ConfigError",
    "Gateway",
    "GatewayError",
    "LobrecError",
    "ModelResult",
    "NoCallStep",
    "Progress",
    "RecordInProgress",
    "RecordOptions",
    "RecordOutcome",
    "Reply",
    "RescoreOptions",
    "RescoreOutcome",
    "RetryPolicy",
    "RunResult",
    "SchemaError",
    "StepVerdict",
    "Suite",
    "SuiteError",
    "Tool",
    "TransportFailure",
    "VersionMismatch",
    "__version__",
    "judge_step",
    "load_suite",
    "record",
    "rescore",
    "resolve_gateway",
    "validate",
]

if TYPE_CHECKING:
    from lobrec.core.judge.step import judge_step
    from lobrec.core.judge.wire import Reply
    from lobrec.core.metrics.results import CaseResult, ModelResult, RunResult, StepVerdict
    from lobrec.core.suite.format import CallStep, Case, NoCallStep, Suite, Tool
    from lobrec.errors import (
        CassetteError,
        CassetteMiss,
        ConfigError,
        GatewayError,
        LobrecError,
        RecordInProgress,
        SchemaError,
        SuiteError,
        TransportFailure,
        VersionMismatch,
    )
    from lobrec.running.gateway import Gateway, resolve_gateway
    from lobrec.running.recording import RecordOptions, RecordOutcome, record
    from lobrec.running.replay import RescoreOptions, RescoreOutcome, rescore
    from lobrec.running.runner import Progress, RetryPolicy
    from lobrec.schema import validate
    from lobrec.suite_file import load_suite


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lobrec' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

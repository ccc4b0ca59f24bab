"""lobrec: record-and-replay evaluation of tool calling through the Lobstack gateway.

The public surface is small and imported lazily, so `lobrec --version` does not pay for httpx or
vcrpy::

    import lobrec
    suite = lobrec.load_suite()  # the bundled suite, or a path; SuiteError if no run could use it
    outcome = asyncio.run(lobrec.rescore(suite, Path("cassettes")))
    outcome.run.models[0].metrics.overall.rate
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lobrec._version import __version__

_EXPORTS = {
    "load_suite": "lobrec.suite_file",
    "Suite": "lobrec.core.suite",
    "Case": "lobrec.core.suite",
    "judge_step": "lobrec.core.judge",
    "validate": "lobrec.core.jsonschema",
    "RunResult": "lobrec.core.results",
    "ModelResult": "lobrec.core.results",
    "CaseResult": "lobrec.core.results",
    "record": "lobrec.recording",
    "RecordOptions": "lobrec.recording",
    "rescore": "lobrec.replay",
    "resolve_gateway": "lobrec.gateway",
    "LobrecError": "lobrec.errors",
    "SuiteError": "lobrec.errors",
    "GatewayError": "lobrec.errors",
    "CassetteError": "lobrec.errors",
}

__all__ = [
    "Case",
    "CaseResult",
    "CassetteError",
    "GatewayError",
    "LobrecError",
    "ModelResult",
    "RecordOptions",
    "RunResult",
    "Suite",
    "SuiteError",
    "__version__",
    "judge_step",
    "load_suite",
    "record",
    "rescore",
    "resolve_gateway",
    "validate",
]

if TYPE_CHECKING:
    from lobrec.core.jsonschema import validate
    from lobrec.core.judge import judge_step
    from lobrec.core.results import CaseResult, ModelResult, RunResult
    from lobrec.core.suite import Case, Suite
    from lobrec.errors import CassetteError, GatewayError, LobrecError, SuiteError
    from lobrec.gateway import resolve_gateway
    from lobrec.recording import RecordOptions, record
    from lobrec.replay import rescore
    from lobrec.suite_file import load_suite


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lobrec' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

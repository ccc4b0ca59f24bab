"""The public surface of `import lobrec` is exactly what `__all__` lists, and it resolves."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lobrec
import lobrec.errors
import lobrec.schema

EXPECTED = {
    "__version__",
    # the suite
    "load_suite",
    "Suite",
    "Case",
    "CallStep",
    "NoCallStep",
    "Tool",
    # judging one step; the JSON Schema subset
    "judge_step",
    "Reply",
    "StepVerdict",
    "validate",
    # the results
    "RunResult",
    "ModelResult",
    "CaseResult",
    # recording and rescoring
    "record",
    "RecordOptions",
    "RecordOutcome",
    "RetryPolicy",
    "rescore",
    "RescoreOptions",
    "RescoreOutcome",
    "Progress",
    "resolve_gateway",
    "Gateway",
    # the errors
    "LobrecError",
    "SuiteError",
    "SchemaError",
    "ConfigError",
    "GatewayError",
    "TransportFailure",
    "CassetteError",
    "CassetteMiss",
    "RecordInProgress",
    "VersionMismatch",
}
FUNCTIONS = ["judge_step", "load_suite", "record", "rescore", "resolve_gateway", "validate"]
OPTIONS = ["RecordOptions", "RescoreOptions"]
OUTCOMES = ["RecordOutcome", "RescoreOutcome"]


def lobrec_types(hint: Any) -> set[type]:
    """The classes of lobrec a type hint names, at any depth (`list[Suite] | None` -> {Suite})."""
    found = set()
    if isinstance(hint, type) and hint.__module__.startswith("lobrec"):
        found.add(hint)
    for argument in typing.get_args(hint):
        found |= lobrec_types(argument)
    return found


def test_all_is_the_documented_surface() -> None:
    assert set(lobrec.__all__) == EXPECTED


def test_lazy_table_matches_all() -> None:
    assert {*lobrec._EXPORTS, "__version__"} == set(lobrec.__all__)


def test_every_exported_name_resolves() -> None:
    for name in lobrec.__all__:
        assert getattr(lobrec, name) is not None


@pytest.mark.process
def test_importing_lobrec_does_not_import_httpx_or_vcr() -> None:
    code = "import sys, lobrec; print(sorted(m for m in ('httpx', 'vcr', 'rich') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_type_a_public_function_takes_or_returns_is_exported() -> None:
    named = set()
    exported = {name: getattr(lobrec, name) for name in lobrec.__all__}  # a module may name a type
    # only for the checker (start-up imports): the public names are where a caller finds it
    for name in FUNCTIONS:
        for hint in typing.get_type_hints(getattr(lobrec, name), localns=exported).values():
            named |= lobrec_types(hint)
    for name in OPTIONS:  # what a caller builds to call `record` or `rescore`
        for hint in typing.get_type_hints(getattr(lobrec, name), localns=exported).values():
            named |= lobrec_types(hint)
    unexported = sorted(kind.__name__ for kind in named if getattr(lobrec, kind.__name__, None) is not kind)
    assert unexported == []
    assert {"Gateway", "Progress", "RecordOutcome", "RescoreOutcome", "Reply", "StepVerdict"} <= {
        kind.__name__ for kind in named
    }


def test_every_error_lobrec_raises_is_exported() -> None:
    errors = [
        value
        for value in vars(lobrec.errors).values()
        if isinstance(value, type) and issubclass(value, lobrec.errors.LobrecError)
    ]
    assert {"VersionMismatch", "ConfigError", "SchemaError", "RecordInProgress"} <= {
        e.__name__ for e in errors
    }
    assert sorted(e.__name__ for e in errors if getattr(lobrec, e.__name__, None) is not e) == []


@pytest.mark.parametrize("name", OUTCOMES)
def test_the_outcomes_are_frozen(name: str) -> None:
    outcome = getattr(lobrec, name)
    assert issubclass(outcome, msgspec.Struct) and outcome.__struct_config__.frozen
    run = lobrec.RunResult(suite=None, models=[])  # type: ignore[arg-type]
    made = outcome(run=run, recorded={}, interrupted=False) if name == "RecordOutcome" else outcome(run=run)
    with pytest.raises(AttributeError):
        made.run = run


@pytest.mark.parametrize("name", OPTIONS)
def test_no_test_hook_sits_in_the_public_options(name: str) -> None:
    hints = typing.get_type_hints(getattr(lobrec, name))
    hooks = [field for field, hint in hints.items() if "Callable" in str(hint) or "Awaitable" in str(hint)]
    assert hooks == []
    assert "sleep" not in {field.name for field in dataclasses.fields(getattr(lobrec, name))}


def test_record_and_rescore_are_shaped_alike() -> None:
    record = list(inspect.signature(lobrec.record).parameters)
    rescore = list(inspect.signature(lobrec.rescore).parameters)
    assert record[:1] == rescore[:1] == ["suite"]
    assert record[-2:] == ["options", "progress"] and rescore[1:3] == ["options", "progress"]
    hints = typing.get_type_hints(lobrec.rescore)
    assert lobrec.RescoreOptions in typing.get_args(hints["options"])
    assert typing.get_type_hints(lobrec.record)["options"] is lobrec.RecordOptions


def test_rescore_options_default_as_record_options_do() -> None:
    assert lobrec.RescoreOptions().cassettes == lobrec.RecordOptions(models=[]).cassettes == Path("cassettes")


def test_validate_has_one_home() -> None:
    assert lobrec._EXPORTS["validate"] == "lobrec.schema"
    assert lobrec.validate is lobrec.schema.validate

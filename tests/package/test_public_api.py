"""The public surface of `import lobrec` is exactly what `__all__` lists, and it resolves."""

from __future__ import annotations

import subprocess
import sys

import pytest

import lobrec

EXPECTED = {
    "__version__",
    "CaseResult",
    "Case",
    "CassetteError",
    "GatewayError",
    "LobrecError",
    "ModelResult",
    "RecordOptions",
    "RunResult",
    "Suite",
    "SuiteError",
    "judge_step",
    "load_suite",
    "record",
    "rescore",
    "resolve_gateway",
    "validate",
}


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

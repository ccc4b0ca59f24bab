"""The results file, built a model at a time, is byte for byte the whole run formatted at once."""

from __future__ import annotations

from decimal import Decimal

import msgspec
import pytest

from lobrec.core.metrics.results import RunResult, encode_results
from tests.support.scale_results import leaderboard_run


def _whole(run: RunResult) -> bytes:
    """The file as it was built before: the whole run as dicts and lists, then formatted."""
    data = msgspec.to_builtins(run, builtin_types=(Decimal,))
    for key in ("suite_changes", "resolution"):
        if data.get(key) is None:
            data.pop(key, None)
    for model in data["models"]:
        for key in ("repeats", "routing"):
            if model.get(key) is None:
                model.pop(key, None)
    encoder = msgspec.json.Encoder(decimal_format="number")
    return msgspec.json.format(encoder.encode(data), indent=2) + b"\n"


@pytest.mark.parametrize(("models", "runs"), [(0, 1), (1, 1), (3, 1), (11, 1), (2, 3), (11, 3)])
def test_the_file_is_the_whole_run_formatted(models: int, runs: int) -> None:
    run, _ = leaderboard_run(models, runs)
    assert encode_results(run) == _whole(run)


def test_a_run_without_resolution_or_models_keeps_its_other_keys() -> None:
    run, _ = leaderboard_run(2, 1)
    bare = msgspec.structs.replace(run, models=[], resolution=None)
    assert encode_results(bare) == _whole(bare)
    assert b'"models": []' in encode_results(bare)

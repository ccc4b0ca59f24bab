"""A model name too long for a folder name is a one-line error before anything is sent (issue 12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_lobrec


@pytest.mark.parametrize(
    "model",
    ["a/" * 100, "é" * 150, "x" * 201],
    ids=["slashes encode to 3 characters", "non-ASCII", "over 200"],
)
def test_a_model_name_too_long_for_a_folder_is_one_line(model: str, tmp_path: Path) -> None:
    done = run_lobrec(
        ["record", "--model", model, "--base-url", "http://127.0.0.1:9/v1", "--cassettes", str(tmp_path)]
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith("lobrec: model name ")
    assert "cannot be used" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []

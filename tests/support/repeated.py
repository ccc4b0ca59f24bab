"""Repeated recordings built by hand from the committed cassettes, for the read side of repeats.

A model's runs are made from its own cassettes (a request body names the model, so another model's
cassettes would be stale): run n is a copy of the model folder in `runs/<n>/`, with its own
manifest. To make runs differ, `break_case` edits a copied cassette's response so that its first
call names a tool the case does not offer (made-up tool): that run of the case fails.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "fixtures" / "cassettes"
ORACLE = "fixture%2Foracle"
SLOPPY = "fixture%2Fsloppy"


def break_case(run_dir: Path, case_id: str) -> None:
    """Make the first answer of `case_id` in this run call a tool nobody offered."""
    path = run_dir / f"{case_id}.json"
    cassette = json.loads(path.read_bytes())
    body = cassette["interactions"][0]["response"]["body"]
    reply = json.loads(body["string"])
    calls = reply["choices"][0]["message"]["tool_calls"]
    assert calls, f"{case_id} has no call to break"
    calls[0]["function"]["name"] = "not_a_tool"
    body["string"] = json.dumps(reply)
    path.write_text(json.dumps(cassette, indent=2) + "\n")


def repeated_model(
    root: Path,
    model_dir: str = ORACLE,
    runs: Iterable[int] = (2, 3),
    broken: Mapping[int, Iterable[str]] | None = None,
) -> Path:
    """Copy a committed model folder into `root` with copies of itself as `runs/<n>/` for each n in
    `runs`; in run n (1 is the model folder) each case of `broken[n]` fails with a made-up tool."""
    model = root / model_dir
    shutil.copytree(COMMITTED / model_dir, model)
    for number in runs:
        shutil.copytree(COMMITTED / model_dir, model / "runs" / str(number))
    for number, cases in (broken or {}).items():
        run_dir = model if number == 1 else model / "runs" / str(number)
        for case_id in cases:
            break_case(run_dir, case_id)
    return model

"""Regenerate `fixtures/suite-changes-OLD-NEW.json`: the committed cassettes under two suite versions.

The fixture cassettes were recorded at 1.0.0; this rescores them under each pair of consecutive
suites (the kept ones in suite/history/ and the current suite/suite.json) with no re-recording, and
writes the `suite_changes` section of the results (metric deltas and the cases a check change
flipped, per model) for each pair. A test compares them byte for byte, so what each version's new
checks did to the fixture models is a reviewed diff. Run it when the suite changes:

    .venv/bin/python scripts/suite_changes_fixture.py           write the files
    .venv/bin/python scripts/suite_changes_fixture.py --check   exit 1 if one is stale
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import msgspec

from lobrec.running.replay import RescoreOptions, rescore
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT / "suite" / "history"
CASSETTES = ROOT / "fixtures" / "cassettes"
PAIRS = {
    "1.0.0-1.1.0": (HISTORY / "1.0.0.json", HISTORY / "1.1.0.json"),
    "1.1.0-1.2.0": (HISTORY / "1.1.0.json", HISTORY / "1.2.0.json"),
    "1.2.0-1.3.0": (HISTORY / "1.2.0.json", ROOT / "suite" / "suite.json"),
}
"""Each pinned comparison: its name (OLD-NEW) and the two suite files."""


def output(pair: str) -> Path:
    """Where the comparison named `pair` is pinned."""
    return ROOT / "fixtures" / f"suite-changes-{pair}.json"


def build(old: Path, new: Path, cassettes: Path = CASSETTES) -> bytes:
    """The fixture file's bytes: the suite_changes section as indented JSON."""
    outcome = asyncio.run(
        rescore(load_suite(new), RescoreOptions(cassettes=cassettes, against=load_suite(old)))
    )
    return msgspec.json.format(msgspec.json.encode(outcome.run.suite_changes), indent=2) + b"\n"


def main(argv: list[str]) -> int:
    stale = 0
    for pair, (old, new) in PAIRS.items():
        data = build(old, new)
        path = output(pair)
        if "--check" in argv:
            if not path.exists() or path.read_bytes() != data:
                print(f"{path} is stale: run python scripts/suite_changes_fixture.py", file=sys.stderr)
                stale = 1
            continue
        path.write_bytes(data)
        print(f"wrote {path.relative_to(ROOT)}")
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Regenerate `fixtures/suite-changes-1.0.0-1.1.0.json`: the committed cassettes under both suites.

The fixture cassettes were recorded at 1.0.0; this rescores them under the kept 1.0.0 suite and the
current suite (1.1.0) with no re-recording, and writes the `suite_changes` section of the results
(metric deltas and the cases a check change flipped, per model). A test compares it byte for byte,
so what the new checks did to the fixture models is a reviewed diff. Run it when the suite changes:

    .venv/bin/python scripts/suite_changes_fixture.py           write the file
    .venv/bin/python scripts/suite_changes_fixture.py --check   exit 1 if it is stale
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import msgspec

from lobrec.replay import rescore_against
from lobrec.suite_file import load_suite

ROOT = Path(__file__).resolve().parents[1]
OLD = ROOT / "suite" / "history" / "1.0.0.json"
NEW = ROOT / "suite" / "suite.json"
CASSETTES = ROOT / "fixtures" / "cassettes"
OUTPUT = ROOT / "fixtures" / "suite-changes-1.0.0-1.1.0.json"


def build(old: Path = OLD, new: Path = NEW, cassettes: Path = CASSETTES) -> bytes:
    """The fixture file's bytes: the suite_changes section as indented JSON."""
    outcome = asyncio.run(rescore_against(load_suite(new), load_suite(old), cassettes))
    return msgspec.json.format(msgspec.json.encode(outcome.run.suite_changes), indent=2) + b"\n"


def main(argv: list[str]) -> int:
    data = build()
    if "--check" in argv:
        if OUTPUT.read_bytes() != data:
            print(f"{OUTPUT} is stale: run python scripts/suite_changes_fixture.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

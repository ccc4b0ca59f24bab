"""The rescore baseline: a plain loop that reads and msgspec-decodes every file of a cassette tree.

Usage: `python bench/_decode_child.py ROOT OUT.json`. It decodes into the same strict Structs lobrec
uses, and writes the loop's own time (the parent also times the whole process).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import msgspec

from lobrec.cassette.format import CassetteFile, Manifest


def main() -> None:
    root, out = Path(sys.argv[1]), sys.argv[2]
    cassette = msgspec.json.Decoder(CassetteFile)
    manifest = msgspec.json.Decoder(Manifest)
    start = time.perf_counter()
    files = 0
    for path in sorted(root.rglob("*.json")):  # run folders (`runs/<n>/`) too, as rescore reads them
        if path.is_file():
            decoder = manifest if path.name == "manifest.json" else cassette
            decoder.decode(path.read_bytes())
            files += 1
    figures = {"loop_s": time.perf_counter() - start, "files": files}
    Path(out).write_bytes(msgspec.json.encode(figures))


if __name__ == "__main__":
    main()

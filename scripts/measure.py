"""The redesign's figures for `src/lobrec` (issue 23): grade-C-or-worse blocks per 1,000 lines and the
largest modules. `python scripts/measure.py` (radon is a test extra); `duplicates --repo src` gives
the third figure."""

from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parent.parent / "src" / "lobrec"
MAX_BLOCKS_PER_1000 = 2.0
MAX_MODULE_LINES = 600


def _blocks(source: str) -> list[tuple[str, int]]:
    """Functions, methods and classes, as `radon cc` lists them."""
    return [(block.fullname, block.complexity) for block in cc_visit(source)]


def main() -> int:
    lines = 0
    complex_blocks: list[tuple[str, str, int]] = []
    sizes: list[tuple[int, str]] = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        count = text.count("\n")
        lines += count
        sizes.append((count, str(path.relative_to(ROOT))))
        for name, complexity in _blocks(text):
            if cc_rank(complexity) >= "C":
                complex_blocks.append((str(path.relative_to(ROOT)), name, complexity))
    per_1000 = len(complex_blocks) / lines * 1000
    for module, name, complexity in sorted(complex_blocks, key=lambda b: -b[2]):
        print(f"  {cc_rank(complexity)} {complexity:3d} {module}:{name}")
    print(f"{len(complex_blocks)} blocks of grade C or worse in {lines} lines: {per_1000:.2f} per 1,000")
    big = [(n, m) for n, m in sorted(sizes, reverse=True) if n > MAX_MODULE_LINES]
    for n, m in big:
        print(f"  {m}: {n} lines (over {MAX_MODULE_LINES})")
    return 0 if per_1000 <= MAX_BLOCKS_PER_1000 and not big else 1


if __name__ == "__main__":
    sys.exit(main())

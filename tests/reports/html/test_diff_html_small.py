"""`lobrec diff A B --html OUT` on the smallest comparisons: one case scored in both, the page's
counts in words that agree with their numbers (issue 26's "1 cases")."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.cli import run_lobrec

ROOT = Path(__file__).resolve().parents[3]
EXPECTED = ROOT / "fixtures" / "expected-results.json"


def _one_case(tmp_path: Path) -> Path:
    """The expected results' fixture/sloppy with only its first case (which it failed)."""
    data = json.loads(EXPECTED.read_bytes())
    model = next(entry for entry in data["models"] if entry["model"] == "fixture/sloppy")
    model["cases"] = model["cases"][:1]
    data["models"] = [model]
    path = tmp_path / "one-case.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_one_paired_case_is_counted_in_the_singular(tmp_path: Path) -> None:
    page = tmp_path / "diff.html"
    one = _one_case(tmp_path)
    done = run_lobrec(["diff", str(one), str(EXPECTED), "--model", "fixture/sloppy", "--html", str(page)])
    assert done.returncode == 0, done.stderr.decode()
    html = page.read_text(encoding="utf-8")
    subs = re.findall(r'<p class="sub">([^<]*)</p>', html)
    assert "A on suite lobstack-tools 1.3.0 · B on suite lobstack-tools 1.3.0 · 1 case scored in both" in subs
    assert "0 cases passed in both and 1 failed in both; the others are listed." in subs
    assert not re.search(r"\b1 cases\b", " ".join(subs))

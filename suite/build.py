"""Build suite/suite.json from the hand-written sources in suite/src/.

The sources are easier to write and review than the published file: the system prompt is written
once (`meta.json`) instead of 80 times, each group has its own file (the group comes from the file
name), a case gives its user request as `user`, and a scripted tool `result` may be written as a
JSON value, which the build turns into the string the tool would return, and a long check may be
written as a declarative form (`suite/forms.py`: a clock time judged by its instant, no other date
in a month, a piece of a text, none of some phrases) that the build expands into the `regex` check
the published file holds. Everything else is the suite format itself (`docs/suite-format.md`),
decoded strictly by `lobrec.core.suite.format`.

The build also writes suite/translations.json: the patterns of the suite and of its kept versions
(history/) translated into RE2's syntax, which runs then only compile (`lobrec.translations`).

Usage:
    python suite/build.py           write suite/suite.json and suite/translations.json
    python suite/build.py --check   exit 1 if either is not what the sources build
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from lobrec.core.suite import ecma, jsonschema
from lobrec.core.suite.format import GROUPS, Suite, decode_suite, encode_suite
from lobrec.core.suite.run_rules import runnable_problems
from lobrec.errors import SuiteError
from lobrec.translations import FILE_NAME, encode_translations

sys.path.insert(0, str(Path(__file__).resolve().parent))
import forms  # suite/forms.py, beside this script

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "src"
OUTPUT = HERE / "suite.json"
TRANSLATIONS = HERE / FILE_NAME

_CASE_KEYS = {"id", "note", "tools", "user", "messages", "steps"}


def _result_text(value: Any) -> Any:
    """A result written as JSON becomes the text the tool returns; a string is kept as written."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _call(call: dict[str, Any], zones: dict[str, Any], where: str) -> dict[str, Any]:
    """An expected call with its result as text and its check forms expanded."""
    out = {**call, "result": _result_text(call["result"])} if "result" in call else dict(call)
    if "checks" in call:
        out["checks"] = [
            forms.expand(check, zones, f"{where}.checks[{index}]")
            for index, check in enumerate(call["checks"])
        ]
    return out


def _case(
    source: dict[str, Any], group: str, system_prompt: str, zones: dict[str, Any], where: str
) -> dict[str, Any]:
    unknown = sorted(set(source) - _CASE_KEYS)
    if unknown:
        raise SuiteError(f"{where}: unknown keys {unknown}")
    if ("user" in source) == ("messages" in source):
        raise SuiteError(f"{where}: give exactly one of 'user' and 'messages'")
    if "user" in source:
        conversation = [{"role": "user", "content": source["user"]}]
    else:
        conversation = list(source["messages"])
    steps = []
    for number, step in enumerate(source.get("steps", [])):
        if step.get("expect") == "call":
            calls = [
                _call(call, zones, f"{where}.steps[{number}].calls[{index}]")
                for index, call in enumerate(step.get("calls", []))
            ]
            step = {**step, "calls": calls}
        steps.append(step)
    case: dict[str, Any] = {"id": source.get("id"), "group": group}
    if "note" in source:
        case["note"] = source["note"]
    case["tools"] = source.get("tools")
    case["messages"] = [{"role": "system", "content": system_prompt}, *conversation]
    case["steps"] = steps
    return case


def build(sources: Path = SOURCES) -> bytes:
    """The published suite file's bytes, built from `sources`; raises SuiteError on a malformed source."""
    meta = json.loads((sources / "meta.json").read_text(encoding="utf-8"))
    tools = json.loads((sources / "tools.json").read_text(encoding="utf-8"))
    zones = json.loads((sources / "zones.json").read_text(encoding="utf-8"))
    cases = []
    for group in GROUPS:
        path = sources / f"{group}.json"
        for index, source in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            cases.append(_case(source, group, meta["system_prompt"], zones, f"{path.name}[{index}]"))
    document = {**meta, "tools": tools, "cases": cases}
    try:
        suite = msgspec.convert(document, Suite)
    except msgspec.ValidationError as exc:
        raise SuiteError(f"{sources}: {exc}") from None
    return encode_suite(suite)


def translations(suite: bytes, history: Path = HERE / "history") -> bytes:
    """`translations.json`: every pattern of the built suite and of the kept versions, translated
    into RE2's syntax by today's translator (`lobrec.translations`)."""
    ecma.forget_translations()
    jsonschema.forget_compiled()  # a schema compiled before would not ask for its patterns again
    for data, where in [
        (suite, str(OUTPUT)),
        *((path.read_bytes(), str(path)) for path in sorted(history.glob("*.json"))),
    ]:
        problems = list(runnable_problems(decode_suite(data, where)))
        if problems:
            raise SuiteError(f"{where}: {problems[0]}")
    return encode_translations(ecma.translations())


def main(argv: list[str]) -> int:
    data = build()
    outputs = {OUTPUT: data, TRANSLATIONS: translations(data)}
    if argv[1:] == ["--check"]:
        stale = [path for path, made in outputs.items() if not path.is_file() or path.read_bytes() != made]
        for path in stale:
            print(f"{path} is stale: run python suite/build.py", file=sys.stderr)
        if stale:
            return 1
        print(f"{OUTPUT} and {TRANSLATIONS.name} are up to date")
        return 0
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    for path, made in outputs.items():
        path.write_bytes(made)
        print(f"wrote {path} ({len(made)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

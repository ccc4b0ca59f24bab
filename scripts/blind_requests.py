"""Print what a model sees of the suite, and nothing it is judged by: the brief for a blind round.

A blind attack (docs/suite-format.md, "Adding or changing a case", step 8) needs writers who see
only the requests. This prints, from a suite file, the system prompt once, the toolbox once (every
tool's name, description and parameter schema, as sent), and for each case its id, the names of
the tools it offers (in the order sent), its opening messages without the system prompt, and, for a
chain, the scripted results the model would read after each step: one per expected call, in the
order of the step's expected calls, without the tool's name. Checks, notes, groups, reference
answers and the suite's sample answers (`wrong`, `alternates`) are never printed.

Case ids stay, since the answer files of `scripts/judge_answers.py` name cases by id; their prefix
tells the group (`none-` asks for no call), so `--anonymize MAP` numbers the cases `case-01`... in
a shuffled order instead and writes the mapping (blind id -> suite id) to MAP, for whoever judges.

    .venv/bin/python scripts/blind_requests.py [SUITE] [--json] [--anonymize MAP] [--seed N]

SUITE defaults to suite/suite.json; the output is Markdown, or JSON with `--json`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import msgspec

from lobrec.core.suite.format import CallStep, Case, Suite
from lobrec.errors import LobrecError
from lobrec.suite_file import read_suite

ROOT = Path(__file__).resolve().parents[1]


def _tool(tool: Any) -> dict[str, Any]:
    function = tool.function
    return {
        "name": function.name,
        "description": function.description,
        "parameters": function.parameters,
    }


def _case(case: Case, blind_id: str) -> dict[str, Any]:
    """One case as the model sees it: offered tools, opening messages, results after each step."""
    results = []
    for number, step in enumerate(case.steps[:-1], start=1):
        if isinstance(step, CallStep):
            results.append({"after_step": number, "results": [call.result for call in step.calls]})
    return {
        "id": blind_id,
        "tools": list(case.tools),
        "messages": [
            {key: value for key, value in msgspec.to_builtins(m).items() if value is not None}
            for m in case.messages
            if m.role != "system"
        ],
        "steps": len(case.steps),
        "results": results,
    }


def requests(suite: Suite, ids: dict[str, str] | None = None) -> dict[str, Any]:
    """The blind brief of `suite`; `ids` renames cases (suite id -> blind id) and orders them."""
    cases = list(suite.cases)
    if ids is not None:
        cases.sort(key=lambda case: ids[case.id])
    return {
        "suite": f"{suite.name} {suite.version}",
        "system_prompt": suite.system_prompt,
        "tools": [_tool(tool) for tool in suite.tools],
        "cases": [_case(case, case.id if ids is None else ids[case.id]) for case in cases],
    }


def blind_ids(suite: Suite, seed: int) -> dict[str, str]:
    """Suite id -> `case-NN`, in an order shuffled by `seed`."""
    order = [case.id for case in suite.cases]
    random.Random(seed).shuffle(order)
    width = len(str(len(order)))
    return {case_id: f"case-{index:0{width}d}" for index, case_id in enumerate(order, start=1)}


def _block(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return "```\n" + text + "\n```"


def markdown(brief: dict[str, Any]) -> str:
    """The brief as one Markdown page: system prompt, toolbox, then each case."""
    out = [f"# The requests of suite {brief['suite']}", "", "## System prompt (every case)", ""]
    out += [_block(brief["system_prompt"]), "", "## Tools", ""]
    for tool in brief["tools"]:
        out += [f"### {tool['name']}", "", tool["description"], "", _block(tool["parameters"]), ""]
    out += ["## Cases", ""]
    for case in brief["cases"]:
        out += [f"### {case['id']}", "", "Tools offered: " + ", ".join(case["tools"]), ""]
        for message in case["messages"]:
            shown = message["content"] if set(message) <= {"role", "content"} else message
            out += [f"{message['role']}:", "", _block(shown), ""]
        for after in case["results"]:
            out += [f"After step {after['after_step']} of {case['steps']}, the tools return:", ""]
            out += [_block(result) for result in after["results"]] + [""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", default=str(ROOT / "suite" / "suite.json"))
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--anonymize", metavar="MAP", help="number the cases; write blind id -> id to MAP")
    parser.add_argument("--seed", type=int, default=0, help="the shuffle of --anonymize (default 0)")
    options = parser.parse_args(argv)
    try:
        suite = read_suite(options.suite)
    except LobrecError as exc:
        print(f"blind_requests: {exc}", file=sys.stderr)
        return 2
    ids = None
    if options.anonymize:
        ids = blind_ids(suite, options.seed)
        mapping = {blind: case_id for case_id, blind in sorted(ids.items(), key=lambda item: item[1])}
        Path(options.anonymize).write_text(json.dumps(mapping, indent=2) + "\n", encoding="utf-8")
    brief = requests(suite, ids)
    text = json.dumps(brief, indent=2, ensure_ascii=False) + "\n" if options.json else markdown(brief)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

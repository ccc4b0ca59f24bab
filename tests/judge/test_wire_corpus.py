"""Every real provider reply in fixtures/wire-corpus/ reads as a careful evaluator reads it.

The corpus is third-party data committed with its sources (`fixtures/wire-corpus/SOURCES.md`), so
every test runs on a fresh clone. Each file's expectation below was written by reading that file: the verdict
kind, the calls (name and arguments; a set of keys where the arguments are long), and the text.
Verdict kinds: "calls" (a reply with tool calls), "text" (no calls), "withheld" (a content filter:
no calls, a visible reason), "rejected" (a 400 `tool_use_failed`: the model's call, invalid),
"malformed" (a call entry the judge counts invalid), "not a completion" (the gateway's fault).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lobrec.core.judge import wire

CORPUS = Path(__file__).parents[2] / "fixtures" / "wire-corpus"


def test_the_corpus_is_committed() -> None:
    assert len(sorted(CORPUS.glob("*.json"))) == 49 and (CORPUS / "SOURCES.md").is_file()


@dataclass(frozen=True)
class Expect:
    kind: str
    calls: list[tuple[str | None, Any]] = field(default_factory=list)
    """(name, arguments); arguments a dict, a frozenset of keys, or None when they do not parse."""
    text: str | None = None
    """The verdict text exactly, or with `starts` its beginning."""
    starts: bool = False
    quirks: list[str] = field(default_factory=list)


MISSING = wire.QUIRK_MISSING_ARGUMENTS
FILTER = wire.QUIRK_CONTENT_FILTER
REJECTED = wire.QUIRK_REJECTED_BY_PROVIDER

EXPECTED: dict[str, Expect] = {
    "01-openai.json": Expect("calls", [("get_weather", {"city": "San Francisco", "state": "CA"})]),
    "02-openai.json": Expect(
        "calls",
        [
            ("GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
            ("get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
        ],
    ),
    "03-openai.json": Expect(
        "calls", [("Query", frozenset({"columns", "conditions", "name", "order_by", "table_name"}))]
    ),
    "04-openai.json": Expect("text", text="I'm very sorry, but I can't assist with that."),  # refusal
    "05-openai.json": Expect("text", text="I'm unable to provide real-time weather updates.", starts=True),
    # n=3 (out of scope): the first choice is the reply.
    "06-openai.json": Expect("text", text='{"city":"San Francisco","temperature":64,"units":"f"}'),
    "07-openai.json": Expect("calls", [("get_weather", {"city": "Paris"})]),
    "08-openai.json": Expect(
        "calls", [("TrainingTaskEvaluation", frozenset({"final_summary", "quality", "suggestions"}))]
    ),
    # Legacy `functions` (out of scope): `function_call` is not a tool call; no text.
    "09-openai.json": Expect("text"),
    "10-openai.json": Expect("text", text=""),  # finish_reason length, empty content
    "11-azure-openai.json": Expect(
        "calls",
        [
            ("parallel_local_search_one", {"query": "latest OpenAI model release notes"}),
            ("parallel_local_search_two", {"query": "latest Anthropic model release notes"}),
            ("parallel_local_search_three", {"query": "latest Gemini model release notes"}),
        ],
    ),
    "12-azure-openai.json": Expect("calls", [("add_numbers", {"a": 15, "b": 27})]),
    "13-azure-openai.json": Expect("withheld", quirks=[FILTER]),
    # An error object in a 200 (hand-edited per SOURCES.md): not a chat completion.
    "14-azure-openai.json": Expect("not a completion"),
    "15-openrouter.json": Expect(
        "calls",
        [("find_education_content", {})],
        text="I'll search for education content for you.",
        quirks=[MISSING],
    ),
    "16-openrouter.json": Expect(
        "calls", [("insert_level_with_spaces", frozenset({"level", "spaces"}))], text=""
    ),
    "17-openrouter.json": Expect(
        "calls", [("divide", {"numerator": 123, "denominator": 456, "on_inf": "infinity"})], text=""
    ),
    "18-openrouter.json": Expect(
        "text", text="I'm Grok, a helpful and maximally truthful AI built by xAI.", starts=True
    ),
    "19-openrouter.json": Expect("text", text="The capital of France is **Paris**.", starts=True),
    "20-groq.json": Expect(
        "calls",
        [
            ("get_weather", {"city": "Paris"}),
            ("final_result", {"city": "Paris", "summary": "Current weather in Paris"}),
        ],
    ),
    # Groq's refusal is not our verdict: the call is read with its arguments (sent as an object).
    "21-groq.json": Expect(
        "rejected",
        [("get_something_by_name", {"foo": "bar"})],
        quirks=[wire.QUIRK_ARGUMENTS_OBJECT, REJECTED],
    ),
    "22-groq.json": Expect("calls", [("get_something_by_name", {"name": "test"})]),
    "23-groq.json": Expect("calls", [("get_image", {})]),
    "24-mistral.json": Expect("calls", [("get_weather", {"city": "Paris"})], text=""),
    # Magistral's parts: the `thinking` part is dropped, the text part kept.
    "25-mistral.json": Expect(
        "text", text="Crossing a river is quite different from crossing a street", starts=True
    ),
    "26-mistral.json": Expect("calls", [("get_image", {})], text=""),
    "27-deepseek.json": Expect(
        "calls", [("load_capability", {"id": "DICE_ROLL"})], text="Let me load the dice rolling capability!"
    ),
    "28-deepseek.json": Expect(
        "calls", [("get_player_name", {}), ("roll_dice", {})], text="Let me get your name and roll the die!"
    ),
    "29-together.json": Expect("calls", [("get_current_weather", {"city": "Paris"})]),
    "30-together.json": Expect("text", text="To find the answer, add 4200 and 42.\n\n4200 + 42 = 4242"),
    "31-gemini-openai-compat.json": Expect("calls", [("get_current_time", {})]),  # id ""
    "32-anthropic-openai-compat.json": Expect("text", text="4200 + 42 = 4242"),
    "33-ollama.json": Expect("calls", [("no_args_tool", {})], text=""),
    "34-ollama.json": Expect("calls", [("get_weather", {"location": "San Francisco, CA"})], text=""),
    "35-ollama.json": Expect("text", text="4200 + 42 = 4242\n"),
    "36-ollama-cloud.json": Expect(
        "calls", [("final_result", {"city": "Paris", "country": "France"})], text=""
    ),
    # vLLM without a reasoning parser: the <think> block is in content, kept as sent.
    "37-vllm.json": Expect(
        "calls",
        [("calculate", {"x": 5, "y": 3, "operation": "+"})],
        text="<think>\nOkay, the user",
        starts=True,
    ),
    "38-vllm.json": Expect("text", text="<think>\nOkay, the user wants to book a flight", starts=True),
    "39-vllm.json": Expect("text", text="Why did the OpenTelemetry metric go to therapy?", starts=True),
    "40-cerebras.json": Expect("calls", [("final_result", {"city": "Paris", "country": "France"})]),
    "41-huggingface.json": Expect("calls", [("final_result", {"response": [2, 3, 5]})]),
    "42-huggingface.json": Expect(
        "calls",
        [
            ("get_weather", {"city": "Paris"}),
            ("final_result", {"city": "Paris", "summary": "Weather in Paris"}),
        ],
        text="",
    ),
    "43-zai.json": Expect("text", text="2 + 2 is 4."),
    "44-snowflake-cortex.json": Expect("calls", [("get_weather", {"city": "Mexico City"})], text=""),
    "45-crusoe.json": Expect("calls", [("get_weather", {"city": "Paris"})]),
    # Structured output as an object in content (out of scope): its JSON is the text.
    "46-cloudflare-workers-ai.json": Expect(
        "text", text='{"title": "Apples are tasty", "author": "Hadley Wickham"}'
    ),
    "47-databricks.json": Expect("text", text='{"title":"Apples are tasty","author":"Hadley Wickham"}'),
    "48-bedrock-openai-compat.json": Expect("text", text="SAFE"),
    # A stale doc's flat call ({name, arguments}, no `function`): an invalid call.
    "49-llama-cpp.json": Expect("malformed", [(None, None)]),
}


def _files() -> list[str]:
    return sorted(path.name for path in CORPUS.glob("*.json")) if CORPUS.is_dir() else []


def test_every_corpus_file_has_an_expectation() -> None:
    assert _files() == sorted(EXPECTED)


def _read(name: str) -> tuple[int, bytes]:
    record = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    text = record.get("body_text")
    raw = text.encode("utf-8") if isinstance(text, str) else json.dumps(record["body"]).encode("utf-8")
    return record["status"], raw


def _kind(reply: wire.Reply) -> str:
    if reply.withheld is not None:
        return "withheld"
    if any(call.name is None for call in reply.calls):
        return "malformed"
    return "calls" if reply.calls else "text"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file_reads_as_a_careful_evaluator_reads_it(name: str) -> None:
    expect = EXPECTED[name]
    status, raw = _read(name)
    if expect.kind == "not a completion":
        with pytest.raises(wire.NotACompletion):
            wire.parse_completion(raw)
        return
    if expect.kind == "rejected":
        assert status == 400 and wire.tool_use_failed(status, raw)
        reply = wire.parse_tool_use_failed(raw)
    else:
        assert status == 200 and not wire.tool_use_failed(status, raw)
        reply = wire.parse_completion(raw)
        assert _kind(reply) == expect.kind
    got = [(call.name, call.arguments) for call in reply.calls]
    want = expect.calls
    assert [name for name, _ in got] == [name for name, _ in want]
    for (_, arguments), (_, wanted) in zip(got, want, strict=True):
        if isinstance(wanted, frozenset):
            assert arguments is not None and frozenset(arguments) == wanted
        else:
            assert arguments == wanted
    if expect.starts:
        assert reply.content is not None and reply.content.startswith(expect.text or "")
    else:
        assert reply.content == expect.text
    assert reply.quirks == expect.quirks


@pytest.mark.parametrize("name", [name for name, e in sorted(EXPECTED.items()) if e.kind == "calls"])
def test_corpus_chains_echo_the_message_whole_with_ids_that_agree(name: str) -> None:
    _, raw = _read(name)
    reply = wire.parse_completion(raw)
    echoed = wire.assistant_message(reply)
    assert reply.message is not None
    assert set(reply.message) - {"tool_calls"} <= set(echoed)
    ids = [call["id"] for call in echoed["tool_calls"]]
    assert all(ids) and ids == [wire.tool_message(call, "r").tool_call_id for call in reply.calls]

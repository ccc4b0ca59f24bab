"""Hypothesis strategies shared by lobrec's property tests, one heading per subject."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from lobrec.core.metrics.results import ApiCall, CallRecord, CaseResult, Mismatch, StepVerdict
from lobrec.core.suite.format import (
    GROUPS,
    CallStep,
    Case,
    ExpectedCall,
    FunctionSpec,
    Message,
    NoCallStep,
    Suite,
    Tool,
)

# --- JSON values and schemas (lobrec.core.suite.jsonschema) --------------------------------------------
#
# Schemas use only the supported keywords. Instances are drawn *from* a schema ("near-valid"): the
# generator aims at a valid value and misses on purpose at every node now and then (a bound off by
# one, a missing required property, an extra property, 1 for true), so both verdicts are common.
#
# Patterns come from a fixed list and strings from a small alphabet on which ECMA-262 and Python's
# `re` agree: no \w or \b (ASCII in ECMA, Unicode in Python), no line terminators (`.` and `$`
# differ), no non-ASCII digits (\d differs), no whitespace outside both \s sets.

SAFE_ALPHABET = "ab07 -é😀\u00a0\t"
SAFE_PATTERNS = (
    "^a",
    "a$",
    "^[ab]+$",
    "b{2}",
    "^\\d+$",
    "\\d",
    "\\D",
    "\\s",
    "^\\S*$",
    "é",
    "😀",
    "^.{2}$",
    "^(a|b)7?$",
    "[^a]",
    "^$",
    "^[0-9a-f-]*$",
    "^a*b*$",
    "^\\d{1,2}$",
    ".",
    "^[\\s\\d]+$",
    "^[^\\s]+$",
    "^[\\S]{3}",
)
TYPE_NAMES = ("null", "boolean", "integer", "number", "string", "array", "object")
PROPERTY_NAMES = ("a", "b", "c", "d e")

_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any decoded JSON value (no NaN or infinity; object keys are strings)."""
    return st.recursive(
        _scalars | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
        ),
        max_leaves=max_leaves,
    )


# Few distinct values, many JSON-equal-but-not-Python-identical ones (1, 1.0, true), so enum, const
# and near-valid instances collide often.
small_json_values: st.SearchStrategy[Any] = st.recursive(
    st.sampled_from([None, True, False, 0, 1, 1.0, -1, 2, 2.5, "", "a", "é", "😀"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("ab"), children, max_size=2)
    ),
    max_leaves=4,
)

# Python values that JSON cannot hold; validate must not raise on these either.
odd_python_values: st.SearchStrategy[Any] = st.one_of(
    st.tuples(st.integers()),
    st.frozensets(st.integers(), max_size=2),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), b"bytes", object(), 10**400]),
    st.dictionaries(st.integers(), small_json_values, max_size=2),
    st.integers(0, 3000).map(lambda depth: _nested(depth)),
)


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True with about `percent`% probability; shrinks towards False."""
    return draw(st.integers(0, 99)) >= 100 - percent


_annotations: dict[str, st.SearchStrategy[Any]] = {
    "title": st.text(max_size=5),
    "description": st.text(max_size=5),
    "$comment": st.text(max_size=5),
    "$schema": st.just("https://json-schema.org/draft/2020-12/schema"),
    "default": small_json_values,
    "examples": st.lists(small_json_values, max_size=2),
}
_bounds = st.integers(-3, 3) | st.sampled_from([-1.5, 0.5, 2.0, 2.5])
_lengths = st.integers(0, 3) | st.just(2.0)


@st.composite
def schemas(draw: st.DrawFn, depth: int = 2) -> dict[str, Any] | bool:
    """A schema using only the supported keywords, at most `depth` levels of subschemas deep."""
    if _chance(draw, 8):
        return draw(st.booleans())
    schema: dict[str, Any] = {}
    if _chance(draw, 60):
        names = draw(st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=2, unique=True))
        schema["type"] = names[0] if len(names) == 1 and _chance(draw, 70) else names
    if _chance(draw, 12):
        schema["const"] = draw(small_json_values)
    if _chance(draw, 15):
        # an empty enum now and then: a legal schema no instance satisfies
        schema["enum"] = draw(st.lists(small_json_values, min_size=0, max_size=4))
    for keyword in ("minimum", "maximum"):
        if _chance(draw, 25):
            schema[keyword] = draw(_bounds)
    for keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        if _chance(draw, 20):
            schema[keyword] = draw(_lengths)
    if _chance(draw, 25):
        schema["pattern"] = draw(st.sampled_from(SAFE_PATTERNS))
    if depth > 0:
        if _chance(draw, 30):
            schema["items"] = draw(schemas(depth - 1))
        if _chance(draw, 40):
            names = draw(st.lists(st.sampled_from(PROPERTY_NAMES), max_size=3, unique=True))
            schema["properties"] = {name: draw(schemas(depth - 1)) for name in names}
        if _chance(draw, 30):
            schema["additionalProperties"] = draw(st.booleans() | schemas(depth - 1))
    if _chance(draw, 30):
        schema["required"] = draw(st.lists(st.sampled_from(PROPERTY_NAMES), max_size=3, unique=True))
    if _chance(draw, 10):
        keyword, values = draw(st.sampled_from(sorted(_annotations.items())))
        schema[keyword] = draw(values)
    return schema


def _json_twin(value: Any) -> Any:
    """A JSON-equal value of other Python types: ints become floats and integral floats ints."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_json_twin(item) for item in value]
    return {key: _json_twin(item) for key, item in value.items()}


def _python_twin(value: Any) -> Any:
    """A value Python calls equal but JSON does not: booleans become 0 and 1."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list):
        return [_python_twin(item) for item in value]
    if isinstance(value, dict):
        return {key: _python_twin(item) for key, item in value.items()}
    return value


def _number(draw: st.DrawFn, schema: dict[str, Any], integral: bool) -> int | float:
    low = int(schema.get("minimum", -4)) - 1
    high = int(schema.get("maximum", 4)) + 1
    low, high = min(low, high), max(low, high)
    if integral:
        value = draw(st.integers(low, high))
        return float(value) if _chance(draw, 25) else value
    return draw(st.integers(low, high) | st.floats(low, high, allow_nan=False))


def _safe_match(text: str) -> bool:
    # from_regex knows Python's `$` also matches before a final newline and adds one, whatever
    # the alphabet; ECMA's `$` does not, so that string would be a dialect difference.
    return len(text) < 8 and "\n" not in text


@st.composite
def instances_for(draw: st.DrawFn, schema: dict[str, Any] | bool, depth: int = 3) -> Any:
    """A value aimed at satisfying `schema` that sometimes misses by a little."""
    if isinstance(schema, bool) or depth == 0 or _chance(draw, 8):
        return draw(small_json_values)
    if "const" in schema and _chance(draw, 60):
        return draw(
            st.sampled_from([schema["const"], _json_twin(schema["const"]), _python_twin(schema["const"])])
        )
    if schema.get("enum") and _chance(draw, 60):
        option = draw(st.sampled_from(schema["enum"]))
        return draw(st.sampled_from([option, _json_twin(option), _python_twin(option)]))
    declared = schema.get("type", list(TYPE_NAMES))
    kind = draw(st.sampled_from([declared] if isinstance(declared, str) else declared))
    if kind == "null":
        return None
    if kind == "boolean":
        return draw(st.booleans())
    if kind in ("integer", "number"):
        return _number(draw, schema, integral=kind == "integer")
    if kind == "string":
        if "pattern" in schema and _chance(draw, 70):
            return draw(st.from_regex(schema["pattern"], alphabet=SAFE_ALPHABET).filter(_safe_match))
        low = max(0, int(schema.get("minLength", 0)) - 1)
        return draw(
            st.text(SAFE_ALPHABET, min_size=low, max_size=max(low, int(schema.get("maxLength", 4)) + 1))
        )
    if kind == "array":
        low = max(0, int(schema.get("minItems", 0)) - 1)
        count = draw(st.integers(low, max(low, int(schema.get("maxItems", 3)) + 1)))
        return [draw(instances_for(schema.get("items", True), depth - 1)) for _ in range(count)]
    properties: dict[str, Any] = schema.get("properties", {})
    additional = schema.get("additionalProperties", True)
    value: dict[str, Any] = {}
    for name in [*schema.get("required", []), *properties]:
        if name not in value and _chance(draw, 85):
            value[name] = draw(instances_for(properties.get(name, additional), depth - 1))
    if _chance(draw, 20):
        value["z"] = draw(instances_for(additional, depth - 1))
    return value


@st.composite
def schemas_with_instances(draw: st.DrawFn) -> tuple[dict[str, Any] | bool, Any]:
    schema = draw(schemas())
    return schema, draw(instances_for(schema))


# --- matching and call steps (lobrec.core.judge.matching, lobrec.core.judge.step) ---------------------------


@st.composite
def compatibility(draw: st.DrawFn, max_side: int = 6) -> tuple[int, int, set[tuple[int, int]]]:
    """A bipartite compatibility relation: n expected calls, m observed calls, the allowed pairs."""
    n = draw(st.integers(0, max_side))
    m = draw(st.integers(0, max_side))
    pairs = [(i, j) for i in range(n) for j in range(m)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True) if pairs else st.just([]))
    return n, m, set(chosen)


@st.composite
def call_steps(draw: st.DrawFn) -> Any:
    """A call step of 1-4 expected calls over 1-3 tool names, each with an eq or range check on
    `value`, whose reference answers pass; names repeat, so the pairing is often ambiguous."""
    from lobrec.core.suite.format import CallStep, Eq, ExpectedCall, Range

    count = draw(st.integers(1, 4))
    calls = []
    for _ in range(count):
        name = draw(st.sampled_from(["alpha", "beta", "gamma"][: draw(st.integers(1, 3))]))
        value = draw(st.integers(-3, 3))
        if draw(st.booleans()):
            check = Eq(arg="value", value=value)
        else:
            check = Range(
                arg="value", min=value - draw(st.integers(0, 2)), max=value + draw(st.integers(0, 2))
            )
        calls.append(ExpectedCall(name=name, checks=[check], answer={"value": value}))
    return CallStep(calls=calls)


def completion_for(calls: list[tuple[str, str]]) -> bytes:
    """A chat completion whose message makes these (name, arguments-JSON) calls."""
    import json

    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls)
    ]
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": tool_calls}}]}
    ).encode()


# --- suites and judged cases (lobrec.core.metrics.rates) ------------------------------------------------

TOOL_NAMES = ("get_weather", "send_email", "read_file")
TOOLS = [Tool(type="function", function=FunctionSpec(name=name, parameters={})) for name in TOOL_NAMES]

metric_call_steps = st.builds(
    CallStep,
    calls=st.lists(
        st.builds(ExpectedCall, name=st.sampled_from(TOOL_NAMES), answer=st.just({})), min_size=1, max_size=3
    ),
)
metric_steps = st.one_of(metric_call_steps, st.builds(NoCallStep))


@st.composite
def suites(draw: st.DrawFn) -> Suite:
    """A suite of 1 to 8 cases with random groups and 1 to 4 steps each."""
    count = draw(st.integers(min_value=1, max_value=8))
    cases = [
        Case(
            id=f"case-{index}",
            group=draw(st.sampled_from(GROUPS)),
            tools=list(TOOL_NAMES),
            messages=[Message(role="user", content="hi")],
            steps=draw(st.lists(metric_steps, min_size=1, max_size=4)),
        )
        for index in range(count)
    ]
    return Suite(name="prop", version="1.0.0", system_prompt="", tools=TOOLS, cases=cases)


call_records = st.one_of(
    st.builds(
        CallRecord,
        name=st.sampled_from(TOOL_NAMES),
        arguments=st.just("{}"),
        offered=st.just(True),
        schema_valid=st.sampled_from([True, False, None]),
    ),
    st.builds(
        CallRecord,
        name=st.sampled_from([None, "made_up"]),
        arguments=st.none(),
        offered=st.just(False),
        schema_valid=st.none(),
    ),
)

prices = st.floats(min_value=0, max_value=1, allow_nan=False)
api_calls = st.builds(
    ApiCall,
    step=st.integers(min_value=0, max_value=3),
    attempt=st.integers(min_value=0, max_value=3),
    status=st.sampled_from([200, 200, 200, 201, 204, 400, 429, 503, 599, None]),
    error=st.sampled_from([None, None, "Timeout: no complete answer"]),
    # 0.0 (a measure) and None (not timed) both drawn often: they are different facts.
    latency_ms=st.one_of(st.just(0.0), st.none(), st.floats(min_value=0, max_value=200_000, allow_nan=False)),
    # Mostly priced (three branches to one), so that the cost figure is often shown.
    cost_usd=st.one_of(prices, prices, prices, st.none()),
    judged=st.booleans(),
    answered_by=st.sampled_from([None, "acme/a", "acme/b", "zeta/z"]),
)


@st.composite
def case_result(draw: st.DrawFn, case: Case) -> CaseResult:
    """A result for `case`: any status, a prefix of verdicts (a chain may stop), any calls."""
    count = draw(st.integers(min_value=0, max_value=len(case.steps)))
    verdicts = [
        StepVerdict(
            index=index,
            expects="call" if isinstance(case.steps[index], CallStep) else "no_call",
            passed=draw(st.booleans()),
            names_match=draw(st.booleans()),
            expected_names=[],
            calls=draw(st.lists(call_records, max_size=3)),
        )
        for index in range(count)
    ]
    return CaseResult(
        id=case.id,
        group=case.group,
        status=draw(st.sampled_from(["scored", "scored", "scored", "errored", "stale", "unrecorded"])),
        steps=verdicts,
        api_calls=draw(st.lists(api_calls, max_size=4)),
    )


@st.composite
def suites_and_results(draw: st.DrawFn) -> tuple[Suite, list[CaseResult]]:
    """A suite and one model's results for some of its cases, in any order."""
    suite = draw(suites())
    chosen = draw(st.lists(st.sampled_from(suite.cases), unique_by=lambda case: case.id))
    return suite, [draw(case_result(case)) for case in chosen]


# --- failed steps (lobrec.core.judge.failures) ----------------------------------------------------------

mismatches = st.builds(
    Mismatch,
    path=st.sampled_from(
        [
            "names",
            "message",
            "tool_calls",
            "calls[0]",
            "calls[0].arguments",
            "calls[1].arguments",
            "calls[0].arguments.a",
            "x",
        ]
    ),
    expected=st.none() | st.just("a JSON object"),
    got=st.none(),
    reason=st.just("r"),
    check=st.none() | st.sampled_from(["eq", "regex", "range"]),
    argument=st.none() | st.sampled_from(["a", "b"]),
)
step_verdicts = st.builds(
    StepVerdict,
    index=st.integers(min_value=0, max_value=3),
    expects=st.sampled_from(["call", "no_call"]),
    passed=st.booleans(),
    names_match=st.booleans(),
    expected_names=st.lists(st.sampled_from(TOOL_NAMES), max_size=3),
    calls=st.lists(
        st.one_of(
            call_records,
            st.builds(
                CallRecord,
                name=st.sampled_from(TOOL_NAMES),
                arguments=st.sampled_from([None, "{", "[]", "{}", '{"a": 1}']),
                offered=st.just(True),
                schema_valid=st.just(False),
            ),
        ),
        max_size=3,
    ),
    mismatches=st.lists(mismatches, max_size=3),
)

# --- gates (lobrec.core.metrics.gates) ----------------------------------------------------------

allowance_texts = st.one_of(
    st.integers(0, 100).map(str),
    st.integers(0, 100).map(lambda n: f"{n}%"),
    st.tuples(st.integers(0, 99), st.integers(0, 99)).map(lambda pair: f"{pair[0]}.{pair[1]}%"),
)
"""`--max-errored` values: a count, a whole percentage, a percentage with decimals."""


# --- API keys (issue 25: the key in every spelling) ------------------------------------------------

KEY_ALPHABET = "".join(chr(code) for code in range(0x21, 0x7F))
"""What a key may hold: visible ASCII (`lobrec.running.gateway` refuses anything else up front)."""


def api_keys() -> st.SearchStrategy[str]:
    """Keys as `resolve_gateway` accepts them: 16 to 64 visible ASCII characters."""
    return st.text(alphabet=KEY_ALPHABET, min_size=16, max_size=64)


def malformed_keys() -> st.SearchStrategy[tuple[str, str]]:
    """A good key with one character no HTTP header can carry put somewhere in it, and that character."""
    bad = st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x20),
        st.just("\x7f"),
        st.characters(min_codepoint=0x80, exclude_categories=("Cs",)),
    )
    return st.tuples(api_keys(), bad, st.integers(min_value=0, max_value=64)).map(
        lambda parts: (parts[0][: parts[2]] + parts[1] + parts[0][parts[2] :], parts[1])
    )


# --- text from outside (lobrec.reports._text) ------------------------------------------------------

HOSTILE_CHARACTERS = (
    "\x1b\x07\x00\x7f\x85\x9b\n\r\t\u2028\u2029\u200d\u200b\u00a0\u202e\u2066\ufeff\ud800\U000e0001"
)
"""Control, format and separator characters a terminal could obey or that make a line read wrong."""

outside_texts = st.text(
    st.characters(exclude_categories=()) | st.sampled_from(HOSTILE_CHARACTERS), min_size=1, max_size=16
)
"""Any text a model, a gateway or a file could hand lobrec: surrogates and every category included."""

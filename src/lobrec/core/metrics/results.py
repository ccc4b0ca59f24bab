"""What judging produces: step verdicts, case results, per-model metrics and the results file.

These Structs are the results JSON (`lobrec record --json`, `lobrec rescore --json`). Field order is
the file's key order; nothing in them depends on the clock or the machine, so the same cassettes
give byte-identical files.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

import msgspec

from lobrec.core.judge.jsonvalue import too_deep

RESULTS_FORMAT = 1

CaseStatus = Literal["scored", "errored", "stale", "unrecorded"]

FailureKind = Literal[
    "reply_withheld",
    "call_not_needed",
    "malformed_tool_calls",
    "no_call",
    "made_up_tool",
    "premature_chain_call",
    "missing_parallel_call",
    "extra_call",
    "wrong_tool",
    "arguments_not_json",
    "arguments_not_object",
    "argument_check",
    "duplicate_call",
    "other",
]
"""Why a failed step failed, one kind per step; the order is the precedence (docs/metrics.md,
"Failure kinds"): the first that applies wins."""


class Record(msgspec.Struct, kw_only=True, frozen=True):
    """Base for result Structs: keyword-only and immutable.

    The per-case Structs (a case, its steps, calls, API calls and mismatches) are `gc=False`: they
    hold JSON values and other results, never a cycle, and a rescore makes hundreds of thousands of
    them that the garbage collector would otherwise traverse (a rescore's parent decodes them 20%
    faster). `ModelResult` cannot be: it is weak-referenced (`core.memo`)."""


class Mismatch(Record, kw_only=True, frozen=True, gc=False):
    """Why a step failed, in words a person can act on.

    `path` points into the model's reply (`calls[1].arguments.path`) or names the step part
    (`names`, `calls[0].arguments`).
    """

    path: str
    expected: Any
    got: Any
    reason: str
    check: str | None = None
    """For a failed argument check, its kind (`eq`, `regex`, `range`...); null for any other mismatch
    and in results files written before it existed."""
    argument: str | None = None
    """For a failed argument check, the argument it tests."""


class CallRecord(Record, kw_only=True, frozen=True, gc=False):
    """One call the model made, as the metrics see it."""

    name: str | None
    arguments: str | None
    """The arguments exactly as sent (a JSON string, or a JSON rendering of a non-string)."""
    offered: bool
    """The name is one of the tools the case offered (made-up tool is `not offered`)."""
    schema_valid: bool | None
    """For offered tools: the arguments parse as JSON and validate. None for other names."""
    schema_errors: list[str] = []
    quirks: list[str] = []
    """Wire-format tolerances the call was read with ("missing arguments", "arguments as an object",
    "call rejected by the provider"); empty in results files written before they existed."""


class StepVerdict(Record, kw_only=True, frozen=True, gc=False):
    index: int
    expects: Literal["call", "no_call"]
    passed: bool
    names_match: bool
    """The multiset of names called equals the names expected (right tool at the first call step)."""
    expected_names: list[str]
    calls: list[CallRecord]
    content: str | None = None
    mismatches: list[Mismatch] = []
    pairing: list[int] = []
    """For a passing call step: for each expected call, the index of the model's call matched to it."""
    quirks: list[str] = []
    """Tolerances the step's reply leaned on (its calls' quirks, or "content filter")."""
    failure_kind: FailureKind | None = None
    """Why a failed step of a scored case failed, from `lobrec.core.judge.failures` (null when it passed,
    and in results files written before it existed)."""
    failure_argument: str | None = None
    """For `argument_check`: the argument whose check failed (the first, in the mismatches' order)."""
    failure_check: str | None = None
    """For `argument_check`: that check's kind."""


MAX_CASE_BYTES = 256 * 1024
"""What one case may keep of the model's replies in the results (its step verdicts, as JSON).

A reply may be up to 4 MiB (`transport.MAX_REPLY_BYTES`) and is kept whole in its cassette; a
results entry is read by every report and export, and 80 cases of 4 MiB each, kept as text,
parsed and reported, would cost gigabytes. A case whose verdicts pass this is errored instead
(`oversized`), with the size in its reason. An ordinary case keeps a few kilobytes."""


def oversized(verdicts: list[StepVerdict]) -> str | None:
    """Why these step verdicts are too large to keep (`MAX_CASE_BYTES`), or None."""
    size = sum(len(_encoder.encode(verdict)) for verdict in verdicts)
    if size <= MAX_CASE_BYTES:
        return None
    return (
        f"step {len(verdicts)}: the replies would take {size} bytes in the results, over the "
        f"{MAX_CASE_BYTES} bytes a case keeps; the cassette holds them whole"
    )


class ApiCall(Record, kw_only=True, frozen=True, gc=False):
    """One HTTP attempt, from the runner's point of view (retries included)."""

    step: int
    attempt: int
    status: int | None
    """HTTP status, or None when the request did not complete."""
    error: str | None = None
    latency_ms: float | None
    """The wall time the runner measured, in ms; null when the attempt was not timed (an answer lobrec
    itself refused: too large, not text, holding the key). 0.0 is a measure (a connection refused at
    once), never a stand-in for "not timed"; results files before round three wrote 0 for both."""
    cost_usd: float | None = None
    judged: bool = False
    """This attempt's answer was the one judged (or errored the case): the last attempt of a step."""
    answered_by: str | None = None
    dropped_params: list[str] = []


class CaseResult(Record, kw_only=True, frozen=True, gc=False):
    """One case as judged in one run: its status, its step verdicts and every HTTP attempt."""

    id: str
    group: str
    status: CaseStatus
    reason: str | None = None
    """Why the case was errored, stale or unrecorded."""
    steps: list[StepVerdict] = []
    api_calls: list[ApiCall] = []
    broke_at: int | None = None
    """For a failed scored case of two or more steps (a chain): the index of the step where it broke
    (the first step that failed). Null otherwise, and in files written before it existed."""

    @property
    def passed(self) -> bool:
        return self.status == "scored" and bool(self.steps) and all(step.passed for step in self.steps)


class Counts(Record, kw_only=True, frozen=True):
    """A model's cases by status (summed over the runs of a repeated model)."""

    cases: int
    scored: int
    errored: int
    stale: int
    unrecorded: int


class Rate(Record, kw_only=True, frozen=True):
    """A share with its counts; `rate` and the interval are percentages, None when total is 0."""

    rate: float | None
    passed: int
    total: int
    ci95: tuple[float, float] | None


class Metrics(Record, kw_only=True, frozen=True):
    overall: Rate
    right_tool: Rate
    valid_arguments: Rate
    made_up_tool: Rate
    chains: Rate
    parallel: Rate
    no_call_needed: Rate
    latency_p50_ms: float | None
    """The methodology's figure: median wall time of every timed attempt (retries, errored cases)."""
    cost_per_100_cases_usd: float | None
    latency_p50_judged_ms: float | None = None
    """The median of the judged attempts of scored cases only (the figure before suite 1.1.0)."""
    unpriced_calls: list[str] = []
    """The 2xx answers without a price ("case-id step N attempt M"); any one hides the cost."""


class SuiteRef(Record, kw_only=True, frozen=True, omit_defaults=True):
    name: str
    version: str
    sha256: str | None = None
    """The judging suite's content hash (`cassettes.suite_fingerprint`); only on the results file's
    top-level `suite`, absent elsewhere and from files written before lobrec 0.3.0."""
    source: str | None = None
    """Where the judging suite came from: "bundled" (the suite shipped with lobrec) or the `--suite`
    path as given; top-level only, like `sha256`."""


class Recording(Record, kw_only=True, frozen=True):
    """One run folder's manifest, as the results file cites it: which suite recorded it, and when."""

    run: int
    """1 for the model folder, n for its `runs/<n>/`."""
    suite: SuiteRef
    lobrec_version: str
    started_at: str
    finished_at: str | None
    """None when that recording was interrupted."""


RunOutcome = Literal["passed", "failed", "errored", "stale", "unrecorded"]
"""A case in one run: `passed` or `failed` when scored, else its status."""


class Spread(Record, kw_only=True, frozen=True):
    """One metric over the runs that have a value for it (a rate with nothing to rate has none)."""

    runs: int
    """How many runs had a value; mean, min and max are null when none did."""
    mean: float | None
    min: float | None
    max: float | None
    sd: float | None
    """The sample standard deviation (n - 1): the spread a further run is expected to show; null with
    fewer than two values."""


class RunMetrics(Record, kw_only=True, frozen=True):
    """One run of a repeated model, judged on its own."""

    run: int
    """1..K; run 1 is the model folder itself, run n its `runs/<n>/` folder."""
    counts: Counts
    has_scores: bool
    temperature_ignored: bool
    metrics: Metrics
    cases: list[CaseResult] = []
    """This run's cases, for runs 2..K; empty for run 1, whose cases are the model's `cases`."""


class CaseRuns(Record, kw_only=True, frozen=True):
    """One case over the K runs."""

    id: str
    passes: int
    """k: the runs in which the case passed."""
    scored: int
    """The runs in which it was scored (K unless a run errored, was stale or is unrecorded)."""
    outcomes: list[RunOutcome]
    """Run 1 first."""


class Repeats(Record, kw_only=True, frozen=True):
    """A model recorded K > 1 times: each run's metrics, their spread, and each case's k of K."""

    runs: int
    """K, the number of runs."""
    per_run: list[RunMetrics]
    spread: dict[str, Spread]
    """Per metric (the seven rates, `latency_p50_ms`, `cost_per_100_cases_usd`), over the runs."""
    pass_hat_k: Rate
    """pass^K: the cases that passed in every one of the K runs, of those scored in all K."""
    pass_at_k: Rate
    """pass@K: the cases that passed in at least one run, of those scored in all K."""
    flaky: list[str]
    """Cases that passed in some scored run and failed in another, in suite order."""
    cases: list[CaseRuns]


class RoutedCase(Record, kw_only=True, frozen=True):
    """One case of run 1 through Nex."""

    id: str
    chosen: list[str]
    """The models that answered Nex's judged calls of the case, in step order, each once."""
    outcome: RunOutcome
    """Nex's outcome on the case."""
    chosen_outcomes: dict[str, RunOutcome | None]
    """Each chosen model's own outcome on the case (null: that model was not recorded)."""
    best: str | None
    """The best recorded candidate (highest overall, then name)."""
    best_outcome: RunOutcome | None


class RouteFigure(Record, kw_only=True, frozen=True):
    """One way of answering the compared cases: its overall, cost and latency."""

    name: str
    overall: Rate
    cost_per_100_cases_usd: float | None
    latency_p50_ms: float | None


class RoutingRun(Record, kw_only=True, frozen=True, omit_defaults=True):
    """One run of `auto` against its candidates (a candidate's run of the same number, else its last)."""

    run: int
    cases: int
    """The compared cases: scored for Nex and for every recorded candidate in this run, and answered
    by recorded candidates only."""
    unrecorded_cases: int = 0
    """Cases scored for Nex that it answered (in part) with a candidate not recorded: left out of
    every figure, so the run is partial. 0 (absent from the file, and in older files) when none."""
    nex: RouteFigure
    candidates: list[RouteFigure]
    direct: RouteFigure
    """Nex's choices answered directly: each case as its chosen model answered it (cases whose
    chosen model was not recorded are left out of this one figure)."""
    oracle: RouteFigure
    regret: float | None
    """Oracle's overall minus Nex's, in percentage points: what better choices would have gained."""


class Routing(Record, kw_only=True, frozen=True):
    candidates: list[str]
    """Every model Nex answered with (judged calls of scored cases, any run), by name."""
    recorded: list[str]
    """The candidates this run holds."""
    unrecorded: list[str]
    """The candidates it does not: record them (`lobrec record --model NAME`) to compare."""
    best: str | None
    cases: list[RoutedCase]
    runs: list[RoutingRun]


class ModelResult(Record, kw_only=True, frozen=True, weakref=True):
    model: str
    suite: SuiteRef
    recorded: list[Recording] = []
    """The manifests the cases were judged from, run 1 first (empty for an unreadable manifest and in
    files written before lobrec 0.3.0). Read from the cassettes, never from the clock, so a rescore
    of the same cassettes stays byte-identical."""
    temperature_ignored: bool
    counts: Counts
    has_scores: bool
    """False when no case was scored: every rate is then a dash."""
    tier: int | None = None
    """The model's rank among the models of the run, shared with the models the paired test cannot
    tell it apart from (`lobrec.core.metrics.tiers`); null without scores, and in older files."""
    metrics: Metrics
    groups: dict[str, Metrics]
    answered_by: dict[str, int]
    """Which model answered how many judged calls (for `auto`, Nex's choices)."""
    failures: dict[str, int] = {}
    """Failed steps of scored cases by failure kind (summed over runs), in precedence order."""
    cases: list[CaseResult]
    """Run 1's cases (the only run unless `repeats` says otherwise)."""
    repeats: Repeats | None = None
    """Only for a model with K > 1 runs; absent from the file otherwise (and from older files)."""
    routing: Routing | None = None
    """Only for `auto` when it answered with other models (`core.metrics.routing`); absent otherwise."""

    @property
    def run_count(self) -> int:
        """K, as the file says it (`lobrec.core.metrics.runs.runs_of` gives the runs themselves)."""
        return 1 if self.repeats is None else self.repeats.runs


class RateChange(Record, kw_only=True, frozen=True):
    """One metric under the old suite and the new one; `delta` is new - old (pp for rates)."""

    metric: str
    old: float | None
    new: float | None
    delta: float | None


class ModelSuiteChange(Record, kw_only=True, frozen=True):
    """One model re-judged under both suites: its metric deltas and the cases a check change flipped."""

    model: str
    deltas: list[RateChange]
    pass_to_fail: list[str]
    fail_to_pass: list[str]


class SuiteChanges(Record, kw_only=True, frozen=True):
    """`lobrec rescore --against OLD`: what changed from OLD to this run's suite, and what it did."""

    old: SuiteRef
    new: SuiteRef
    required_bump: str
    added: list[str]
    removed: list[str]
    request_changed: list[str]
    checks_changed: list[str]
    models: list[ModelSuiteChange]


class Resolution(Record, kw_only=True, frozen=True):
    """The smallest overall difference the paired test resolves on these cases (docs/metrics.md,
    "Resolution"): at significance `alpha`, with probability `power`."""

    alpha: float
    power: float
    cases: int
    """The paired cases the figure is for."""
    flip_rate: float
    """The share of cases (percent) assumed to flip either way regardless of any real difference:
    the run-to-run flips of repeated runs (for a `diff`, at least the pair's two-way disagreement)."""
    repeated: bool
    """The flip rate was measured on repeated runs; false: no repeats, flips unknown (a best case)."""
    min_difference: float | None
    """Percentage points, rounded up to 0.1; null when no difference can be resolved."""


class RunResult(Record, kw_only=True, frozen=True):
    results_format: int = RESULTS_FORMAT
    lobrec_version: str | None = None
    """The lobrec that judged (None in files written before 0.3.0)."""
    suite: SuiteRef
    models: list[ModelResult]
    suite_changes: SuiteChanges | None = None
    """Only from `rescore --against`; absent from older results files."""
    resolution: Resolution | None = None
    """The run's resolution; absent when no model has scores, and from older results files."""


_encoder = msgspec.json.Encoder(decimal_format="number")
_decoder = msgspec.json.Decoder(RunResult)

MAX_RESULTS_DEPTH = 200
"""How deeply a results file may nest: a results entry is a dozen levels, plus a mismatch's
expected or got value (a suite value nests at most `suite.MAX_DEPTH`). msgspec recurses once per
level, so a file nested 100,000 deep is refused by a scan of its text before it is decoded."""


def encode_results(run: RunResult) -> bytes:
    """The results file: indented JSON, stable key order, trailing newline; no `suite_changes` key
    unless there are some, and no `repeats` key on a model recorded once, so a plain run's file is
    what it was before those sections existed.

    Built a model at a time (each model's entry formatted alone and indented to its place), so the
    plain-Python copy of the run that the key rules need is one model's, never the whole run's: a
    thousand models' file is 190 MB, and a whole copy of it as dicts and lists was five times that.
    """
    data = msgspec.to_builtins(msgspec.structs.replace(run, models=[]), builtin_types=(Decimal,))
    for key in ("suite_changes", "resolution"):
        if data.get(key) is None:
            data.pop(key, None)
    head = msgspec.json.format(_encoder.encode(data), indent=2)
    marker = b'\n  "models": []'  # a top-level key: only those are indented by exactly two spaces
    at = head.index(marker) + len(marker) - 1
    if not run.models:
        return head + b"\n"
    chunks = [head[: at - 1], b"[\n"]
    for index, model in enumerate(run.models):
        entry = _model_entry(model)
        chunks.append(b"    " + entry.replace(b"\n", b"\n    "))  # JSON text holds no raw newline
        chunks.append(b",\n" if index < len(run.models) - 1 else b"\n  ]")
    chunks.append(head[at + 1 :])
    chunks.append(b"\n")
    return b"".join(chunks)


def _model_entry(model: ModelResult) -> bytes:
    """One model's entry of the results file, formatted as if alone (`encode_results`)."""
    data = msgspec.to_builtins(model, builtin_types=(Decimal,))  # a huge integer a model sent stays a number
    for key in ("repeats", "routing"):
        if data.get(key) is None:
            data.pop(key, None)
    return msgspec.json.format(_encoder.encode(data), indent=2)


def decode_results(data: bytes) -> RunResult:
    """A results file, strictly decoded; msgspec's ValidationError or DecodeError when it is not
    one (a file nested deeper than `MAX_RESULTS_DEPTH` is a ValidationError, never a RecursionError)."""
    deep = too_deep(data, MAX_RESULTS_DEPTH)
    if deep is not None:
        raise msgspec.ValidationError(f"nested more than {MAX_RESULTS_DEPTH} levels deep (byte {deep})")
    return _decoder.decode(data)

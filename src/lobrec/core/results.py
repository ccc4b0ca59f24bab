"""What judging produces: step verdicts, case results, per-model metrics and the results file.

These Structs are the results JSON (`lobrec record --json`, `lobrec rescore --json`). Field order is
the file's key order; nothing in them depends on the clock or the machine, so the same cassettes
give byte-identical files.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

RESULTS_FORMAT = 1

CaseStatus = Literal["scored", "errored", "stale", "unrecorded"]


class Record(msgspec.Struct, kw_only=True, frozen=True):
    """Base for result Structs: keyword-only and immutable."""


class Mismatch(Record, kw_only=True):
    """Why a step failed, in words a person can act on.

    `path` points into the model's reply (`calls[1].arguments.path`) or names the step part
    (`names`, `calls[0].arguments`).
    """

    path: str
    expected: Any
    got: Any
    reason: str


class CallRecord(Record, kw_only=True):
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


class StepVerdict(Record, kw_only=True):
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
    quirks: list[str] = []
    """Tolerances the step's reply leaned on (its calls' quirks, or "content filter")."""
    """For a passing call step: for each expected call, the index of the model's call matched to it."""


class ApiCall(Record, kw_only=True):
    """One HTTP attempt, from the runner's point of view (retries included)."""

    step: int
    attempt: int
    status: int | None
    """HTTP status, or None when the request did not complete."""
    error: str | None = None
    latency_ms: float
    cost_usd: float | None = None
    judged: bool = False
    """This attempt's answer was the one judged (or errored the case): the last attempt of a step."""
    answered_by: str | None = None
    dropped_params: list[str] = []


class CaseResult(Record, kw_only=True):
    id: str
    group: str
    status: CaseStatus
    reason: str | None = None
    """Why the case was errored, stale or unrecorded."""
    steps: list[StepVerdict] = []
    api_calls: list[ApiCall] = []

    @property
    def passed(self) -> bool:
        return self.status == "scored" and bool(self.steps) and all(step.passed for step in self.steps)


class Rate(Record, kw_only=True):
    """A share with its counts; `rate` and the interval are percentages, None when total is 0."""

    rate: float | None
    passed: int
    total: int
    ci95: tuple[float, float] | None


class Metrics(Record, kw_only=True):
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
    """The 200 answers without a price ("case-id step N attempt M"); any one hides the cost."""


class Counts(Record, kw_only=True):
    cases: int
    scored: int
    errored: int
    stale: int
    unrecorded: int


class SuiteRef(Record, kw_only=True, omit_defaults=True):
    name: str
    version: str
    sha256: str | None = None
    """The judging suite's content hash (`cassettes.suite_fingerprint`); only on the results file's
    top-level `suite`, absent elsewhere and from files written before lobrec 0.3.0."""
    source: str | None = None
    """Where the judging suite came from: "bundled" (the suite shipped with lobrec) or the `--suite`
    path as given; top-level only, like `sha256`."""


class Recording(Record, kw_only=True):
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


class Spread(Record, kw_only=True):
    """One metric over the runs that have a value for it (a rate with nothing to rate has none)."""

    runs: int
    """How many runs had a value; mean, min and max are null when none did."""
    mean: float | None
    min: float | None
    max: float | None
    sd: float | None
    """The sample standard deviation (n - 1): the spread a further run is expected to show; null with
    fewer than two values."""


class RunMetrics(Record, kw_only=True):
    """One run of a repeated model, judged on its own."""

    run: int
    """1..K; run 1 is the model folder itself, run n its `runs/<n>/` folder."""
    counts: Counts
    has_scores: bool
    temperature_ignored: bool
    metrics: Metrics
    cases: list[CaseResult] = []
    """This run's cases, for runs 2..K; empty for run 1, whose cases are the model's `cases`."""


class CaseRuns(Record, kw_only=True):
    """One case over the K runs."""

    id: str
    passes: int
    """k: the runs in which the case passed."""
    scored: int
    """The runs in which it was scored (K unless a run errored, was stale or is unrecorded)."""
    outcomes: list[RunOutcome]
    """Run 1 first."""


class Repeats(Record, kw_only=True):
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


class ModelResult(Record, kw_only=True):
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
    metrics: Metrics
    groups: dict[str, Metrics]
    answered_by: dict[str, int]
    """Which model answered how many judged calls (for `auto`, Nex's choices)."""
    cases: list[CaseResult]
    """Run 1's cases (the only run unless `repeats` says otherwise)."""
    repeats: Repeats | None = None
    """Only for a model with K > 1 runs; absent from the file otherwise (and from older files)."""

    @property
    def run_count(self) -> int:
        return 1 if self.repeats is None else self.repeats.runs


class RateChange(Record, kw_only=True):
    """One metric under the old suite and the new one; `delta` is new - old (pp for rates)."""

    metric: str
    old: float | None
    new: float | None
    delta: float | None


class ModelSuiteChange(Record, kw_only=True):
    """One model re-judged under both suites: its metric deltas and the cases a check change flipped."""

    model: str
    deltas: list[RateChange]
    pass_to_fail: list[str]
    fail_to_pass: list[str]


class SuiteChanges(Record, kw_only=True):
    """`lobrec rescore --against OLD`: what changed from OLD to this run's suite, and what it did."""

    old: SuiteRef
    new: SuiteRef
    required_bump: str
    added: list[str]
    removed: list[str]
    request_changed: list[str]
    checks_changed: list[str]
    models: list[ModelSuiteChange]


class RunResult(Record, kw_only=True):
    results_format: int = RESULTS_FORMAT
    lobrec_version: str | None = None
    """The lobrec that judged (None in files written before 0.3.0)."""
    suite: SuiteRef
    models: list[ModelResult]
    suite_changes: SuiteChanges | None = None
    """Only from `rescore --against`; absent from older results files."""


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(RunResult)


def encode_results(run: RunResult) -> bytes:
    """The results file: indented JSON, stable key order, trailing newline; no `suite_changes` key
    unless there are some, and no `repeats` key on a model recorded once, so a plain run's file is
    what it was before those sections existed."""
    data = msgspec.to_builtins(run)
    if data.get("suite_changes") is None:
        data.pop("suite_changes", None)
    for model in data["models"]:
        if model.get("repeats") is None:
            model.pop("repeats", None)
    return msgspec.json.format(_encoder.encode(data), indent=2) + b"\n"


def decode_results(data: bytes) -> RunResult:
    return _decoder.decode(data)

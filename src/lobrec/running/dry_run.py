"""`lobrec record --dry-run`: what a recording would send and cost, read from the folders as they
are; nothing is sent and nothing is written."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lobrec.cassette.layout import MANIFEST, model_dir_name
from lobrec.core.suite.format import Suite
from lobrec.core.words import counted
from lobrec.running.recording import RecordOptions, plan
from lobrec.running.replay import rescore_directories


@dataclass(frozen=True, kw_only=True)
class DryRun:
    """What `record --dry-run` says of one model: nothing is sent."""

    model: str
    runs: int
    cases: int
    requests_min: int
    """First steps only: a chain that fails at its first step sends one request."""
    requests_max: int
    """Every step of every chain (retries not counted)."""
    cost_per_case_usd: float | None
    """From the model's earlier recordings (their cost per 100 cases); None when there are none or
    an answer was unpriced."""

    @property
    def expected_cost_usd(self) -> float | None:
        return None if self.cost_per_case_usd is None else self.cost_per_case_usd * self.cases


async def dry_run(suite: Suite, options: RecordOptions) -> list[DryRun]:
    """What `record` would send, per model, from the folders as they are; nothing is written."""
    planned = plan(suite, options)
    lines = []
    for model in options.models:
        mine = [run for run in planned if run.model == model]
        cases = [case for run in mine for case in run.cases]
        lines.append(
            DryRun(
                model=model,
                runs=len({run.run for run in mine if run.cases}),
                cases=len(cases),
                requests_min=len(cases),
                requests_max=sum(len(case.steps) for case in cases),
                cost_per_case_usd=await _earlier_cost_per_case(suite, options, model),
            )
        )
    return lines


async def _earlier_cost_per_case(suite: Suite, options: RecordOptions, model: str) -> float | None:
    """The model's cost per case in its earlier recordings, when every answer was priced."""
    model_dir = options.cassettes / model_dir_name(model)
    if not (model_dir / MANIFEST).exists():
        return None
    earlier = (await rescore_directories(suite, [model_dir])).run.models[0].metrics
    return None if earlier.cost_per_100_cases_usd is None else earlier.cost_per_100_cases_usd / 100


def _span(low: int, high: int) -> str:
    return f"{low}" if low == high else f"{low}-{high}"


def _line(each: DryRun) -> str:
    requests = _span(each.requests_min, each.requests_max)
    cost = (
        "no earlier recording with every answer priced to estimate the cost from"
        if each.expected_cost_usd is None
        else f"expected cost ${each.expected_cost_usd:.4f} (from its earlier recording)"
    )
    runs = f" in {each.runs} runs" if each.runs > 1 else ""
    noun = "request" if requests == "1" else "requests"
    return f"{each.model}: {counted(each.cases, 'case')}{runs}, {requests} {noun}; {cost}"


async def dry_run_lines(suite: Suite, options: RecordOptions) -> list[str]:
    """`record --dry-run`'s report: one line per model, then the total."""
    plans = await dry_run(suite, options)
    total = _span(sum(each.requests_min for each in plans), sum(each.requests_max for each in plans))
    known = [each.expected_cost_usd for each in plans if each.expected_cost_usd is not None]
    noun = "request" if total == "1" else "requests"
    summary = f"dry run: {total} {noun} in all (first steps to every chain step; retries not counted)"
    if known and len(known) == len(plans):
        summary += f"; expected cost ${math.fsum(known):.4f}"
    return [*(_line(each) for each in plans), summary + "; nothing was sent"]

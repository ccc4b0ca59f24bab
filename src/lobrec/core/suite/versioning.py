"""The suite's versioning rule: every change between two suite files, classified by what it does
to scores and cassettes, and the version bump it needs (`suite diff`, `suite check --against`).
What a change did to the scores of recorded runs is `changes` (the results' `suite_changes`).

The methodology's versioning rule is mechanical, so the bump a change needs is computed, not
remembered: a case removed (or the suite renamed) needs a major version; a case added, a check
changed, or a request changed needs a minor one; a change to notes, reference answers, wrong answers
or alternates (never sent, never scored) needs a patch. A request change makes that case's cassettes
stale (replay leaves it out until it is recorded again); a check change needs only a rescore. Pure:
two Suites in, a SuiteDiff out.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from lobrec.core.suite.format import SEMVER, CallStep, Case, NoCallStep, Step, Suite, version_order

Kind = Literal["added", "removed", "request", "checks", "notes", "suite"]
Bump = Literal["none", "patch", "minor", "major"]

BUMP_ORDER: tuple[Bump, ...] = ("none", "patch", "minor", "major")
KIND_BUMP: dict[str, Bump] = {
    "added": "minor",
    "removed": "major",
    "request": "minor",
    "checks": "minor",
    "notes": "patch",
}


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """One change: a case id (or `suite`), its kind, and what changed, e.g. `steps[0].calls[0].checks`."""

    case: str
    kind: Kind
    what: str
    bump: Bump


class SuiteDiff(msgspec.Struct, frozen=True, kw_only=True):
    old_version: str
    new_version: str
    changes: list[Change]
    required: Bump
    """The smallest bump the methodology allows for these changes."""
    actual: Bump | Literal["backwards", "invalid"]
    """The bump from old_version to new_version."""

    @property
    def bump_ok(self) -> bool:
        return self.actual == self.required

    def cases(self, kind: Kind) -> list[str]:
        """The case ids with a change of this kind, in order, once each."""
        return list(dict.fromkeys(change.case for change in self.changes if change.kind == kind))


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value)


def version_bump(old: str, new: str) -> Bump | Literal["backwards", "invalid"]:
    """The bump from `old` to `new`: to the next major, minor or patch version, or none, else invalid."""
    if not SEMVER.match(old) or not SEMVER.match(new):
        return "invalid"
    a, b = version_order(old), version_order(new)
    if b == a:
        return "none"
    if b < a:
        return "backwards"
    bumps: dict[tuple[int, ...], Bump] = {
        (a[0] + 1, 0, 0): "major",
        (a[0], a[1] + 1, 0): "minor",
        (a[0], a[1], a[2] + 1): "patch",
    }
    return bumps.get(b, "invalid")  # a skipped version, or a bump that keeps lower parts, is invalid


def _step_request(step: Step) -> Any:
    """The part of a step that is sent: the scripted results fed back after it."""
    if isinstance(step, CallStep):
        return [call.result for call in step.calls]
    return None


def _step_checks(step: Step) -> Any:
    """The part of a step the judge scores against: its kind, the expected names and checks."""
    if isinstance(step, CallStep):
        return ["call", [(call.name, _plain(call.checks)) for call in step.calls]]
    return ["no_call"]


def _step_notes(step: Step) -> Any:
    """What is neither sent nor scored: reference answers, wrong answers and alternates."""
    if isinstance(step, CallStep):
        return [[call.answer for call in step.calls], _plain(step.wrong), _plain(step.alternates)]
    assert isinstance(step, NoCallStep)
    return step.answer


def _request_changes(old_suite: Suite, old: Case, new_suite: Suite, new: Case) -> list[tuple[Kind, str]]:
    """What the case sends that changed, outside its steps: messages, the tools offered, their schemas."""
    found: list[tuple[Kind, str]] = []
    if _plain(old.messages) != _plain(new.messages):
        found.append(("request", "messages"))
    if old.tools != new.tools:
        found.append(("request", "tools offered"))
    old_tools = {tool.name: _plain(tool) for tool in old_suite.offered_tools(old)}
    for tool in new_suite.offered_tools(new):
        if tool.name in old_tools and old_tools[tool.name] != _plain(tool):
            found.append(("request", f"tool {tool.name} (schema or description)"))
    return found


def _step_changes(where: str, old: Step, new: Step) -> list[tuple[Kind, str]]:
    found: list[tuple[Kind, str]] = []
    if _step_request(old) != _step_request(new):
        found.append(("request", f"{where} scripted results"))
    if _step_checks(old) != _step_checks(new):
        found.append(("checks", f"{where} expected calls or checks"))
    if _step_notes(old) != _step_notes(new):
        found.append(("notes", f"{where} answers, wrong answers or alternates"))
    return found


def _steps_changes(old: list[Step], new: list[Step]) -> list[tuple[Kind, str]]:
    found: list[tuple[Kind, str]] = []
    for index in range(max(len(old), len(new))):
        where = f"steps[{index}]"
        if index >= len(old) or index >= len(new):
            found.append(("checks", f"{where} {'added' if index >= len(old) else 'removed'}"))
        else:
            found.extend(_step_changes(where, old[index], new[index]))
    return found


def _case_changes(old_suite: Suite, old: Case, new_suite: Suite, new: Case) -> list[Change]:
    found = [*_request_changes(old_suite, old, new_suite, new), *_steps_changes(old.steps, new.steps)]
    if old.note != new.note:
        found.append(("notes", "note"))
    if old.group != new.group:
        found.append(("checks", f"group {old.group} -> {new.group}"))
    return [Change(case=new.id, kind=kind, what=what, bump=KIND_BUMP[kind]) for kind, what in found]


def _suite_changes(old: Suite, new: Suite) -> list[Change]:
    """Changes to the suite's own fields: its name, system prompt and declared counts."""
    changes: list[Change] = []
    if old.name != new.name:
        changes.append(
            Change(case="suite", kind="suite", what=f"name {old.name} -> {new.name}", bump="major")
        )
    if old.system_prompt != new.system_prompt:
        changes.append(Change(case="suite", kind="suite", what="system prompt", bump="minor"))
    if old.counts != new.counts:
        changes.append(Change(case="suite", kind="suite", what="declared counts", bump="patch"))
    return changes


def diff_suites(old: Suite, new: Suite) -> SuiteDiff:
    """Every change from `old` to `new`, in new's case order (removed cases last), and the bump required."""
    changes = _suite_changes(old, new)
    old_by_id = {case.id: case for case in old.cases}
    for case in new.cases:
        before = old_by_id.get(case.id)
        if before is None:
            changes.append(Change(case=case.id, kind="added", what="case added", bump="minor"))
        else:
            changes.extend(_case_changes(old, before, new, case))
    new_ids = {case.id for case in new.cases}
    changes.extend(
        Change(case=case.id, kind="removed", what="case removed", bump="major")
        for case in old.cases
        if case.id not in new_ids
    )
    required = max((change.bump for change in changes), key=BUMP_ORDER.index, default=BUMP_ORDER[0])
    return SuiteDiff(
        old_version=old.version,
        new_version=new.version,
        changes=changes,
        required=required,
        actual=version_bump(old.version, new.version),
    )


def next_version(old: str, bump: Bump) -> str:
    """The version `bump` makes of `old` (`old` itself for none)."""
    major, minor, patch = version_order(old)
    return {
        "none": old,
        "patch": f"{major}.{minor}.{patch + 1}",
        "minor": f"{major}.{minor + 1}.0",
        "major": f"{major + 1}.0.0",
    }[bump]


def bump_problem(diff: SuiteDiff) -> str | None:
    """One line saying why NEW's version is wrong for the changes, or None when it is right."""
    if diff.bump_ok:
        return None
    old, new = diff.old_version, diff.new_version
    actual = {
        "none": f"version {new} is the same as the old suite's",
        "backwards": f"version {new} is lower than {old}",
        "invalid": f"version {new} is not one major, minor or patch step from {old}",
    }.get(diff.actual, f"version {new} is a {diff.actual} bump from {old}")
    if diff.required == "none":
        return f"{actual}, but nothing changed: no bump is needed (keep {old})"
    target = f": make it {next_version(old, diff.required)}" if SEMVER.match(old) else ""
    return f"{actual}, but the changes need a {diff.required} bump ({_reason(diff)}){target}"


def _reason(diff: SuiteDiff) -> str:
    first = next(change for change in diff.changes if change.bump == diff.required)
    return f"{first.case}: {first.what}"

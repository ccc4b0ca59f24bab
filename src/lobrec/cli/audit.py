"""`lobrec audit CASSETTES_DIR`: the pre-merge check of contributed cassettes (see `lobrec.cassette.audit`).

Findings are the command's output, so they go to stdout, one line each, with control characters
spelled out (a file name can hold an escape sequence too). Exit status: 0 clean, 1 on any finding,
2 when the directory does not exist, is empty or is one model's own folder (one line, as
`rescore` says it). CI runs it over `cassettes/`.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from lobrec.cli._output import say

FINDINGS_EXIT = 1
"""Like a linter: 1 means "look at what was printed"."""


def audit_command(
    cassettes_dir: Path = typer.Argument(
        ..., metavar="DIR", help="The cassette folder to check (e.g. cassettes/)."
    ),
    suite_path: Path | None = typer.Option(
        None,
        "--suite",
        metavar="FILE",
        help="The suite the cassettes are for (default: the suite bundled with lobrec): "
        "a manifest of another major version is a finding.",
    ),
) -> None:
    """Scan cassettes for credentials and malformed files.

    Prints one line per finding (a key or token, a file that is not a well-formed cassette, a
    manifest of another major suite version) and exits 1 when there is any, 0 when there is none.
    """
    from lobrec.cassette.audit import audit
    from lobrec.running.gateway import KEY_ENV

    version = _suite_version(suite_path)
    findings = audit(cassettes_dir, secrets=(os.environ.get(KEY_ENV),), suite_version=version)
    for finding in findings:
        say(str(finding), output=True)
    if findings:
        say(f"{len(findings)} finding(s) in {cassettes_dir}")
        raise typer.Exit(FINDINGS_EXIT)
    say(f"{cassettes_dir}: no findings", output=True)


def _suite_version(path: Path | None) -> str:
    from lobrec.suite_file import read_suite

    return read_suite(path).version

"""`lobrec audit CASSETTES_DIR`: the pre-merge check of contributed cassettes (see `lobrec.audit`).

Findings are the command's output, so they go to stdout, one line each, with control characters
spelled out (a file name can hold an escape sequence too). Exit status: 0 clean, 1 on any finding,
2 when the directory does not exist. CI runs it over `cassettes/`.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from lobrec.cli._shared import fail

FINDINGS_EXIT = 1
"""Like a linter: 1 means "look at what was printed"."""


def audit_command(
    cassettes_dir: Path = typer.Argument(..., help="The cassette directory to check (e.g. cassettes/)."),
    suite_path: Path | None = typer.Option(
        None,
        "--suite",
        help="The suite the cassettes are for (default suite/suite.json when it exists): "
        "a manifest of another major version is a finding.",
    ),
) -> None:
    """Scan cassettes for credentials and for files that are not well-formed cassettes."""
    from lobrec.audit import audit
    from lobrec.errors import LobrecError
    from lobrec.gateway import KEY_ENV
    from lobrec.reports._format import printable

    try:
        version = _suite_version(suite_path)
        findings = audit(cassettes_dir, secrets=(os.environ.get(KEY_ENV),), suite_version=version)
    except LobrecError as exc:
        raise fail(str(exc)) from None
    for finding in findings:
        typer.echo(printable(str(finding)))
    if findings:
        typer.echo(f"lobrec: {len(findings)} finding(s) in {printable(str(cassettes_dir))}", err=True)
        raise typer.Exit(FINDINGS_EXIT)
    typer.echo(f"{printable(str(cassettes_dir))}: no findings")


def _suite_version(path: Path | None) -> str | None:
    from lobrec.suite_file import load_suite

    default = Path("suite/suite.json")
    if path is None and not default.is_file():
        return None
    return load_suite(path or default).version

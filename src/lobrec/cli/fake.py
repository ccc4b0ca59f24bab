"""`lobrec fake-gateway`: serve the fake Lobstack gateway until stopped.

`python -m lobrec.fakegateway` runs this same function with `typer.run`, so both ways of starting
the fake take the same options and print the same messages.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer

from lobrec.cli._command import Command
from lobrec.cli._output import say
from lobrec.errors import ConfigError

if TYPE_CHECKING:
    from typer import _click as click


class FakeGatewayCommand(Command):
    """`fake-gateway --help` ends with the models it serves, read from the fake's own list (imported
    only for the help, so `lobrec --help` stays fast) so the two cannot drift apart."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from lobrec.fakegateway import MODELS, RECORDED_PREFIX

        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(
                f"Models: {', '.join(MODELS)}; with --replies DIR, also {RECORDED_PREFIX}NAME."
            )


def _stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so the server closes its socket and the process exits 0."""

    def _handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _handler)


def fake_gateway_command(
    host: Annotated[
        str,
        typer.Option("--host", metavar="HOST", help="Address to listen on (loopback unless --allow-remote)."),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port", min=0, max=65535, metavar="PORT", help="Port to listen on; 0 picks a free one."
        ),
    ] = 0,
    latency_ms: Annotated[
        int,
        typer.Option("--latency-ms", min=0, metavar="MS", help="Milliseconds to wait before each answer."),
    ] = 0,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite",
            metavar="FILE",
            help="Suite file whose reference answers are served (default: bundled).",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option("--allow-remote", help="Allow a non-loopback --host (the fake has no authentication)."),
    ] = False,
    replies: Annotated[
        str | None,
        typer.Option(
            "--replies",
            metavar="DIR",
            help="Folder of recorded replies: model recorded/NAME gets NAME.json verbatim.",
        ),
    ] = None,
    rate_limit: Annotated[
        float | None,
        typer.Option("--rate-limit", metavar="R", help="Chat requests per second; 429 beyond it."),
    ] = None,
    rate_limit_burst: Annotated[
        float | None,
        typer.Option("--rate-limit-burst", metavar="N", help="Token bucket size (default: max(1, R))."),
    ] = None,
    rate_limit_per_model: Annotated[
        bool, typer.Option("--rate-limit-per-model", help="One bucket per model instead of one for all.")
    ] = False,
    require_key: Annotated[
        str | None,
        typer.Option(
            "--require-key",
            metavar="KEY",
            help="Answer 401 unless a request sends `Authorization: Bearer KEY`.",
        ),
    ] = None,
) -> None:
    """Serve scripted models for tests and demos.

    The models answer on an OpenAI-compatible chat-completions API, from the suite's reference
    answers. Prints `fake gateway listening on http://HOST:PORT/v1` once ready; stop it with Ctrl-C
    or SIGTERM.
    """
    from lobrec.fakegateway import FakeGateway, is_loopback, load_replies
    from lobrec.suite_file import read_suite

    if not allow_remote and not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host}, which is not a loopback address; "
            "pass --allow-remote to serve other machines"
        )
    served = load_replies(replies) if replies is not None else {}
    gateway = FakeGateway(
        read_suite(suite),
        host,
        port,
        latency_ms,
        allow_remote=allow_remote,
        replies=served,
        rate_limit=rate_limit,
        rate_limit_burst=rate_limit_burst,
        rate_limit_per_model=rate_limit_per_model,
        require_key=require_key,
    )
    gateway.bind()
    say(f"fake gateway listening on {gateway.url}", output=True)
    _stop_on_sigterm()
    with contextlib.suppress(KeyboardInterrupt):
        gateway.serve_forever()


def main() -> None:
    """`python -m lobrec.fakegateway`: this command on its own, with the same help as `lobrec`'s."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    app.command(cls=FakeGatewayCommand)(fake_gateway_command)
    app()

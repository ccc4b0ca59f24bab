"""`lobrec fake-gateway`: serve the fake Lobstack gateway until stopped.

`python -m lobrec.fakegateway` runs this same function with `typer.run`, so both ways of starting
the fake take the same options and print the same messages.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType

import typer

from lobrec.cli._shared import Exit, say
from lobrec.errors import ConfigError, LobrecError


def _stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so the server closes its socket and the process exits 0."""

    def _handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _handler)


def fake_gateway_command(
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on (loopback unless --allow-remote)."
    ),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port to listen on; 0 picks a free one."),
    latency_ms: int = typer.Option(0, "--latency-ms", min=0, help="Milliseconds to wait before each answer."),
    suite: str | None = typer.Option(None, "--suite", help="Suite file whose reference answers are served."),
    allow_remote: bool = typer.Option(
        False, "--allow-remote", help="Allow a non-loopback --host (the fake has no authentication)."
    ),
    replies: str | None = typer.Option(
        None, "--replies", help="Folder of recorded replies: model recorded/NAME gets NAME.json verbatim."
    ),
) -> None:
    """Serve scripted models on an OpenAI-compatible chat-completions API, for tests and demos.

    Prints `fake gateway listening on http://HOST:PORT/v1` once ready; stop it with Ctrl-C or SIGTERM.
    """
    from lobrec.fakegateway import FakeGateway, is_loopback, load_replies
    from lobrec.suite_file import load_suite

    try:
        if not allow_remote and not is_loopback(host):
            raise ConfigError(
                f"refusing to listen on {host}, which is not a loopback address; "
                "pass --allow-remote to serve other machines"
            )
        served = load_replies(replies) if replies is not None else {}
        gateway = FakeGateway(
            load_suite(suite), host, port, latency_ms, allow_remote=allow_remote, replies=served
        )
    except LobrecError as exc:
        typer.echo(f"{type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(Exit.BAD_INPUT) from None
    try:
        gateway.bind()
    except OSError as exc:
        typer.echo(f"ConfigError: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(Exit.BAD_INPUT) from None
    say(f"fake gateway listening on {gateway.url}", output=True)
    _stop_on_sigterm()
    with contextlib.suppress(KeyboardInterrupt):
        gateway.serve_forever()

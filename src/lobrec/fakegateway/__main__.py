"""`python -m lobrec.fakegateway`: the `lobrec fake-gateway` command, without the rest of the CLI.

The command is imported inside `main` so that importing the fake gateway never loads the CLI.
"""

from __future__ import annotations


def main() -> None:
    """Run `lobrec fake-gateway` with this process's arguments."""
    import typer

    from lobrec.cli.fake import fake_gateway_command

    typer.run(fake_gateway_command)


if __name__ == "__main__":
    main()

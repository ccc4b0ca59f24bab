"""`python -m lobrec.fakegateway`: the `lobrec fake-gateway` command, without the rest of the CLI.

The command is imported inside `main` so that importing the fake gateway never loads the CLI.
"""

from __future__ import annotations


def main() -> None:
    """Run `lobrec fake-gateway` with this process's arguments (and its help, models listed)."""
    from lobrec.cli.fake import main as fake_gateway_main

    fake_gateway_main()


if __name__ == "__main__":
    main()

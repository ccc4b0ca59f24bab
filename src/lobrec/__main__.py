"""`python -m lobrec`: the same command as the `lobrec` console script."""

from lobrec.cli import main

main()

"""Helpers every test folder shares: the `lobrec` command run in-process or as a process."""

"""The built-in defaults of the options `record` and `rescore` share, in one place.

Plain constants with no imports, so the CLI can print them in its help without loading anything:
`lobrec.settings` merges them with the configuration file and the command line, the runner and the
recorder take theirs from here.
"""

DEFAULT_CONCURRENCY = 8
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_RETRY_DELAYS = "1,2,4"
"""The methodology's retry delays as `--retry-delays` spells them (`runner.DEFAULT_RETRY_DELAYS_S`)."""
DEFAULT_CASSETTES = "cassettes"
DEFAULT_MAX_ERRORED = "0"
"""No errored case is allowed unless `--max-errored` says how many (`core.gates.NO_ERRORS`)."""

"""lobrec's version, written once: a leaf every module reads it from (`import lobrec` re-exports it;
pyproject.toml's hatch dynamic version reads this file)."""

__version__ = "0.3.0"

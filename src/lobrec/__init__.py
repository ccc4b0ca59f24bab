"""lobrec: record-and-replay evaluation of tool calling through the Lobstack gateway."""

__version__ = "0.1.0"

"""lobrec's JSON Schema subset: the public face of `lobrec.core.suite.jsonschema` (see docs/schema.md)."""

from __future__ import annotations

from lobrec.core.suite.jsonschema import check_schema, validate
from lobrec.errors import SchemaError

__all__ = ["SchemaError", "check_schema", "validate"]

"""The suite room: the suite's Structs (`format`), the argument checks, the JSON Schema subset,
ECMA-262 patterns run in linear time, the build and run rules a suite obeys, and its versioning."""

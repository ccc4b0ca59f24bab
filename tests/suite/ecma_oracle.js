// A JavaScript engine as the oracle for lobrec's ECMA-262 patterns (tests/suite/test_ecma_oracle.py).
// One request per line on stdin: {"pattern": "...", "flags": "u" | "iu", "texts": ["...", ...]};
// one answer per line on stdout: {"error": "SyntaxError message"} or {"matches": [true, false, ...]}.
"use strict";
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  let answer;
  try {
    const regex = new RegExp(request.pattern, request.flags);
    answer = { matches: request.texts.map((text) => regex.test(text)) };
  } catch (error) {
    answer = { error: String(error.message) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});

"""The judge room: a chat completion read from the wire, exact JSON values, the one-to-one
matching of calls, a step's verdict (`step.judge_step`) and its failure kind."""

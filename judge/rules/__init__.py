"""Stage 2: deterministic rules. The order they run in lives in judge.rules.registry."""

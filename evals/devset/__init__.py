"""The builders of evals/dev.jsonl; corpus/ holds the projects they seed repositories with."""

#!/bin/sh
# judge drive on the shipped example: attempt 1 is rejected (undeclared_file), the fix_regression is accepted.
# Run from the repository's top: sh examples/drive/demo.sh
set -e
transcript="${TMPDIR:-/tmp}/judge-drive-demo.jsonl"
rm -f "$transcript"
judge drive --step examples/step.json --max-attempts 3 --transcript "$transcript" -- \
    python3 examples/drive/scripted_agent.py
echo "transcript: $transcript ($(wc -l < "$transcript") lines, one per attempt)"

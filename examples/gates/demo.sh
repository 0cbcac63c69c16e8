#!/bin/sh
# The gates example of docs/gates.md, end to end: a repository, an executor's work, judge's verdicts.
# Usage: sh examples/gates/demo.sh   (needs git, python3 and judge on PATH; works in a temporary directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
repo="$work/repo"
mkdir "$repo" && cd "$repo"
git init -q && git config user.email demo@example.invalid && git config user.name demo
printf 'def farewell(name):\n    return f"Bye, {name}!"\n' > greeting.py
git add greeting.py && git commit -qm base
base=$(git rev-parse HEAD)

# The executor's work: the function, its test, and the diff it reports.
printf '\n\ndef greet(name):\n    return f"Hello, {name}!"\n' >> greeting.py
cat > test_greeting.py <<'PY'
import unittest

from greeting import greet


class GreetTest(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet("Ada"), "Hello, Ada!")
PY
git add -N test_greeting.py
python3 - "$work/result.json" <<'PY'
import json, subprocess, sys
patch = subprocess.run(["git", "diff"], capture_output=True, text=True, check=True).stdout
result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["greeting.py", "test_greeting.py"],
          "filesTouched": ["greeting.py", "test_greeting.py"], "summary": "Added greet(name) and its unit test."}
json.dump(result, open(sys.argv[1], "w"))
PY
cd "$work"

echo "1. the evidence as submitted: judge runs the allowlisted tests itself (exit 0)"
judge validate --step "$here/step.json" --result result.json --evidence-doc "$here/evidence.json" \
  --repo repo --base "$base" --artifacts "$work/judge" --approvals "$work/approvals.jsonl"

echo "2. a hand-waved evidence document is rejected with its missing fields (exit 1)"
printf '{"diff_summary": "Fixed everything.", "tests_passed": true}' > handwave.json
judge validate --step "$here/step.json" --result result.json --evidence-doc handwave.json \
  --repo repo --base "$base" --artifacts "$work/judge" --approvals "$work/approvals.jsonl" || true

echo "3. with a human gate the step pauses until someone approves the work (exit 1, then 0)"
python3 - "$here/step.json" human-step.json <<'PY'
import json, sys
step = json.load(open(sys.argv[1]))
step["gates"].append({"type": "human_approval", "description": "a maintainer reviews the change"})
json.dump(step, open(sys.argv[2], "w"))
PY
reason=$(judge validate --step human-step.json --result result.json --evidence-doc "$here/evidence.json" \
  --repo repo --base "$base" --artifacts "$work/judge" --approvals "$work/approvals.jsonl" || true)
echo "$reason"
work_hash=$(printf '%s' "$reason" | sed -n 's/.*--work \([0-9a-f]\{64\}\).*/\1/p')
judge approve add-greeting --by "Ada Lovelace" --work "$work_hash" --approvals "$work/approvals.jsonl" \
  --evidence-key "$work/judge/evidence.key" > /dev/null
judge validate --step human-step.json --result result.json --evidence-doc "$here/evidence.json" \
  --repo repo --base "$base" --artifacts "$work/judge" --approvals "$work/approvals.jsonl"
echo "4. the Execution Evidence table of the runs judge recorded"
judge report "$work/judge/artifacts"

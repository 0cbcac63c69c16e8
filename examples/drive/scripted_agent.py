"""A scripted executor for `judge drive`: it hides a file on its first attempt and fixes that after the feedback.

It reads the driver's request on stdin and writes its result JSON on stdout, as any executor does;
a real one would run an agent here. Its log goes to stderr (the driver keeps the end of it).
"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
request = json.load(sys.stdin)
print(f"attempt {request['attempt']} ({request['mode']}), feedback: {request['feedback']}", file=sys.stderr)
# attempt 1 changes a vendored file without declaring it; after feedback it reports only the declared work
shipped = "result-undeclared.json" if request["feedback"] is None else "result-valid.json"
result = json.loads((HERE / shipped).read_text(encoding="utf-8"))
result["mode"] = request["mode"]
print(json.dumps(result))

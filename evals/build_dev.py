#!/usr/bin/env python3
"""Generate evals/dev.jsonl, the development eval set for `judge`.

Every patch in the set is a real diff: the script builds small but realistic
projects (Python, TypeScript/JavaScript, Go, Rust, Java, C, shell, YAML, JSON,
Markdown) in throwaway git repositories, makes the change a step describes and
records what `git diff` (or GNU `diff -u` for the plain-diff cases) prints.
Invalid cases take such a real result and introduce exactly one defect.

The cases are made by the per-project builders in evals/devset/ (see its
__init__); this script runs them in a fixed order, re-checks every label and
writes the set.

Deterministic: fixed git identity and dates, no user/system git config, fixed
seeds, sorted keys. Running it twice gives byte-identical output (for a given
git / diffutils version).

Usage:  python evals/build_dev.py [--out PATH] [--quiet]
Stdlib only; needs the `git` and `diff` binaries.
"""
from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "dev.jsonl"

# Run as a script, Python already puts evals/ first on sys.path; loaded any other way
# (runpy, a test importing it by path) devset/ must still be found next to this file.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from devset import c, go, java, javascript, ops, python, rust, typescript  # noqa: E402
from devset.cases import CaseSet  # noqa: E402
from devset.changes import ChangeMaker  # noqa: E402
from devset.corpus import PROJECTS  # noqa: E402
from devset.labelcheck import ALL_RULES, CHEAT_RULES, self_check  # noqa: E402

# The builders in the order they run. The order is part of the output: a step's id
# is numbered from the count of cases added before it (devset.cases.CaseSet).
BUILDERS = (python.build, typescript.build, go.build, rust.build, java.build,
            c.build, ops.build, javascript.build)


def build_cases() -> list[dict]:
    """Every case, sorted by id; the repositories live only as long as this call."""
    cases = CaseSet()
    with tempfile.TemporaryDirectory(prefix="judge-evals-") as tmp:
        make = ChangeMaker(Path(tmp), PROJECTS)
        for build in BUILDERS:
            build(make, cases)
    return cases.by_id()


def write_jsonl(cases: list[dict], out: Path) -> None:
    """One JSON object per line, keys sorted, UTF-8 as is, \\n line endings."""
    lines = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in cases]
    for line in lines:
        json.loads(line)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def print_table(cases: list[dict], counts: collections.Counter, n_valid: int, out: Path) -> None:
    """The Markdown table of evals/README.md: cases per expected rule, in rule order."""
    print(f"wrote {len(cases)} cases to {out}")
    print(f"| expected | cases |\n|---|---|\n| valid | {n_valid} |")
    for rule in ALL_RULES:
        print(f"| {rule} | {counts.get(rule, 0)} |")
    print(f"| **total** | **{len(cases)}** |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for tool in ("git", "diff"):
        if shutil.which(tool) is None:
            print(f"build_dev.py needs `{tool}` on PATH", file=sys.stderr)
            return 2
    cases = build_cases()
    self_check(cases)
    write_jsonl(cases, args.out)

    counts = collections.Counter(c["expected"].get("rule", "valid") for c in cases)
    n_valid = counts.pop("valid", 0)
    if not args.quiet:
        print_table(cases, counts, n_valid, args.out)
    # The minimum counts the set promises (evals/README.md), every rule covered.
    assert set(counts) <= set(ALL_RULES), set(counts) - set(ALL_RULES)
    assert all(counts.get(r, 0) >= 4 for r in ALL_RULES if r not in CHEAT_RULES), counts
    assert n_valid >= 65 and len(cases) >= 160, (n_valid, len(cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

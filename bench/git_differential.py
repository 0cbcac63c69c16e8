"""judge's patch parser against `git apply`, at scale: seeded mutations of real diffs, disagreements by family.

    python bench/git_differential.py [--cases 40000] [--seed 0] [--workers 2] [--examples 3]

Each case is an honest diff (tests/fixtures/diffs/ and a few written in tests/helpers/patch_differential.py)
mutated once or twice (truncated at any byte, a line deleted, duplicated or swapped, a header char
flipped, +/- lines in the header block, counts changed, binary data corrupted, mode garbage,
contradicting kinds, rename or ---/+++ lines dropped, one side renamed, ...). git reads it with
`git apply --numstat -z -` (a mail through `git mailinfo` first) in a sterile environment, judge with
parse_patch. The table counts, per family, the cases where git refuses and judge accepts (the bug
this hunts: must be 0), where judge refuses and git accepts (judge stricter, by design: the reasons
are tallied), and where both accept but read other files or line counts (must be 0). Exit code 1
when either of the two must-be-0 columns is not.

The generator lives in tests/helpers/patch_differential.py, shared with the test that runs a few hundred of the
same cases on every CI run; this script imports it from there.

Measured on the parser branch of issue 11 (a5b446c), `--cases 40000 --seed 0`: 34/34 seeds accepted by
both; git refuses and judge accepts 0; judge refuses and git accepts 5,510 (no @@ hunks 1,395, unidiff's
"Target without source" 1,086, stray lines after a complete hunk 797, two names without a rename 738...);
read differently 0. The same cases on main (45fb261): 6,470 accepted although git refuses them, and 1,824
read as other files or counts than git reads.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(_ROOT), str(_ROOT / "tests")]  # this checkout's judge, not an installed one

from helpers.patch_differential import Case, compare, mutated_cases, seeds  # noqa: E402

COLUMNS = ("agree", "git_refuses_judge_accepts", "judge_refuses_git_accepts", "read_differently")


def _judged(case: Case) -> tuple[str, str, str, str, str]:
    result = compare(case)
    reason = (result.judge_error or "").split(" (patch line")[0]
    return case.family.split("+")[0], result.kind, reason, result.git.message, case.text


def _reason_kind(reason: str) -> str:
    """The judge message without its specifics, to tally why judge was stricter."""
    for marker in ("has more lines than its header counts", "no @@ hunks", "instead of a hunk header",
                   "has no file header", "fewer lines than its @@ header", "does not start with",
                   "names two different files", "the --- line names", "git apply does not read", "is outside every hunk",
                   "not a valid hunk header", "Target without source", "more lines than its @@ header"):
        if marker in reason:
            return marker
    return reason[:70]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--examples", type=int, default=3, help="cases to print for each must-be-0 disagreement")
    args = parser.parse_args()

    started = time.monotonic()
    honest = [compare(Case("seed", name, text)).kind for name, text in seeds().items()]
    cases = list(mutated_cases(args.cases, args.seed))
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    stricter: collections.Counter = collections.Counter()
    bad: list[tuple[str, str, str, str]] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for family, kind, reason, git_message, text in pool.map(_judged, cases, chunksize=64):
            table[family][kind] += 1
            if kind == "judge_refuses_git_accepts":
                stricter[_reason_kind(reason)] += 1
            elif kind in ("git_refuses_judge_accepts", "read_differently"):
                bad.append((kind, family, git_message, text))

    print(f"{len(cases)} mutated diffs (seed {args.seed}) from {len(honest)} honest seeds; "
          f"seeds accepted by both: {honest.count('agree')}/{len(honest)}; {time.monotonic() - started:.0f} s")
    print(f"{'family':<18} {'n':>6} {'agree':>7} {'git refuses, judge accepts':>27} {'judge refuses, git accepts':>27} "
          f"{'read differently':>17}")
    totals: collections.Counter = collections.Counter()
    for family in sorted(table):
        row = table[family]
        totals.update(row)
        print(f"{family:<18} {sum(row.values()):>6} " + " ".join(f"{row[c]:>{w}}" for c, w in zip(COLUMNS, (7, 27, 27, 17))))
    print(f"{'total':<18} {sum(totals.values()):>6} " + " ".join(f"{totals[c]:>{w}}" for c, w in zip(COLUMNS, (7, 27, 27, 17))))
    print("\njudge stricter than git, by judge's reason:")
    for reason, count in stricter.most_common():
        print(f"  {count:>6}  {reason}")
    for kind in ("git_refuses_judge_accepts", "read_differently"):
        shown = [b for b in bad if b[0] == kind][: args.examples]
        for _, family, git_message, text in shown:
            print(f"\n{kind} ({family}); git: {git_message!r}\n{text[:800]!r}")
    return 1 if bad or honest.count("agree") != len(honest) else 0


if __name__ == "__main__":
    sys.exit(main())

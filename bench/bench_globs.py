"""Benchmark of glob matching on long, hostile paths: judge's matcher against pathspec's regexes.

    python bench/bench_globs.py [--sizes 24000,240000,2400000] [--pathspec-sizes 6000,12000,24000]

An executor controls the paths a step writes; a step's allowedFiles/excludedPaths are ordinary globs.
For each glob and each shape of path (built to make a backtracking matcher retry: many `tests/`
segments that never end in `.py`, one huge segment, many `*`-worthy names), the time of one
``matches_any`` call at each size, and the ratio between consecutive sizes: about 10 when sizes grow
tenfold means linear, about 100 quadratic. pathspec (judge's matcher before issue 11) runs only at the
small --pathspec-sizes (each call in a child process, stopped after --pathspec-timeout): at 240 KB a call
takes minutes.

Then ``judge.validate`` end to end on a patch that adds a file with a 2.4 MB path, under a step whose
allowedFiles and excludedPaths are those globs: the verdict must be unsafe_path.

Targets are printed next to the figures, never asserted (the exit code is 1 only when a verdict or a
match result is not the expected one). Standard library, pathspec and judge only.

Measured on the paths branch of issue 11 (2 shared cores, Python 3.11):

    python bench/bench_globs.py
        judge, 4 globs x 5 shapes: the slowest call at 2.4 MB takes 0.08 s (target < 1 s); each tenfold
        size step costs about x10 (x8-x17: linear)
        pathspec at 6 / 12 / 24 KB: **/tests/**/*.py on tests/...x.pyc 0.06 / 0.18 / 0.64 s, src/**/test/**/*.ts
        0.04 / 0.29 / 0.82 s (x3-x4 per doubling: quadratic); docs/*a*b*c*d*.md on 6 KB of `abc` > 20 s
    python bench/bench_globs.py --pathspec-sizes 6000,24000,240000 --pathspec-timeout 120
        pathspec at 240 KB: **/tests/**/*.py and src/**/test/**/*.ts > 120 s; **/*test*/**/*_spec*.rb 75-107 s
    judge.validate with a 2.4 MB path: unsafe_path in 1.6 s, all of it other rules' linear work on the
    path (no glob runs on it); on main before issue 11, 240 KB took 181 s (the globs) and was not unsafe_path
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import judge  # noqa: E402
from judge.patch.globs import matches_any  # noqa: E402

TARGET_SECONDS_AT_2_4_MB = 1.0

GLOBS = ("**/tests/**/*.py", "src/**/test/**/*.ts", "**/*test*/**/*_spec*.rb", "docs/*a*b*c*d*.md")

# name -> (path of about n characters, does each glob in GLOBS match it?)
SHAPES: dict[str, tuple[Callable[[int], str], tuple[bool, ...]]] = {
    "tests/ repeated, ends .pyc": (lambda n: "tests/" * (n // 6) + "x.pyc", (False, False, False, False)),
    "src/test/ repeated, ends .js": (lambda n: "src/" + "test/" * (n // 5) + "x.js", (False, False, False, False)),
    "one huge segment": (lambda n: "t" * n + ".py", (False, False, False, False)),
    "tests/ repeated, ends .py": (lambda n: "tests/" * (n // 6) + "x.py", (True, False, False, False)),
    "docs/ one name of abc": (lambda n: "docs/" + "abc" * (n // 3) + ".md", (False, False, False, False)),
}


def _pathspec_match(path: str, patterns: tuple[str, ...]) -> bool:
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", patterns).match_file(path)


def _pathspec_table(sizes: list[int], timeout: float) -> None:
    """pathspec's times, each call in a child process stopped after ``timeout`` s (some are polynomial of degree 4)."""
    print(f"\npathspec (judge's matcher before issue 11): seconds per call (ratio to the size before)")
    print(f"  {'glob':26} {'path shape':30} " + " ".join(f"{size:>17,}" for size in sizes))
    for glob in GLOBS:
        for shape in SHAPES:
            cells, before, stopped = [], None, False
            for size in sizes:
                if stopped:
                    cells.append(f"{'(skipped)':>17}")
                    continue
                try:
                    out = subprocess.run([sys.executable, __file__, "--pathspec-call", shape, str(size), glob],
                                         capture_output=True, text=True, timeout=timeout, check=True).stdout
                except subprocess.TimeoutExpired:
                    cells.append(f"{'> ' + str(timeout) + ' s':>17}")
                    stopped = True
                    continue
                seconds = float(out)
                ratio = f"(x{seconds / before:5.1f})" if before else " " * 8
                cells.append(f"{seconds:9.4f}{ratio}")
                before = max(seconds, 1e-7)
            print(f"  {glob:26} {shape:30} " + " ".join(cells))


def _time(match: Callable[[str, tuple[str, ...]], bool], path: str, glob: str, expected: bool, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        got = match(path, (glob,))
        times.append(time.perf_counter() - started)
        if got is not expected:
            raise SystemExit(f"bench_globs: {glob!r} on a {len(path):,}-character path gave {got}, expected {expected}")
    return statistics.median(times)


def _table(name: str, match: Callable[[str, tuple[str, ...]], bool], sizes: list[int], repeat: int) -> float:
    print(f"\n{name}: seconds per call (ratio to the size before)")
    print(f"  {'glob':26} {'path shape':30} " + " ".join(f"{size:>17,}" for size in sizes))
    worst = 0.0
    for k, glob in enumerate(GLOBS):
        for shape, (build, expected) in SHAPES.items():
            cells, before = [], None
            for size in sizes:
                seconds = _time(match, build(size), glob, expected[k], repeat)
                ratio = f"(x{seconds / before:5.1f})" if before else " " * 8
                cells.append(f"{seconds:9.4f}{ratio}")
                before = max(seconds, 1e-7)
                worst = max(worst, seconds) if size == sizes[-1] else worst
            print(f"  {glob:26} {shape:30} " + " ".join(cells))
    return worst


def _end_to_end(size: int) -> None:
    path = "tests/" * (size // 6) + "x.pyc"
    patch = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    step = {"id": "s", "description": "Add a test", "allowedFiles": list(GLOBS), "excludedPaths": list(GLOBS)}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": [path], "filesTouched": [path]}
    started = time.perf_counter()
    verdict = judge.validate(step, result)
    seconds = time.perf_counter() - started
    rule = verdict.findings[0].rule if verdict.findings else None
    print(f"\njudge.validate, a patch adding one file with a {len(path):,}-character path: {rule} in {seconds:.3f} s")
    if verdict.valid or rule != "unsafe_path":
        raise SystemExit(f"bench_globs: expected unsafe_path, got valid={verdict.valid} rule={rule}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="24000,240000,2400000", help="path lengths for judge's matcher")
    parser.add_argument("--pathspec-sizes", default="6000,12000,24000", help="path lengths for pathspec ('' to skip)")
    parser.add_argument("--pathspec-timeout", type=float, default=20.0, help="seconds before a pathspec call is stopped")
    parser.add_argument("--repeat", type=int, default=3, help="calls per cell (the median is shown)")
    parser.add_argument("--pathspec-call", nargs=3, metavar=("SHAPE", "SIZE", "GLOB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pathspec_call:  # one timed pathspec call, in the child process _pathspec_table starts
        shape, size, glob = args.pathspec_call
        import pathspec  # noqa: F401  (imported before the clock starts)
        print(_time(_pathspec_match, SHAPES[shape][0](int(size)), glob, SHAPES[shape][1][GLOBS.index(glob)], 1))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    worst = _table("judge.patch.globs.matches_any", matches_any, sizes, args.repeat)
    print(f"  slowest call at {sizes[-1]:,} characters: {worst:.4f} s (target < {TARGET_SECONDS_AT_2_4_MB} s at 2.4 MB)")
    if args.pathspec_sizes:
        _pathspec_table([int(s) for s in args.pathspec_sizes.split(",")], args.pathspec_timeout)
    _end_to_end(sizes[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())

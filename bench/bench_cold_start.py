"""CLI cold start: a deterministic reject and `judge --help`, next to a bare interpreter in the same run.

    python bench/bench_cold_start.py [--runs 20] [--venv DIR | --here] [--against DIR] [--importtime] [--json FILE]

By default judge is installed the way a user gets it — `pip install .`, not editable (an editable install adds a
path-finder hook to every import) — into a temporary venv, and each command runs from there:

- bare:   python -c pass                     (the interpreter's own start: site, encodings)
- help:   judge --help                       (target 0.04 s)
- reject: judge validate --step examples/step.json --result examples/result-undeclared.json
          (undeclared_file, exit 1; target 0.15 s)

``--venv DIR`` reuses a venv judge is already installed in (non-editable: reinstall after a change with
``DIR/bin/pip install -q --force-reinstall --no-deps .``); ``--here`` times the current interpreter's judge
(an editable install: the figures are then a little high, say so when quoting them). The runs are interleaved
(bare, help, reject, bare, ...) so that load from other jobs falls on all three alike; the median and the minimum
are printed, absolute and minus the bare interpreter, and the median CPU time (user + system), which other jobs
on the machine disturb less than wall time. ``--against DIR`` times the help and reject of another venv's judge
(a baseline) in the same interleaved runs: a before/after under the same load. ``--importtime`` adds the slowest
imports of one reject (``python -X importtime``, self time, the lowest of 3 runs). Figures are printed, never
asserted: the exit code is 0 unless a command does not give the exit code it should (then 2). Standard library
only.

Figures (the 2-core development machine, CPython 3.11, 20 runs, medians, wall (CPU)). Before the cold-start work,
at load average 3-5 (bare 0.013 s): reject 0.283 s (0.270), --help 0.058 s; after its first part, 0.219 s (0.206)
and 0.038 s. That reject still loaded pydantic (~90 ms of it: pydantic, annotated_types, importlib.metadata for its
plugin loader) and built ~20 models. Now a plain step, result and configuration are read without pydantic
(judge.contract.plain, judge.config_plain) and `judge validate` prints the pipeline's Judgement, building the
pydantic Verdict only for --explain. Three consecutive runs ``--against`` a venv of the commit before that (load
average 2.3-2.6 from other jobs):

    bare      reject now        reject before     --help now   --help before
    0.011 s   0.084 s (0.082)   0.174 s (0.173)   0.032 s      0.032 s
    0.014 s   0.097 s (0.095)   0.216 s (0.215)   0.036 s      0.036 s
    0.013 s   0.109 s (0.108)   0.218 s (0.217)   0.042 s      0.042 s

(--help loads the same 96 modules as before.) What is left of a reject, on this machine: the dataclasses module (it
imports inspect, ast, dis: ~10 ms of CPU) and the ~24 dataclasses a run defines (~10 ms); the patterns the rules
compile (~10 ms); argparse, re, json, typing (~15 ms); judge's own modules.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"help": 0.04, "reject": 0.15}


def _install(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], check=True)


def _commands(python: str, judge: list[str]) -> dict[str, tuple[list[str], int]]:
    examples = ROOT / "examples"
    reject = [*judge, "validate", "--step", str(examples / "step.json"),
              "--result", str(examples / "result-undeclared.json")]
    return {"bare": ([python, "-c", "pass"], 0), "help": ([*judge, "--help"], 0), "reject": (reject, 1)}


def _judge_in(venv: Path) -> tuple[str, list[str]]:
    """(the venv's python, how to run its judge)."""
    python = str(venv / "bin" / "python")
    judge = [str(venv / "bin" / "judge")]
    return python, judge if Path(judge[0]).exists() else [python, "-m", "judge.cli.main"]


def _time(argv: list[str], expect: int, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run. CPU time (user + system, from wait4) moves less than wall time
    when other jobs share the machine: they delay the run more than they make it work."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != expect:
        sys.stderr.write(f"{' '.join(argv)}: exit {proc.returncode}, expected {expect}\n")
        raise SystemExit(2)
    return elapsed, usage.ru_utime + usage.ru_stime


def _slowest_imports(argv: list[str], env: dict[str, str], top: int) -> list[tuple[float, str]]:
    """(self ms, module) of the ``top`` slowest imports of ``argv``, each the lowest of 3 runs."""
    best: dict[str, int] = {}
    for _ in range(3):
        proc = subprocess.run(argv, capture_output=True, text=True, env={**env, "PYTHONPROFILEIMPORTTIME": "1"})
        for line in proc.stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if match:
                us, name = int(match[1]), match[2]
                best[name] = min(best.get(name, us), us)
    ranked = sorted(best.items(), key=lambda item: -item[1])[:top]
    return [(us / 1000, name) for name, us in ranked] + [(sum(best.values()) / 1000, f"all {len(best)} imports")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--venv", type=Path, help="a venv judge is installed in (non-editable)")
    where.add_argument("--here", action="store_true", help="the current interpreter's judge (maybe editable)")
    parser.add_argument("--against", type=Path, metavar="DIR", help="a venv with another judge (say, the baseline): "
                        "its help and reject are timed in the same interleaved runs, as help@against, reject@against")
    parser.add_argument("--importtime", action="store_true", help="also the slowest imports of one reject")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONPROFILEIMPORTTIME")}
    with tempfile.TemporaryDirectory(prefix="judge-cold-") as tmp:
        if args.here:
            python, install = sys.executable, "current interpreter (editable installs read a little slower)"
        else:
            venv = args.venv or Path(tmp) / "venv"
            if args.venv is None:
                _install(venv)
            python, install = str(venv / "bin" / "python"), f"non-editable install in {venv}"
        judge = [str(Path(python).parent / "judge")]
        if not Path(judge[0]).exists():
            judge = [python, "-m", "judge.cli.main"]
        commands = _commands(python, judge)
        if args.against is not None:
            theirs = _commands(*_judge_in(args.against))
            commands.update({f"{name}@against": theirs[name] for name in ("help", "reject")})
        for argv, expect in commands.values():  # one untimed run each: .pyc files written, page cache warm
            _time(argv, expect, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (argv, expect) in commands.items():
                wall, used = _time(argv, expect, env)
                times[name].append(wall)
                cpu[name].append(used)
        imports = _slowest_imports(commands["reject"][0], env, 25) if args.importtime else []

    bare = statistics.median(times["bare"])
    bare_min = min(times["bare"])
    bare_cpu = statistics.median(cpu["bare"])
    print(f"judge cold start: {install}; Python {sys.version.split()[0]}; {args.runs} interleaved runs each; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'':14} {'median':>9} {'min':>9} {'median-bare':>12} {'min-bare':>9} {'x bare':>7} {'CPU':>8} "
          f"{'CPU-bare':>9}  target (on the median)")
    figures = {}
    for name, ts in times.items():
        median, low = statistics.median(ts), min(ts)
        target = TARGETS.get(name.partition("@")[0])
        verdict = "" if target is None else f"{target:.2f} s {'ok' if median <= target else 'NOT MET'}"
        used = statistics.median(cpu[name])
        print(f"{name:14} {median:8.3f}s {low:8.3f}s {median - bare:11.3f}s {low - bare_min:8.3f}s "
              f"{median / bare:6.1f}x {used:7.3f}s {used - bare_cpu:8.3f}s  {verdict}")
        figures[name] = {"median_seconds": round(median, 4), "min_seconds": round(low, 4),
                         "median_cpu_seconds": round(used, 4),
                         "median_minus_bare_seconds": round(median - bare, 4), "ratio_to_bare": round(median / bare, 2),
                         "target_seconds": target}
    if imports:
        print("slowest imports of one reject (self time, ms, lowest of 3 runs):")
        for ms, name in imports:
            print(f"  {ms:7.1f}  {name}")
    if args.json:
        args.json.write_text(json.dumps({"install": install, "runs": args.runs, "figures": figures,
                                         "imports": imports}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of `judge run`'s two denial-of-service cases from issue 11: a setsid daemon, and output at the --max-output cap.

    python bench/bench_run.py [--daemon-sleep S]

1. ``judge run -- sh -c 'setsid sleep S & echo hi'``: the daemon leaves the command's process
   group and keeps its stdout. Wall time of the whole CLI run (before the fix: S seconds).
2. ``judge run --max-output 16777216`` over 200 MiB of output (NUL bytes; invalid UTF-8 bytes,
   which decode to U+FFFD and escape to 6 bytes each; and the latter on both streams): judge's
   own peak RSS (``getrusage(RUSAGE_SELF)`` in the judge process, so the writer is not counted),
   next to a run of ``true``.

Figures are printed, never asserted. Linux/POSIX, standard library + judge only.

Measured on the 2-core dev machine (issue 11), daemon sleep 20 s:
                                  before (main 45fb261)   after (branch runhard)
    setsid daemon, wall               20.60 s                 0.74 s
    peak RSS, `true`                  30 MiB                  30 MiB
    peak RSS, 200 MiB NUL             280 MiB                 86 MiB
    peak RSS, 200 MiB 0xff            280 MiB                 118 MiB
    peak RSS, 0xff on both streams    531 MiB                 174 MiB
Before the cap, --max-output 1000000000 over the same output peaked at 13.7 GB (the review); it is
now refused.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAP = 16 * 1024 * 1024
# judge's CLI in-process, then its own peak RSS (KiB on Linux) as the last line of stderr
_JUDGE = ("import resource, sys; from judge.cli.main import main; code = main(sys.argv[1:]); "
          "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)")
_WRITER = "import sys; b = {byte!r} * (1 << 20)\nfor _ in range(200):\n    {writes}"


def judge_run(root: Path, *argv: str) -> tuple[float, int, Path]:
    """(wall seconds, peak RSS in MiB, the file holding its stdout) of one `judge run` in a fresh process.

    The record goes to a file, not into this process: Linux carries a process's peak RSS across
    fork and exec, so a bench that held 200 MB of captured output would lend it to the next judge.
    """
    record = root / f"record-{time.monotonic_ns()}.json"
    started = time.monotonic()
    with record.open("wb") as out:
        done = subprocess.run([sys.executable, "-c", _JUDGE, "run", "--root", str(root), *argv], stdout=out,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge run failed: {done.stderr.strip()}")
    return wall, int(done.stderr.splitlines()[-1]) // 1024, record


def writer(byte: bytes, streams: tuple[str, ...]) -> list[str]:
    writes = "; ".join(f"sys.{name}.buffer.write(b)" for name in streams)
    return [sys.executable, "-c", _WRITER.format(byte=byte, writes=writes)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon-sleep", type=float, default=20.0, metavar="S")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        wall, _, out = judge_run(root, "--step", "daemon", "--", "sh", "-c",
                                 f"setsid sleep {args.daemon_sleep:g} & echo hi")
        record = json.loads(out.read_text(encoding="utf-8"))
        print(f"setsid daemon (sleep {args.daemon_sleep:g} s): judge run took {wall:.2f} s wall, "
              f"{record['durationSeconds']} s in the record, stdout {record['stdout']!r}")
        _, baseline, _ = judge_run(root, "--step", "true", "--", "true")
        print(f"peak RSS of judge run -- true: {baseline} MiB")
        for label, byte, streams in (("NUL on stdout", b"\0", ("stdout",)),
                                     ("0xff on stdout", b"\xff", ("stdout",)),
                                     ("0xff on stdout and stderr", b"\xff", ("stdout", "stderr"))):
            wall, peak, out = judge_run(root, "--step", "output", "--max-output", str(CAP), "--", *writer(byte, streams))
            print(f"200 MiB {label}, --max-output {CAP}: peak RSS {peak} MiB ({peak - baseline} MiB above `true`), "
                  f"{wall:.2f} s wall, record {out.stat().st_size / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`judge run -- CMD ARGS...`: run a command without a shell and record its execution evidence."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.errors import InputError

__all__ = ["add_run_command"]


def add_run_command(commands: Any) -> None:
    run = commands.add_parser("run", help="run a command and record its execution evidence (no shell)")
    run.add_argument("--step", required=True, metavar="ID", help="the step this run is evidence for")
    run.add_argument("--root", default=".judge", metavar="DIR", help="artifacts go to DIR/artifacts/RUN_ID/STEP/")
    run.add_argument("--run-id", dest="run_id", metavar="ID", help="default: UTC time and a random suffix")
    run.add_argument("--timeout", type=float, default=600.0, metavar="S", help="kill the command after S seconds")
    run.add_argument("--max-output", dest="max_output", type=int, default=64 * 1024, metavar="BYTES",
                     help="bytes of stdout and of stderr kept (head and tail, at most 16777216 = 16 MiB); "
                          "the middle becomes [TRUNCATED]")
    run.add_argument("--evidence-key", dest="evidence_key", metavar="FILE",
                     help="sign the record with this key, made when missing (default DIR/evidence.key)")
    run.add_argument("--no-sign", dest="sign", action="store_false",
                     help="write an unsigned record (its evidenceHash catches edits, not forgeries)")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...", help="the command, after --")
    run.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    """Prints the evidence record on stdout; exit 0 when the command succeeded, 1 when not."""
    from judge.runs.artifacts import record_execution
    from judge.runs.json_pieces import object_pieces

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    evidence = record_execution(command, step_id=args.step, root=args.root, run_id=args.run_id,
                                timeout=args.timeout, limit=args.max_output, key=_key(args, command))
    for piece in object_pieces(evidence.to_json()):  # an output of 16 MiB is never escaped whole
        sys.stdout.write(piece)
    sys.stdout.write("\n")
    code = "no exit code" if evidence.exit_code is None else f"exit {evidence.exit_code}"
    sys.stderr.write(f"judge: {evidence.status} ({code}) in {evidence.duration_seconds:g} s; "
                     f"artifacts in {args.root}/artifacts/{evidence.run_id}/{evidence.step_id}/\n")
    return 0 if evidence.status == "SUCCESS" else 1


def _key(args: argparse.Namespace, command: list[str]) -> bytes | None:
    """The evidence key to sign with (made when missing), once the inputs are known good: a bad one writes nothing."""
    if not args.sign:
        if args.evidence_key is not None:
            raise InputError("--no-sign and --evidence-key contradict each other: give one of them")
        return None
    from pathlib import Path

    from judge.runs.execute import check_run_inputs
    from judge.runs.keys import KEY_FILE, load_or_create_key
    from judge.workspace.confine import check_segment

    check_run_inputs(command, args.timeout, args.max_output)
    check_segment(args.step, "step_id")
    if args.run_id is not None:
        check_segment(args.run_id, "run_id")
    return load_or_create_key(args.evidence_key or Path(args.root) / KEY_FILE)

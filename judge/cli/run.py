"""`judge run --step ID --base SHA -- CMD ARGS...`: run a command without a shell and record its execution evidence,
signed and bound to the work tree it ran on."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.errors import InputError

__all__ = ["add_run_command"]


def add_run_command(commands: Any) -> None:
    run = commands.add_parser("run", help="run a command and record its execution evidence (no shell)")
    run.add_argument("--step", required=True, metavar="ID", help="the step this run is evidence for")
    run.add_argument("--base", metavar="SHA", help="the commit the step started from: the record is bound to the "
                                                   "repository, this base and the work tree's state as the command "
                                                   "ran, and backs claims about that work only (required to sign)")
    run.add_argument("--repo", metavar="DIR", help="the judged repository (default: the git work tree around the "
                                                   "current directory); the command runs in the current directory")
    run.add_argument("--root", metavar="DIR", help="artifacts go to DIR/artifacts/RUN_ID/STEP/ (default: judge's "
                                                   "state directory, $XDG_STATE_HOME/judge or ~/.local/state/judge; "
                                                   "never inside a git work tree)")
    run.add_argument("--run-id", dest="run_id", metavar="ID", help="default: UTC time and a random suffix")
    run.add_argument("--timeout", type=float, default=600.0, metavar="S", help="kill the command after S seconds")
    run.add_argument("--max-output", dest="max_output", type=int, default=64 * 1024, metavar="BYTES",
                     help="bytes of stdout and of stderr kept (head and tail, at most 16777216 = 16 MiB); "
                          "the middle becomes [TRUNCATED]")
    run.add_argument("--evidence-key", dest="evidence_key", metavar="FILE",
                     help="sign the record with this key, made when missing (default DIR/evidence.key)")
    run.add_argument("--no-sign", dest="sign", action="store_false",
                     help="write an unsigned, unbound record (its evidenceHash catches edits, not forgeries); it "
                          "backs no claim unless policy accept_unsigned_records says so")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...", help="the command, after --")
    run.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    """Prints the evidence record on stdout; exit 0 when the command succeeded, 1 when not."""
    from judge.runs.artifacts import record_execution
    from judge.runs.json_stream import object_pieces
    from judge.config_layers import state_dir
    from judge.runs.state import refuse_inside_work_tree

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    root = args.root or str(state_dir())
    refuse_inside_work_tree(root, "artifacts root", field="root")
    key_path = _key_path(args, command, root)
    work = _work(args) if key_path is not None else None  # a repository or base that cannot be read: nothing runs
    key = _load_key(key_path) if key_path is not None else None
    evidence = record_execution(command, step_id=args.step, root=root, run_id=args.run_id,
                                timeout=args.timeout, limit=args.max_output, key=key, work=work)
    if work is not None and _work(args) != work:
        sys.stderr.write("judge: warning: the command changed the work tree; the record backs claims only about the "
                         "tree as it was when the command started, not as it is now\n")
    for piece in object_pieces(evidence.to_json()):  # an output of 16 MiB is never escaped whole
        sys.stdout.write(piece)
    sys.stdout.write("\n")
    code = f"exit {evidence.exit_code}" if evidence.exit_code is not None else (
        f"it did not start: {evidence.error}" if evidence.error else "no exit code")
    sys.stderr.write(f"judge: {evidence.status} ({code}) in {evidence.duration_seconds:g} s; "
                     f"artifacts in {root}/artifacts/{evidence.run_id}/{evidence.step_id}/\n")
    return 0 if evidence.status == "SUCCESS" else 1


def _key_path(args: argparse.Namespace, command: list[str], root: str) -> Any:
    """Where the evidence key to sign with is, once the inputs are known good (a bad one writes nothing); None for
    --no-sign."""
    if not args.sign:
        if args.evidence_key is not None:
            raise InputError("--no-sign and --evidence-key contradict each other: give one of them")
        return None
    from pathlib import Path

    from judge.runs.execute import check_run_inputs
    from judge.runs.keys import KEY_FILE
    from judge.runs.state import refuse_inside_work_tree
    from judge.workspace.confine import check_segment

    check_run_inputs(command, args.timeout, args.max_output)
    check_segment(args.step, "step_id")
    if args.run_id is not None:
        check_segment(args.run_id, "run_id")
    if args.base is None:
        raise InputError(": required to sign a record: give the commit the step started from, so the record is "
                         "bound to the work it ran on (or --no-sign, for a record that backs no claim)", field="base")
    path = args.evidence_key or Path(root) / KEY_FILE
    refuse_inside_work_tree(path, "evidence key", field="evidence_key")
    return path


def _load_key(path: Any) -> bytes:
    from judge.runs.keys import load_or_create_key

    return load_or_create_key(path)


def _work(args: argparse.Namespace) -> Any:
    """The WorkBinding of the repository's work tree as it is now, against --base."""
    import os

    from judge.runs.state import work_tree_around
    from judge.workspace.work_hash import work_binding

    repo = args.repo if args.repo is not None else work_tree_around(os.getcwd())
    if repo is None:
        raise InputError(f"not given, and the current directory {os.getcwd()} is in no git work tree: give the "
                         "judged repository", field="repo")
    return work_binding(repo, args.base, args.step)

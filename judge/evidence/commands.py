"""The command line of workspace evidence: validate's --repo/--base/--ledger/--evidence flags, and `judge run`.

Bad input here (not a repository, an unknown base, an unreadable ledger or evidence file) is
an InputError, which judge/cli.py turns into exit 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from judge.errors import InputError

__all__ = ["add_workspace_flags", "add_run_command", "workspace_inputs"]


def add_workspace_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("workspace evidence (checked against git, never trusted from the result)")
    group.add_argument("--repo", metavar="PATH", help="the git work tree the step ran in (needs --base)")
    group.add_argument("--base", metavar="COMMIT", help="the commit the step started from")
    group.add_argument("--ledger", metavar="FILE", help="an append-only JSONL ledger that must record the operation")
    group.add_argument("--ledger-op", dest="ledger_op", default="close", metavar="OP", help="operation kind (default: close)")
    group.add_argument("--ledger-id", dest="ledger_id", metavar="ID", help="the id it must be for (default: the step id)")
    group.add_argument("--evidence", action="append", default=[], metavar="FILE",
                       help="an evidence.json written by `judge run`; repeat for several")


def workspace_inputs(args: argparse.Namespace, step: Any, result: Any) -> tuple[Any, tuple]:
    """(WorkspaceFacts or None, execution evidence records) for validate; InputError on bad input.

    The workspace is read only for a step and result that keep their contract: one that breaks it
    gets validate's schema_invalid verdict (exit 1), as through the API, never a usage error that
    its missing or malformed fields caused while reading git or the ledger.
    """
    from judge.contract import ContractViolation, parse_result, parse_step
    from judge.evidence.workspace import Workspace, gather_workspace

    if (args.repo is None) != (args.base is None):
        raise InputError("--repo and --base go together: give the repository and the commit the step started from")
    evidence = tuple(_read_evidence(path) for path in args.evidence)
    if args.repo is None and args.ledger is None:
        return None, evidence
    try:
        parse_step(step)
        parse_result(result)
    except ContractViolation:
        return None, evidence  # validate's contract stage gives the verdict before it would look at the workspace
    workspace = Workspace(args.repo, args.base, args.ledger, args.ledger_op, args.ledger_id)
    return gather_workspace(workspace, step, result), evidence


def _read_evidence(path: str) -> Any:
    from judge.contract import ContractViolation, parse_execution_evidence
    from judge.inputs import read_json

    try:
        return parse_execution_evidence(read_json(path, "--evidence"))
    except ContractViolation as violation:
        where = violation.path.replace("$.execution-evidence", "$")
        raise InputError(f"--evidence {path}: breaks schemas/execution-evidence.schema.json at {where}: "
                         f"{violation.problem}") from None


def add_run_command(commands: Any) -> None:
    run = commands.add_parser("run", help="run a command and record its execution evidence (no shell)")
    run.add_argument("--step", required=True, metavar="ID", help="the step this run is evidence for")
    run.add_argument("--root", default=".judge", metavar="DIR", help="artifacts go to DIR/artifacts/RUN_ID/STEP/")
    run.add_argument("--run-id", dest="run_id", metavar="ID", help="default: UTC time and a random suffix")
    run.add_argument("--timeout", type=float, default=600.0, metavar="S", help="kill the command after S seconds")
    run.add_argument("--max-output", dest="max_output", type=int, default=64 * 1024, metavar="BYTES",
                     help="bytes of stdout and of stderr kept (head and tail); the middle becomes [TRUNCATED]")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...", help="the command, after --")
    run.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    """Prints the evidence record on stdout; exit 0 when the command succeeded, 1 when not."""
    from judge.evidence.artifacts import record_execution

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    evidence = record_execution(command, step_id=args.step, root=args.root, run_id=args.run_id,
                                timeout=args.timeout, limit=args.max_output)
    sys.stdout.write(json.dumps(evidence.to_json(), ensure_ascii=True) + "\n")
    code = "no exit code" if evidence.exit_code is None else f"exit {evidence.exit_code}"
    sys.stderr.write(f"judge: {evidence.status} ({code}) in {evidence.duration_seconds:g} s; "
                     f"artifacts in {args.root}/artifacts/{evidence.run_id}/{evidence.step_id}/\n")
    return 0 if evidence.status == "SUCCESS" else 1

"""`judge approve STEP_ID --by NAME`: record a human's approval of a step in the append-only approvals file."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from judge.cli.output import error_line, write_stdout
from judge.errors import InputError

__all__ = ["add_approve_command"]

# judge.workspace.approvals.DEFAULT_APPROVALS, spelled out: the parser is built without importing pydantic.
_DEFAULT_APPROVALS = ".judge/approvals.jsonl"


def add_approve_command(commands: Any) -> None:
    approve = commands.add_parser("approve", help="record a human's approval of a step (human_approval gate)")
    approve.add_argument("step_id", metavar="STEP_ID", help="the id of the step approved, as in its step JSON")
    approve.add_argument("--by", required=True, metavar="NAME", help="who approves")
    approve.add_argument("--note", metavar="TEXT", help="why, or what was checked")
    approve.add_argument("--work", metavar="SHA256", help="approve only this work (the hash the pending verdict "
                                                          "printed); without it any work of the step is approved")
    approve.add_argument("--approvals", default=_DEFAULT_APPROVALS, metavar="FILE",
                         help=f"the append-only JSONL file (default: {_DEFAULT_APPROVALS})")
    approve.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    """Prints the record on stdout; exit 0 once it is on disk, 2 when the input or the file is unusable."""
    from judge.workspace.approvals import append_approval

    try:
        approval = append_approval(args.approvals, step_id=args.step_id, by=args.by, note=args.note, work=args.work)
    except InputError as exc:
        sys.stderr.write(error_line(exc, {"step_id": "STEP_ID"}))
        return 2
    write_stdout(json.dumps(approval.to_json(), ensure_ascii=False) + "\n")
    sys.stderr.write(f"judge: approved step {_shown(approval.step_id)} by {_shown(approval.by)}; "
                     f"appended to {_shown(args.approvals)}\n")
    return 0


def _shown(text: str) -> str:
    """The text, or its repr when a newline or other control character in it would break the line."""
    return text if text.isprintable() else repr(text)

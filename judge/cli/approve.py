"""`judge approve STEP_ID --by NAME --work SHA256`: record a human's signed approval of one piece of work."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.cli.output import error_line, write_stdout
from judge.errors import InputError

__all__ = ["add_approve_command"]


def add_approve_command(commands: Any) -> None:
    approve = commands.add_parser("approve", help="record a human's approval of a step (human_approval gate)")
    approve.add_argument("step_id", metavar="STEP_ID", help="the id of the step approved, as in its step JSON")
    approve.add_argument("--by", required=True, metavar="NAME", help="who approves")
    approve.add_argument("--note", metavar="TEXT", help="why, or what was checked")
    approve.add_argument("--work", required=True, metavar="SHA256",
                         help="the work approved: the hash the pending verdict printed (an approval is for that "
                              "work only)")
    approve.add_argument("--approvals", metavar="FILE",
                         help="the append-only JSONL file (default: approvals.jsonl in judge's state directory, "
                              "$XDG_STATE_HOME/judge or ~/.local/state/judge)")
    approve.add_argument("--evidence-key", dest="evidence_key", metavar="FILE",
                         help="sign with this key, made when missing (default: evidence.key in the state directory); "
                              "validation must use the same key")
    approve.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    """Prints the record on stdout; exit 0 once it is on disk, 2 when the input or the file is unusable."""
    import json  # here, not at the top: `judge --help` needs none of it

    from judge.runs.keys import KEY_FILE, load_or_create_key
    from judge.config_layers import state_dir
    from judge.runs.state import refuse_inside_work_tree
    from judge.workspace.approvals import APPROVALS_FILE, append_approval

    approvals = args.approvals or str(state_dir() / APPROVALS_FILE)
    try:
        key_path = args.evidence_key or state_dir() / KEY_FILE
        refuse_inside_work_tree(key_path, "evidence key", field="evidence_key")
        approval = append_approval(approvals, step_id=args.step_id, by=args.by, note=args.note, work=args.work,
                                   key=load_or_create_key(key_path))
    except InputError as exc:
        sys.stderr.write(error_line(exc, {"step_id": "STEP_ID"}))
        return 2
    write_stdout(json.dumps(approval.to_json(), ensure_ascii=False) + "\n")
    sys.stderr.write(f"judge: approved step {_shown(approval.step_id)} by {_shown(approval.by)}; "
                     f"appended to {_shown(approvals)}\n")
    return 0


def _shown(text: str) -> str:
    """The text, or its repr when a newline or other control character in it would break the line."""
    return text if text.isprintable() else repr(text)

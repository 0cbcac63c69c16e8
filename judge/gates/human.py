"""The human gate (seed 004, 17): a pause until a person approves this step's exact work with `judge approve`.

An approval counts only when it names this work's hash and carries the MAC of judge's evidence key: the executor,
which may append lines to the approvals file, cannot make either (judge/workspace/approvals.py)."""

from __future__ import annotations

import shlex

from judge import rule_ids as ids
from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate
from judge.workspace.approvals import ApprovalFacts, approval_for, refused_approvals

__all__ = ["human_approval"]


def human_approval(g: GateContext, spec: SpecGate) -> GateCheck:
    facts, key = g.approvals, g.step.evidence_key
    secret = key.secret if key is not None else None
    approval = approval_for(facts, g.approval_hash, secret) if facts is not None else None
    if approval is not None:
        return GateCheck.ok(f"approved by {approval.by!r} at {approval.at} (this exact work, signed)")
    where = f" --approvals {shlex.quote(facts.path)}" if facts is not None else ""
    signer = f" --evidence-key {shlex.quote(key.path)}" if key is not None else ""
    command = f"judge approve {shlex.quote(g.step.step.id)} --by NAME --work {g.approval_hash}{where}{signer}"
    keyless = "" if key is not None else " and the key `judge approve` signs with (judge has none yet)"
    return GateCheck(False, f"waiting for a person to review this step's work and approve it: `{command}`, then "
                            f"validate again with the same approvals file{keyless}{_unread(facts, secret)}",
                     rule=ids.HUMAN_APPROVAL_PENDING, retryable=False)


def _unread(facts: ApprovalFacts | None, secret: bytes | None) -> str:
    """Why lines of the approvals file counted for nothing: not approvals, or approvals judge cannot trust."""
    if facts is None:
        return ""
    notes = []
    if facts.corrupt_lines:  # an approval written by hand that judge cannot read counts for nothing
        notes.append(f"line(s) {_lines(facts.corrupt_lines)} of {facts.path} are not approval records and were ignored")
    refused = refused_approvals(facts, secret)
    if refused:
        why = ("judge has no evidence key to check them with (`judge approve` makes one in judge's state directory)"
               if secret is None else "they name no work or do not carry the MAC of judge's evidence key")
        notes.append(f"line(s) {_lines(tuple(line.line for line in refused))} approve nothing: {why}")
    return f" ({'; '.join(notes)})" if notes else ""


def _lines(numbers: tuple[int, ...]) -> str:
    return ", ".join(map(str, numbers[:5])) + (" ..." if len(numbers) > 5 else "")

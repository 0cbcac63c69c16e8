"""The human gate (seed 004, 17): a pause until a person approves this step's work with `judge approve`."""

from __future__ import annotations

import shlex

from judge import rule_ids as ids
from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate
from judge.workspace.approvals import approval_for

__all__ = ["human_approval"]


def human_approval(g: GateContext, spec: SpecGate) -> GateCheck:
    facts = g.approvals
    approval = approval_for(facts, g.work_hash) if facts is not None else None
    if approval is not None:
        bound = "this exact work" if approval.work else "any work of this step"
        return GateCheck.ok(f"approved by {approval.by!r} at {approval.at} ({bound})")
    where = f" --approvals {shlex.quote(facts.path)}" if facts is not None else ""
    unread = ""
    if facts is not None and facts.corrupt_lines:  # an approval written by hand that judge cannot read counts for nothing
        lines = ", ".join(map(str, facts.corrupt_lines[:5])) + (" ..." if len(facts.corrupt_lines) > 5 else "")
        unread = f" (line(s) {lines} of {facts.path} are not approval records and were ignored)"
    command = f"judge approve {shlex.quote(g.step.step.id)} --by NAME --work {g.work_hash}{where}"
    return GateCheck(False, f"waiting for a person to review this step's work and approve it: `{command}`, then "
                            f"validate again with the same approvals file{unread}", rule=ids.HUMAN_APPROVAL_PENDING,
                     retryable=False)

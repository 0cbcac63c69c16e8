"""Git hygiene gates (seed 004, 13 and 14): a patch applies without conflicts; nothing is left uncommitted."""

from __future__ import annotations

import hashlib

from judge.gates.context import GateCheck, GateContext
from judge.gates.files import needs_workspace
from judge.gates.spec import SpecGate
from judge.workspace.evidence_file import evidence_path

__all__ = ["no_uncommitted_changes", "patch_applies_cleanly", "patch_key"]


def patch_key(patch: str) -> str:
    """How GateContext.patch_errors names a gate's patch."""
    return hashlib.sha256(patch.encode("utf-8", "surrogateescape")).hexdigest()


def patch_applies_cleanly(g: GateContext, spec: SpecGate) -> GateCheck:
    """With a ``patch`` parameter: that patch applies to the work tree as the step left it. Without: the executor's
    own patch applies to the base commit (without a workspace, it must at least be a patch git would read)."""
    patch = spec.gate.param("patch")
    if patch is not None:
        if not g.has_workspace:
            return needs_workspace(spec)
        error = g.patch_errors.get(patch_key(patch), "it was not checked")
        if error:
            return GateCheck(False, f"the gate's patch does not apply to the work tree ({error}); "
                                    "leave the files it changes as it expects them")
        return GateCheck.ok("the gate's patch applies to the work tree")
    ctx = g.step
    if not ctx.has_patch:
        return GateCheck(False, "the result carries no patch to apply; return the change as a unified diff")
    if ctx.patch_error is not None:
        return GateCheck(False, f"the patch cannot be read ({ctx.patch_error}); send the output of git diff")
    if ctx.git is None:
        return GateCheck.ok("the patch is well formed (no workspace: not applied to a base)")
    if ctx.git.patch_error:
        return GateCheck(False, f"the patch does not apply to the base commit ({ctx.git.patch_error}); "
                                "diff against the commit the step started from")
    return GateCheck.ok("the patch applies to the base commit")


def no_uncommitted_changes(g: GateContext, spec: SpecGate) -> GateCheck:
    git = g.step.git
    if git is None:
        return needs_workspace(spec)
    # the step's own evidence file proves work, it is not work: an orchestrator may leave it uncommitted (any other
    # file under the evidence folder is left over like any other)
    own = evidence_path(g.step.step.id)
    dirty = [path for path in git.uncommitted if path != own]
    if dirty:
        shown = ", ".join(dirty[:5])
        more = f" and {len(dirty) - 5} more" if len(dirty) > 5 else ""
        return GateCheck(False, f"git status is not clean: {shown}{more}; commit the work or remove what is left over")
    return GateCheck.ok("git status is clean")

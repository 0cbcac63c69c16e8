"""Seeds 000 and 003: the result's claims against what git and the ledger show (high trust beats the agent's word).

These rules run only when the caller gives a workspace; the facts were gathered once, before
any rule ran (judge/workspace/facts.py), so each rule here is a pure function of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.junk_files import junk_kind
from judge.rules.phrasing import names, pronoun
from judge.findings import Finding

if TYPE_CHECKING:  # the workspace's modules are loaded when a workspace was read, the only time these rules speak
    from judge.workspace.git import Mismatch

__all__ = [
    "changed_but_unclaimed",
    "claimed_but_unchanged",
    "evidence_file_invalid",
    "head_not_judged",
    "ignored_code",
    "ledger_corrupt",
    "ledger_missing_operation",
    "no_work_evidence",
    "patch_does_not_apply",
    "patch_mismatch",
]

_SHOWN_MISMATCHES = 3


def changed_but_unclaimed(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None:
        return
    claimed = set(ctx.written_paths)
    hidden = [path for path in ctx.work_files if path not in claimed]
    if not hidden:
        return
    shown = [f"{path} ({git.where(path)})" for path in hidden]
    leftovers = [path for path in hidden if junk_kind(path)]
    todo = (
        f"List {pronoun(hidden)} in filesWritten and the patch (a plain `git diff` leaves out files git does not "
        "track yet: `git add -N FILE` first), or undo the change"
        if ctx.result.success
        else f"A failed step must leave no changes: undo {pronoun(hidden)}, or finish the step and report success: true"
    )
    if leftovers:  # what a run leaves (bytecode, caches, build output) is never listed: it goes
        todo += (f"; {names(leftovers)} {'is' if len(leftovers) == 1 else 'are'} left over from a run, not work: "
                 "delete or .gitignore, never list")
    yield Finding(
        rule=ids.CHANGED_BUT_UNCLAIMED,
        message=f"the work tree shows {names(shown)} changed since base {_short(git.base)} but the result does not claim "
        f"{pronoun(hidden)} in filesWritten or the patch. {todo}.",
        files=tuple(hidden),
    )


def claimed_but_unchanged(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None:
        return
    changed = set(git.changed)
    # The evidence file may be gitignored (seed 000 suggests it): claiming it is true when it exists.
    evidence = ctx.workspace.evidence_file  # type: ignore[union-attr]
    if evidence is not None:
        changed.add(evidence.path)
    phantom = [path for path in ctx.written_paths if path not in changed and path not in ctx.unsafe_paths]
    if phantom:
        yield Finding(
            rule=ids.CLAIMED_BUT_UNCHANGED,
            message=f"the result claims {names(phantom)} in filesWritten or the patch, but the work tree shows no change to "
            f"{pronoun(phantom)} since base {_short(git.base)} (committed, staged, unstaged or untracked). "
            f"Make the change in the work tree, or take {pronoun(phantom)} out of filesWritten and the patch.",
            files=tuple(phantom),
        )


def patch_does_not_apply(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None or git.patch_error is None or ctx.patch is None:
        return
    base = _short(git.base)
    yield Finding(
        rule=ids.PATCH_DOES_NOT_APPLY,
        message=f"the patch does not apply cleanly to base {base} ({git.patch_error}). "
        f"Return the diff of your work against the base, e.g. the output of `git diff {base}` with untracked files added.",
        files=ctx.patch_paths,
    )


def patch_mismatch(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None or not git.mismatches:
        return
    shown = [_mismatch_text(m) for m in git.mismatches[:_SHOWN_MISMATCHES]]
    more = len(git.mismatches) - len(shown)
    files = tuple(m.path for m in git.mismatches)
    yield Finding(
        rule=ids.PATCH_MISMATCH,
        message=f"the patch is not what the work tree holds: {'; '.join(shown)}"
        f"{f'; and {more} more file(s)' if more > 0 else ''}. The work is judged, not the patch: report the patch of "
        f"what you actually changed (`git diff {_short(git.base)}` with untracked files added), or undo the changes "
        "the patch does not show.",
        files=files,
    )


def head_not_judged(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None or not git.unjudged_head:
        return
    paths = git.unjudged_head
    yield Finding(
        rule=ids.HEAD_NOT_JUDGED,
        message=f"HEAD ({_short(git.head or '')}) moved from base {_short(git.base)} and its commit holds "
        f"{names(list(paths))} as neither base nor the work tree does: judge judges the work tree, and the commit "
        f"would carry what it never saw. Commit the work tree as it is (or reset HEAD to base), then report it.",
        files=paths,
    )


def ignored_code(ctx: StepContext) -> Iterator[Finding]:
    """Ignored files that would run beside the judged tree: bytecode proven not to be the judged source rejects (no
    honest tool writes it), the rest is a signal (a generated module, a tool's checkout may be honest)."""
    git = ctx.git
    if git is None or not git.ignored_code:
        return
    for proven in (True, False):
        found = [item for item in git.ignored_code if item.proven is proven]
        if not found:
            continue
        shown = "; ".join(f"{item.path} ({item.why})" for item in found[:_SHOWN_MISMATCHES])
        more = f"; and {len(found) - _SHOWN_MISMATCHES} more" if len(found) > _SHOWN_MISMATCHES else ""
        todo = "Delete it: judge judges the source, and runs its commands on the judged tree alone" if proven else \
            "judge did not judge it and its commands run without it; if the step's code needs it, commit it as a change"
        yield Finding(
            rule=ids.IGNORED_CODE,
            message=f"the work tree holds ignored files that would run: {shown}{more}. {todo}.",
            severity="reject" if proven else "signal",
            files=tuple(item.path for item in found),
        )


def _mismatch_text(mismatch: Mismatch) -> str:
    where = f" from line {mismatch.line}" if mismatch.line else ""
    return f"in {mismatch.path}{where} the patch gives {mismatch.claimed} but the file holds {mismatch.actual}"


def evidence_file_invalid(ctx: StepContext) -> Iterator[Finding]:
    evidence = ctx.workspace.evidence_file if ctx.workspace else None
    if evidence is None or evidence.valid:
        return
    # It only decides when it was the step's one way to prove work; next to real changes it is a signal.
    needed = ctx.result.success and ctx.evidence_method == "none"
    yield Finding(
        rule=ids.EVIDENCE_FILE_INVALID,
        message=f"the evidence file {evidence.path} does not count: {evidence.problem}. "
        f"Write it as schemas/evidence-file.schema.json says (version 1, nodeId {ctx.step.id!r}, timestamp, "
        "summary, type), or make the step's change in files.",
        severity="reject" if needed else "signal",
        files=(evidence.path,),
    )


def no_work_evidence(ctx: StepContext) -> Iterator[Finding]:
    git = ctx.git
    if git is None or not ctx.result.success or ctx.evidence_method != "none":
        return
    from judge.workspace.evidence_file import evidence_path

    yield Finding(
        rule=ids.NO_WORK_EVIDENCE,
        message=f"no work evidence produced: git shows no change since base {_short(git.base)} and there is no "
        f"valid evidence file. The step must either: 1. modify files (committed or left in the work tree); "
        f"2. create an evidence file at {evidence_path(ctx.step.id)} (version 1, nodeId, timestamp, summary, type); "
        "3. declare expectsNoChanges: true in the step spec. Otherwise report success: false with the reason.",
    )


def ledger_missing_operation(ctx: StepContext) -> Iterator[Finding]:
    ledger = ctx.workspace.ledger if ctx.workspace else None
    if ledger is None or ledger.found_line is not None or not ctx.result.success:
        return
    corrupt = f"; lines {_lines(ledger.corrupt_lines)} could not be read" if ledger.corrupt_lines else ""
    yield Finding(
        rule=ids.LEDGER_MISSING_OPERATION,
        message=f"the ledger {ledger.path} records no {ledger.op!r} operation for {ledger.target!r} "
        f"({ledger.entries} entries read{corrupt}). Record the {ledger.op} through the ledger's own tool "
        "(never by editing the file), or report success: false with the reason.",
        files=(ledger.path,),
    )


def ledger_corrupt(ctx: StepContext) -> Iterator[Finding]:
    ledger = ctx.workspace.ledger if ctx.workspace else None
    if ledger is None or not ledger.corrupt_lines:
        return
    yield Finding(
        rule=ids.LEDGER_CORRUPT,
        message=f"the ledger {ledger.path} has lines that are not JSON objects (line numbers: "
        f"{_lines(ledger.corrupt_lines)}). "
        "An append-only ledger should hold none; find what wrote them.",
        severity="signal",
        files=(ledger.path,),
    )


def _short(object_id: str) -> str:
    return object_id[:12]


def _lines(numbers: tuple[int, ...], limit: int = 10) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")

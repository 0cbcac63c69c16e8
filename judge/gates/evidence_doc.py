"""Checks of the agent's evidence document itself, before any gate: the fields the step requires are there, and
its list of changed files is the one git (or the patch) shows."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.gates.changes import shown_paths
from judge.gates.context import GateContext
from judge.patch.paths import normalize_path, unquote_git_path
from judge.findings import Finding

__all__ = ["EVIDENCE_CHECKS", "evidence_incomplete", "evidence_mismatch", "missing_fields"]



def missing_fields(g: GateContext) -> tuple[str, ...]:
    """The required fields the evidence lacks (all of them when there is no evidence document)."""
    if g.evidence is None:
        return g.spec.required_fields if g.spec.needs_evidence else ()
    return tuple(name for name in g.spec.required_fields if not g.evidence.provided(name))


def evidence_incomplete(g: GateContext) -> Iterator[Finding]:
    missing = missing_fields(g)
    if g.evidence is None and g.spec.needs_evidence:
        fields = f": it must hold {', '.join(missing)}" if missing else ""
        yield _finding(ids.EVIDENCE_INCOMPLETE, f"the step requires an evidence document and the result has none{fields}. "
                       "Return it as the result's `evidence` object (the fields of the step's evidence schema)")
    elif missing:
        yield _finding(ids.EVIDENCE_INCOMPLETE, f"the evidence lacks {len(missing)} required field(s): "
                       f"{', '.join(missing)} (absent, null, false, blank or empty). Fill each in with what the step "
                       "really did")


def evidence_mismatch(g: GateContext) -> Iterator[Finding]:
    if g.evidence is None or g.evidence.changed_files is None:
        return
    listed = {normalize_path(unquote_git_path(path)) for path in g.evidence.changed_files if path}
    work = g.change_as_written  # a rename is one change, covered by either of its names
    files = work.files if work else ()
    really = set(g.step.git.changed) if g.step.git is not None else {p for f in files for p in f.paths}
    source = "git" if g.step.git is not None else "the patch"
    unlisted = [f.path for f in files if not listed.intersection(f.paths)]
    unchanged = sorted(listed - really)
    problems = []
    if unchanged:
        problems.append(f"it lists {shown_paths(unchanged)}, which {source} shows unchanged")
    if unlisted:
        problems.append(f"it omits {shown_paths(unlisted)}, which {source} shows changed")
    if problems:
        yield _finding(ids.EVIDENCE_MISMATCH, f"the evidence's changed_files disagree with {source}: "
                       f"{'; '.join(problems)}. List exactly the files the step changed",
                       files=tuple(unchanged + unlisted))


EVIDENCE_CHECKS = (evidence_incomplete, evidence_mismatch)


def _finding(rule: str, message: str, files: tuple[str, ...] = ()) -> Finding:
    return Finding(rule=rule, stage="gates", message=message, files=files)


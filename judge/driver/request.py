"""What the driver asks of the executor on each attempt (schemas/drive-request.schema.json), and the step that
attempt is judged against.

Attempt 1 is `apply`. A rejected attempt is followed by a `fix_regression` of the apply attempt's work:
its feedback is the verdict's reason and its allowed set is the files of that work (seed 002, rule 2).
Every result reports the step's whole change since the step began, so a work tree read from `--base`
always agrees with it, and the work accepted in the end is judged as the step's result
(judge.driver.loop). An apply attempt that left no change, or whose verdict says it worked in files
the step does not allow, gives nothing to fix inside its files: the next attempt is `apply` again, with
the feedback. A step that is itself a fix_regression keeps its own applyFiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from judge import rule_ids as ids
from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.verdict import Verdict

__all__ = ["ApplyWork", "Mode", "apply_work", "given_apply", "judged_step", "request_for"]

# Verdicts on an apply attempt that leave nothing a fix_regression could repair inside the attempt's files: no
# work, or work only in files the step does not allow. (A step only partly done keeps its fix: its files are
# usually the right ones, and the semantic review judges the whole work again.)
_NOT_THE_WORK = frozenset({ids.SCOPE_OUTSIDE_ALLOWED, ids.SCOPE_EXCLUDED, ids.MISSING_PATCH, ids.NO_WORK_EVIDENCE})

Mode = Literal["apply", "fix_regression"]


@dataclass(frozen=True)
class ApplyWork:
    """The apply step a fix_regression repairs: the files it changed and its patch."""

    files: tuple[str, ...]
    patch: str | None


def given_apply(step: dict) -> ApplyWork | None:
    """A fix_regression step's own apply work (its applyFiles and applyPatch); None for any other step."""
    if step.get("mode") != "fix_regression":
        return None
    return ApplyWork(tuple(step.get("applyFiles") or ()), step.get("applyPatch"))


def request_for(step: dict, attempt: int, feedback: str | None, apply: ApplyWork | None) -> dict:
    """The request for ``attempt``: `apply` until there is apply work to fix, then `fix_regression` of it."""
    mode: Mode = "fix_regression" if apply is not None else "apply"
    return {
        "step": step,
        "mode": mode,
        "attempt": attempt,
        "feedback": feedback,
        "applyFiles": list(apply.files) if apply is not None else None,
        "applyPatch": apply.patch if apply is not None else None,
    }


def judged_step(request: dict) -> dict:
    """The step as the attempt that ``request`` asked for is judged: its mode, and for a fix its allowed set."""
    step = dict(request["step"])
    if request["mode"] == "fix_regression":
        step.update(mode="fix_regression", applyFiles=request["applyFiles"], applyPatch=request["applyPatch"])
    elif step.get("mode") is not None:
        step["mode"] = "apply"
    return step


def apply_work(result: dict | None, verdict: Verdict) -> ApplyWork | None:
    """The work an apply attempt left, for the fix that follows it: every file its result writes (patch and
    filesWritten) and every file a finding named (a change it hid); None when it changed nothing, or when the
    verdict says it worked in files the step does not allow: a fix kept to those files could never pass."""
    if not isinstance(result, dict) or result.get("success") is not True or verdict.rule in _NOT_THE_WORK:
        return None
    patch = result.get("patch") if isinstance(result.get("patch"), str) else None
    files: dict[str, None] = {}
    if patch:
        try:
            files.update(dict.fromkeys(parse_patch(patch).paths))
        except MalformedPatch:
            pass  # the verdict said so; the files it names are below
    written = result.get("filesWritten")
    if isinstance(written, list):
        files.update(dict.fromkeys(f for f in written if isinstance(f, str) and f))
    for finding in verdict.findings:
        files.update(dict.fromkeys(finding.files))
    return ApplyWork(tuple(files), patch) if files else None


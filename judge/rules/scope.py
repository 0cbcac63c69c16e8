"""Rule 2, scope: written files must be allowed, not excluded, and for a fix, already in the apply step.

A name is also read as a case-insensitive, normalising file system stores it (``alias_form``): on macOS or
Windows ``Config/SECRETS.yml`` is ``config/secrets.yml``, so it is excluded when either reading is, and allowed
only when both are."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.patch.globs import alias_matches_any, matches_any
from judge.patch.paths import normalize_path
from judge.context import StepContext
from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["scope_excluded", "scope_outside_allowed", "scope_fix_regression"]


def scope_excluded(ctx: StepContext) -> Iterator[Finding]:
    patterns = ctx.step.excluded_paths
    if not patterns:
        return
    hits = [path for path in _checkable(ctx) if matches_any(path, patterns) or alias_matches_any(path, patterns)]
    if hits:
        yield Finding(
            rule=ids.SCOPE_EXCLUDED,
            message=f"the result changes {names(hits)}, matching excludedPaths {list(patterns)}. "
            "Revert every change under excluded paths; do the step without touching them.",
            files=tuple(hits),
        )


def scope_outside_allowed(ctx: StepContext) -> Iterator[Finding]:
    patterns = ctx.step.allowed_files
    if patterns is None:
        return
    outside = [path for path in _checkable(ctx)
               if not (matches_any(path, patterns) and alias_matches_any(path, patterns))]
    if outside:
        yield Finding(
            rule=ids.SCOPE_OUTSIDE_ALLOWED,
            message=f"the result changes {names(outside)}, outside allowedFiles {list(patterns)}. "
            "Keep every change inside the allowed files; revert the others.",
            files=tuple(outside),
        )


def _checkable(ctx: StepContext) -> list[str]:
    # An unsafe path is unsafe_path's, an earlier rejection; leaving it out keeps megabyte paths away from globs.
    return [path for path in ctx.work_paths if path not in ctx.unsafe_paths]


def scope_fix_regression(ctx: StepContext) -> Iterator[Finding]:
    if ctx.result.mode != "fix_regression" or ctx.step.mode == "apply":
        return
    if ctx.step.apply_files is None:
        yield Finding(
            rule=ids.SCOPE_FIX_REGRESSION,
            severity="signal",
            message="the step gives no applyFiles, so the fix's scope could not be checked.",
        )
        return
    allowed = {normalize_path(p) for p in ctx.step.apply_files}
    if ctx.apply_patch is not None:
        allowed.update(ctx.apply_patch.paths)
    outside = [path for path in ctx.work_paths if path not in allowed]
    if outside:
        yield Finding(
            rule=ids.SCOPE_FIX_REGRESSION,
            message=f"this fix_regression changes {names(outside)}, which the apply step did not change "
            f"(applyFiles: {sorted(allowed)}). Fix the regression inside the apply step's files only.",
            files=tuple(outside),
        )

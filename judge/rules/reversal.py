"""Rule 4 (deterministic part): a fix_regression must not undo the apply step it is fixing.

The fix's net effect on each file (lines it removes, less lines it puts back
that the apply step had not removed) is compared with what the apply step added there; for a step that only deleted
code, with what it deleted. Lines are compared stripped, and only lines with a
letter or digit count, so braces and blank lines cannot make up an overlap.

- undone >= 90%: ``reversal``. A fix that takes back nine lines in ten of the
  feature has removed the feature; the 10% margin lets a reverting fix keep an
  import or a signature and still be caught.
- 30% <= undone < 90%: a ``partial_reversal`` signal for the semantic stage. A
  real fix often rewrites a good part of what it fixes; only judgement can tell.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from judge import rule_ids as ids
from judge.patch.model import PatchFacts
from judge.context import StepContext
from judge.findings import Finding

__all__ = ["reversal", "REVERSAL_THRESHOLD", "PARTIAL_THRESHOLD", "undone_fraction"]

REVERSAL_THRESHOLD = 0.9
PARTIAL_THRESHOLD = 0.3


def reversal(ctx: StepContext) -> Iterator[Finding]:
    if not (ctx.result.success and ctx.result.mode == "fix_regression" and ctx.work):
        return
    if ctx.apply_patch is None:
        return
    fraction = undone_fraction(ctx.apply_patch, ctx.work)
    if fraction is None or fraction < PARTIAL_THRESHOLD:
        return
    percent = f"{fraction:.0%}"
    if fraction >= REVERSAL_THRESHOLD:
        yield Finding(
            rule=ids.REVERSAL,
            message=f"this fix_regression undoes {percent} of what the apply step changed, "
            "which reverts the step instead of fixing it. Keep the step's change and fix the regression "
            "with a narrow edit.",
        )
    else:
        yield Finding(
            rule=ids.PARTIAL_REVERSAL,
            severity="signal",
            message=f"this fix_regression undoes {percent} of what the apply step changed.",
        )


def undone_fraction(apply: PatchFacts, fix: PatchFacts) -> float | None:
    """Share of the apply step's work that ``fix`` takes back; None when the apply step has no lines."""
    applied_added, applied_removed = _lines(apply, "added"), _lines(apply, "removed")
    fix_added, fix_removed = _lines(fix, "added"), _lines(fix, "removed")
    # What the fix re-adds only cancels its removals when it is not restoring the apply step's own removals.
    if sum(applied_added.values()):
        work, undone = applied_added, (fix_removed - (fix_added - applied_removed)) & applied_added
    elif sum(applied_removed.values()):
        work, undone = applied_removed, (fix_added - (fix_removed - applied_added)) & applied_removed
    else:
        return None
    return sum(undone.values()) / sum(work.values())


def _lines(patch: PatchFacts, side: str) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for change in patch.files:
        path = change.path
        for hunk in change.hunks:
            for line in getattr(hunk, side):
                text = line.strip()
                if any(ch.isalnum() for ch in text):
                    counts[(path, text)] += 1
    return counts

"""Rules 7 and 8 (deterministic part): a successful patch must change something real."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.asks import ASKS_FOR_COMMENTS, ASKS_FOR_FORMATTING
from judge.rules.phrasing import names
from judge.patch.shape import adds_trailing_whitespace, superficial_kinds
from judge.verdict import Finding

__all__ = ["zero_impact", "superficial_only"]

_ASKS = {"comment": ASKS_FOR_COMMENTS, "whitespace": ASKS_FOR_FORMATTING}


def zero_impact(ctx: StepContext) -> Iterator[Finding]:
    patch = ctx.work
    if not (ctx.result.success and patch):
        return
    if any(f.added_count or f.removed_count or f.changes_without_lines for f in patch.files):
        return
    yield Finding(
        rule=ids.ZERO_IMPACT,
        message=f"the patch for {names([f.path for f in patch.files])} adds and removes no lines "
        "(only context or empty hunks), so it changes nothing. "
        "Return a patch with the real edits, or report success: false with the reason.",
        files=tuple(f.path for f in patch.files),
    )


def superficial_only(ctx: StepContext) -> Iterator[Finding]:
    patch = ctx.work
    if not (ctx.result.success and ctx.result.mode == "apply" and patch):
        return
    if not (patch.added_count or patch.removed_count):
        return  # nothing to judge here; zero_impact speaks for line-less patches
    kinds = [superficial_kinds(change) for change in patch.files]
    if any(kind is None for kind in kinds):
        return
    files = tuple(change.path for change in patch.files)
    asked = all(_ASKS[kind].search(ctx.step.description) for kind in frozenset().union(*kinds))  # type: ignore[arg-type]
    if asked and not any(adds_trailing_whitespace(change) for change in patch.files):
        yield Finding(
            rule=ids.SUPERFICIAL_ONLY,
            severity="signal",
            message=f"every change in {names(files)} is whitespace or comments; the step asks for that kind of edit.",
            files=files,
        )
        return
    yield Finding(
        rule=ids.SUPERFICIAL_ONLY,
        message=f"every change in {names(files)} is whitespace or comments only; no code changes. "
        "Implement what the step describes in code, not only formatting or comments.",
        files=files,
    )

"""Rule 6: the patch must be a unified diff that could be applied and rolled back."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["malformed_patch"]


def malformed_patch(ctx: StepContext) -> Iterator[Finding]:
    error = ctx.patch_error
    if error is not None:
        yield Finding(
            rule=ids.MALFORMED_PATCH,
            message=f"the patch is not a well-formed unified diff: {error}. "
            "Produce it with `git diff` (file headers, @@ hunks whose line counts match) "
            "instead of writing or trimming it by hand.",
        )
        return
    # Only the executor's patch: git's own diff of a workspace shows binaries so, and is not a claim.
    placeholders = [change.path for change in ctx.patch.files if change.binary_placeholder] if ctx.patch else []
    if placeholders:
        yield Finding(
            rule=ids.MALFORMED_PATCH,
            message=f"the patch gives {names(placeholders)} as a bare `Binary files ... differ` line, which carries "
            "no content: no tool can apply it. Produce the patch with `git diff --binary` so binary changes "
            "carry their data.",
            files=tuple(placeholders),
        )

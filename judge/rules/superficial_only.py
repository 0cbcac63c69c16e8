"""Rule 8 (deterministic part): a successful apply must change code, not only whitespace or comments.

Rule 7's patch that changes nothing (context-only or empty hunks) is malformed_patch: git apply
calls such a hunk a corrupt patch (issue 11), so the parser refuses it before any rule runs.
"""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.asks import ASKS_FOR_COMMENTS, ASKS_FOR_FORMATTING
from judge.rules.phrasing import names
from judge.patch.lexer import adds_trailing_whitespace, superficial_kinds
from judge.findings import Finding

__all__ = ["superficial_only"]

_ASKS = {"comment": ASKS_FOR_COMMENTS, "whitespace": ASKS_FOR_FORMATTING}


def superficial_only(ctx: StepContext) -> Iterator[Finding]:
    patch = ctx.work
    if not (ctx.result.success and ctx.result.mode == "apply" and patch):
        return
    if not (patch.added_count or patch.removed_count):
        return  # only renames, modes, binaries: no lines whose kind could be judged
    kinds = []
    for change in patch.files:
        kind = superficial_kinds(change)
        if kind is None:
            return  # one file that changes code is enough: the others need not be read
        kinds.append(kind)
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

"""Rules 7 and 8 (deterministic part): a successful patch must change something real."""

from __future__ import annotations

import re
from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.phrasing import names
from judge.patch.shape import is_superficial_file
from judge.verdict import Finding

__all__ = ["zero_impact", "superficial_only", "ASKS_FOR_COSMETICS"]

# A step that asks for cosmetics may be done by cosmetic edits alone; the rule then only signals.
# Words that also name behaviour ("header", "format dates", "tabs", "note") are left out on purpose:
# a step about an HTTP header answered by whitespace must still be rejected.
ASKS_FOR_COSMETICS = re.compile(
    r"comment|docstring|doc string|jsdoc|javadoc|whitespace|white space|indent|reformat|formatting|formatter|"
    r"format (the )?(code|files?|sources?|imports|modules?|with)|^style\b|typo|spelling|"
    r"spacing|trailing whitespace|trailing spaces?|blank line|newline at|lint|code style|prettier|black\b|license|copyright|"
    r"todo|fixme|annotat|pragma|noqa|cosmetic|clean ?up|tidy|documentation|\bdocs?\b|clarify|wording|grammar|"
    r"reword|rephrase|dead code|commented|readme|changelog|ruff|isort|pre-commit|autopep8|pep ?8|flake8|yapf|"
    r"fmt|eslint|stylelint|rubocop|empty line|explain why|\bnits?\b|reflow|line wrap|\beol\b|end of file",
    re.IGNORECASE | re.MULTILINE,
)


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
    if not all(is_superficial_file(change) for change in patch.files):
        return
    files = tuple(change.path for change in patch.files)
    if ASKS_FOR_COSMETICS.search(ctx.step.description):
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

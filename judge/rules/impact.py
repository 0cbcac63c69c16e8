"""Rules 7 and 8 (deterministic part): a successful patch must change something real."""

from __future__ import annotations

import re
from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.phrasing import names
from judge.patch.shape import adds_trailing_whitespace, superficial_kinds
from judge.verdict import Finding

__all__ = ["zero_impact", "superficial_only", "ASKS_FOR_COMMENTS", "ASKS_FOR_FORMATTING"]

# A step that asks for cosmetic work may be done by cosmetic edits alone; the rule then only signals.
# Whole words only (`annotate`, `uncomment`, `pylint`, `autodoc` name code work), and by kind: a step
# about documentation exempts comment edits, one about formatting exempts whitespace edits. Words that
# also name behaviour ("header", "format dates", "tabs", "note") are left out on purpose: a step about
# an HTTP header answered by whitespace must still be rejected.
_BOTH = r"cosmetics?|clean ?up|tidy|nits?"
ASKS_FOR_COMMENTS = re.compile(
    r"\b(?:comments?|commented|docstrings?|doc ?strings?|jsdoc|javadoc|documentation|docs?|typos?|spelling|"
    r"wording|grammar|clarify|reword|rephrase|readme|changelog|license|copyright|todos?|fixme|explain why|"
    r"^document\w*|"
    rf"dead code|{_BOTH})\b",
    re.IGNORECASE | re.MULTILINE,
)
ASKS_FOR_FORMATTING = re.compile(
    r"\b(?:whitespace|white space|indent(?:ation|ed|s)?|re-?indent\w*|reformat\w*|formatting|formatter|"
    r"format (?:the )?(?:code|files?|sources?|imports|modules?|with)|code style|spacing|trailing (?:whitespace|spaces?)|"
    r"blank lines?|empty lines?|newlines?|end of file|eol|lint(?:ing|er)?|prettier|black|ruff|isort|autopep8|pep ?8|"
    r"flake8|yapf|fmt|gofmt|rustfmt|eslint|stylelint|rubocop|pre-commit|reflow|line wrap\w*|line length|"
    rf"{_BOTH})\b|^style\b",
    re.IGNORECASE | re.MULTILINE,
)
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

"""Rule 3, the success flag: a success needs a patch and files; a failure needs none and a reason."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.findings import Finding

__all__ = ["failure_with_patch", "failure_without_summary", "missing_patch", "missing_files_written"]

_WORD = lazy_compile(r"\w+")
_CJK = lazy_compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_PLACEHOLDERS = frozenset({"failed", "failure", "error", "n/a", "na", "none", "todo", "tbd", "unknown", "see logs"})


def failure_with_patch(ctx: StepContext) -> Iterator[Finding]:
    if ctx.result.success:
        return
    carried = []
    if ctx.has_patch:
        carried.append("a patch")
    if ctx.files_written:
        carried.append(f"filesWritten {list(ctx.files_written)}")
    if carried:
        yield Finding(
            rule=ids.FAILURE_WITH_PATCH,
            message=f"the result reports success: false but carries {' and '.join(carried)}. "
            "A failed step must leave no changes: drop the patch and filesWritten, "
            "or finish the change and report success: true.",
            files=ctx.files_written,
        )


def failure_without_summary(ctx: StepContext) -> Iterator[Finding]:
    if ctx.result.success or _explains(ctx.result.summary):
        return
    got = "no summary" if not (ctx.result.summary or "").strip() else f"only {ctx.result.summary.strip()[:80]!r}"
    yield Finding(
        rule=ids.FAILURE_WITHOUT_SUMMARY,
        message=f"the result reports success: false with {got}. "
        "Say in the summary what blocked the step: the error, the file and what you tried.",
    )


def missing_patch(ctx: StepContext) -> Iterator[Finding]:
    if ctx.result.success and not ctx.has_patch and not _patch_excused(ctx):
        yield Finding(
            rule=ids.MISSING_PATCH,
            message="the result reports success: true but its patch is empty. "
            "Return the unified diff of your changes in patch, or report success: false with the reason.",
        )


def missing_files_written(ctx: StepContext) -> Iterator[Finding]:
    if ctx.result.success and ctx.has_patch and not ctx.files_written:
        yield Finding(
            rule=ids.MISSING_FILES_WRITTEN,
            message="the result reports success: true but filesWritten is empty or missing. "
            "List in filesWritten every file the patch changes.",
        )


def _patch_excused(ctx: StepContext) -> bool:
    """No patch is owed when the step expects no changes, or when git shows no work file changed.

    In the second case the workspace rules decide, from evidence the executor cannot fake:
    an evidence file, expectsNoChanges, or no_work_evidence with its three ways out.
    """
    if ctx.step.expects_no_changes and not ctx.files_written:
        return True
    return ctx.evidence_method in ("evidence_file", "expects_no_changes", "none")


def _explains(summary: str | None) -> bool:
    """A failure summary explains when it says more than a placeholder: three words, or CJK text."""
    text = (summary or "").strip()
    if text.lower().strip(".!") in _PLACEHOLDERS:
        return False
    return len(_WORD.findall(text)) >= 3 or len(_CJK.findall(text)) >= 4

"""Rule 1: the result must carry a known mode, and the one the step asked for."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.contract.plain import MODES
from judge.context import StepContext
from judge.findings import Finding

__all__ = ["invalid_mode", "mode_mismatch"]


def invalid_mode(ctx: StepContext) -> Iterator[Finding]:
    mode = ctx.result.mode
    if mode not in MODES:
        wanted = f'"{ctx.step.mode}"' if ctx.step.mode else '"apply" or "fix_regression"'
        yield Finding(
            rule=ids.INVALID_MODE,
            message=f'the result\'s mode is {_shown(mode)}, which is neither "apply" nor "fix_regression". '
            f"Report mode {wanted}, the mode this step runs in.",
        )


def mode_mismatch(ctx: StepContext) -> Iterator[Finding]:
    intended, reported = ctx.step.mode, ctx.result.mode
    if intended and reported in MODES and reported != intended:
        yield Finding(
            rule=ids.MODE_MISMATCH,
            message=f'the step asked for mode "{intended}" but the result reports "{reported}". '
            f'Redo the step as "{intended}" and report that mode.',
        )


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too long for str(), lists nested too deep: only from Python
        return "a value too large to show"
    return text if len(text) <= 60 else text[:60] + "..."

"""Rule 2, unsafe paths: nothing may point outside the work tree or into .git/."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.patch.paths import unsafe_reason
from judge.context import StepContext
from judge.verdict import Finding

__all__ = ["unsafe_path"]


def unsafe_path(ctx: StepContext) -> Iterator[Finding]:
    unsafe = [(path, why) for path in dict.fromkeys(ctx.claimed_paths + ctx.work_paths) if (why := unsafe_reason(path))]
    if unsafe:
        listed = "; ".join(f"{path!r} ({why})" for path, why in unsafe[:5])
        yield Finding(
            rule=ids.UNSAFE_PATH,
            message=f"the result names unsafe paths: {listed}. "
            "Use repository-relative paths inside the work tree only, never absolute, '..' or .git/ paths.",
            files=tuple(path for path, _ in unsafe),
        )

"""Rule 2, unsafe paths: nothing may point outside the work tree or into .git/, or alias another name on some platform."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.verdict import Finding

__all__ = ["unsafe_path"]


def unsafe_path(ctx: StepContext) -> Iterator[Finding]:
    unsafe = list(ctx.unsafe_paths.items())
    if unsafe:
        listed = "; ".join(f"{_shown(path)} ({why})" for path, why in unsafe[:5])
        yield Finding(
            rule=ids.UNSAFE_PATH,
            message=f"the result names unsafe paths: {listed}. "
            "Use repository-relative paths inside the work tree only, never absolute, '..' or .git/ paths, "
            "and names every platform reads as themselves.",
            files=tuple(path for path, _ in unsafe),
        )


def _shown(path: str, limit: int = 120) -> str:
    """The path as a Python literal, cut short: an executor may send megabytes of it, the reason needs the start."""
    return repr(path) if len(path) <= limit else f"{path[:limit]!r}... ({len(path):,} characters)"

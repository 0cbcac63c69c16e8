"""Rule 2, unsafe paths: nothing may point outside the work tree or into .git/, or alias another name on some platform.

A symlink the change writes is a path too: its target (the blob, mode 120000) must stay inside the work tree and
out of .git, or whatever later follows the link reads or writes there."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.patch.model import FileChange
from judge.patch.paths import SYMLINK_MODE, link_target_reason
from judge.findings import Finding

__all__ = ["unsafe_path"]


def unsafe_path(ctx: StepContext) -> Iterator[Finding]:
    unsafe = list(ctx.unsafe_paths.items())
    named = set(ctx.unsafe_paths)
    unsafe += [(path, why) for path, why in _unsafe_links(ctx).items() if path not in named]
    if unsafe:
        listed = "; ".join(f"{_shown(path)} ({why})" for path, why in unsafe[:5])
        yield Finding(
            rule=ids.UNSAFE_PATH,
            message=f"the result names unsafe paths: {listed}. "
            "Use repository-relative paths inside the work tree only, never absolute, '..' or .git/ paths, "
            "and names every platform reads as themselves; a symlink must point inside the work tree, outside .git.",
            files=tuple(path for path, _ in unsafe),
        )


def _unsafe_links(ctx: StepContext) -> dict[str, str]:
    """Each symlink the patch or the work tree's change leaves behind whose target leads out or into .git."""
    found: dict[str, str] = {}
    for facts in (ctx.patch, ctx.work):
        for change in facts.files if facts is not None else ():
            target = _link_target(change)
            if target is not None and change.path not in found and (why := link_target_reason(change.path, target)):
                found[change.path] = why
    return found


def _link_target(change: FileChange) -> str | None:
    """The target of the symlink ``change`` leaves behind, or None when it leaves none (git keeps the old mode when
    only the index line names it)."""
    if change.is_deleted or (change.new_mode or change.old_mode) != SYMLINK_MODE:
        return None
    lines = [line[1:] for hunk in change.hunks for line in hunk.body if line[:1] in ("+", " ")]
    return "\n".join(lines) if lines else None


def _shown(path: str, limit: int = 120) -> str:
    """The path as a Python literal, cut short: an executor may send megabytes of it, the reason needs the start."""
    return repr(path) if len(path) <= limit else f"{path[:limit]!r}... ({len(path):,} characters)"

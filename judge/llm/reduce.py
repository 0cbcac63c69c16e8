"""Fitting a big patch into the prompt budget without ever cutting it silently.

In order, until it fits: the patch as sent; every file header and every changed
line with context lines trimmed (a marker says how many per hunk); then whole
files past the budget replaced by a one-line summary (+/- counts). Every marker
starts with ``[judge:`` so the model, and a person reading the prompt, sees it.
"""

from __future__ import annotations

from judge.patch.model import FileChange, Hunk, PatchFacts

__all__ = ["CHARS_PER_TOKEN", "reduce_patch"]

# Code runs about 3 characters per token in common tokenizers; erring low keeps us under budget.
CHARS_PER_TOKEN = 3
# Room kept for the closing "[judge: N more files not shown ...]" line.
_RESERVE = 120


def reduce_patch(text: str, facts: PatchFacts, max_tokens: int) -> tuple[str, str]:
    """(patch text for the prompt, a note saying what was reduced, or "" when nothing was)."""
    budget = max_tokens * CHARS_PER_TOKEN
    if len(text) <= budget:
        return text, ""
    trimmed = [_render_file(change, keep_context=False) for change in facts.files]
    if sum(len(part) for part in trimmed) <= budget:
        return "".join(trimmed), "reduced: context lines trimmed, every changed line kept"
    # Room is kept for a summary line of every file not shown, so every name stays in view when it can.
    summaries = [len(_summary_line(change)) for change in facts.files]
    after = [sum(summaries[i + 1 :]) for i in range(len(summaries))]
    shown: list[str] = []
    used = 0
    for index, part in enumerate(trimmed):
        if used + len(part) + after[index] > budget:
            break
        shown.append(part)
        used += len(part)
    rest = list(facts.files[len(shown) :])
    if not shown and len(trimmed[0]) > budget and budget - after[0] > 2 * _RESERVE:
        # One file alone is over the whole budget: show the hunks of it that fit, and say so.
        shown.append(_partial_file(rest.pop(0), budget - after[0]))
        used = len(shown[0])
    shown.append(_summaries(rest, budget - used))
    return "".join(shown), f"reduced: context trimmed, {len(rest)} of {len(facts.files)} files summarised"


def _render_file(change: FileChange, keep_context: bool) -> str:
    return _file_header(change) + "".join(_render_hunk(hunk, keep_context) for hunk in change.hunks)


def _file_header(change: FileChange) -> str:
    old = "/dev/null" if change.old_path is None else f"a/{change.old_path}"
    new = "/dev/null" if change.new_path is None else f"b/{change.new_path}"
    flags = [
        flag
        for flag, on in (
            ("new file", change.is_added),
            ("deleted file", change.is_deleted),
            ("renamed", change.is_rename),
            ("copied", change.is_copy),
            ("binary", change.is_binary),
            (f"mode {change.old_mode} -> {change.new_mode}", change.is_mode_change),
        )
        if on
    ]
    note = f"# {', '.join(flags)}\n" if flags else ""
    return f"--- {old}\n+++ {new}\n{note}"


def _render_hunk(hunk: Hunk, keep_context: bool) -> str:
    lines = [hunk.header]
    hidden = 0
    for line in hunk.body:
        if line[0] == " " and not keep_context:
            hidden += 1
            continue
        lines.append(line)
    if hidden:
        lines.append(f"[judge: {hidden} context lines of this hunk not shown]")
    return "\n".join(lines) + "\n"


def _partial_file(change: FileChange, room: int) -> str:
    """As many hunks of one oversized file as fit, then a marker for the rest."""
    out = _file_header(change)
    for index, hunk in enumerate(change.hunks):
        part = _render_hunk(hunk, keep_context=False)
        if len(out) + len(part) > room:
            rest = change.hunks[index:]
            added = sum(h.added_count for h in rest)
            removed = sum(h.removed_count for h in rest)
            return out + f"[judge: {len(rest)} more hunks of {change.path} not shown (+{added} -{removed} lines)]\n"
        out += part
    return out


def _summary_line(change: FileChange) -> str:
    return f"[judge: {change.path} not shown (+{change.added_count} -{change.removed_count} lines)]\n"


def _summaries(rest: list[FileChange], room: int) -> str:
    """A line per file while they fit, then one line for all the others: the output stays bounded."""
    lines: list[str] = []
    used = 0
    for index, change in enumerate(rest):
        line = _summary_line(change)
        if used + len(line) > room - _RESERVE:
            others = rest[index:]
            added = sum(c.added_count for c in others)
            removed = sum(c.removed_count for c in others)
            lines.append(f"[judge: {len(others)} more files not shown (+{added} -{removed} lines)]\n")
            break
        lines.append(line)
        used += len(line)
    return "".join(lines)

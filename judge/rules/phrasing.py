"""How findings name files: short lists an agent can act on."""

from __future__ import annotations

__all__ = ["names", "pronoun"]


def names(paths: list[str] | tuple[str, ...], limit: int = 5) -> str:
    """``a.py, b.py and 3 more``: every file up to ``limit``, then a count."""
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def pronoun(paths: list[str] | tuple[str, ...]) -> str:
    return "it" if len(paths) == 1 else "them"

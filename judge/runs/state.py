"""Where judge keeps what it trusts (the evidence key, records, approvals): the user's state directory, never a
repository an executor works in.

The executor runs as the same user and owns its work tree: a key or a record inside any git work tree is one
it may read or rewrite. So the default lives in ``$XDG_STATE_HOME/judge`` (``~/.local/state/judge``), and a
place judge is asked to write its state to is refused when it lies inside a git work tree.
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import InputError

__all__ = ["refuse_inside_work_tree", "state_dir", "work_tree_around"]


def state_dir() -> Path:
    """``$XDG_STATE_HOME/judge``, else ``~/.local/state/judge`` (an XDG_STATE_HOME that is not absolute is ignored,
    as the XDG specification says)."""
    configured = os.environ.get("XDG_STATE_HOME", "")
    base = Path(configured) if os.path.isabs(configured) else Path.home() / ".local" / "state"
    return base / "judge"


def work_tree_around(path: str | os.PathLike[str]) -> Path | None:
    """The top of the git work tree ``path`` lies in (links resolved; a path not made yet is judged by its nearest
    existing parent), or None. A ``.git`` directory or file marks a work tree, as it does for git."""
    where = Path(os.path.realpath(path))
    for place in (where, *where.parents):
        if os.path.lexists(place / ".git"):
            return place
    return None


def refuse_inside_work_tree(path: str | os.PathLike[str], what: str, field: str | None = None) -> None:
    """InputError naming the fix when ``path`` lies inside a git work tree, where an executor could reach it."""
    top = work_tree_around(path)
    if top is not None:
        raise InputError(f"{path}: the {what} is inside the git work tree {top}, where an executor working there "
                         f"could read or rewrite it; keep it outside any repository (default: {state_dir()})",
                         field=field)

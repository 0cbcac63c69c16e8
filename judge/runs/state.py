"""Judge's state never inside a repository: a place judge is asked to keep its key or records in is refused when it
lies inside a git work tree.

The executor runs as the same user and owns its work tree: a key or a record inside any git work tree is one
it may read or rewrite. The default place is the user's state directory (judge.config_layers.state_dir).
"""

from __future__ import annotations

import os
from pathlib import Path

from judge.config_layers import state_dir
from judge.errors import InputError

__all__ = ["refuse_inside_work_tree", "work_tree_around"]


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

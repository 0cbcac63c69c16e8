"""Judge's state out of the executor's reach: the transcript, the evidence key and the approvals file must not be
inside the drive workspace or under the executor's working directory, where it could rewrite them."""

from __future__ import annotations

import os
from typing import Iterable, Mapping

from judge.errors import InputError

__all__ = ["check_out_of_reach", "inside"]


def inside(path: str, place: str) -> bool:
    """Whether ``path`` is ``place`` or under it, both resolved (symbolic links followed, case as on disk)."""
    path, place = os.path.realpath(path), os.path.realpath(place)
    return path == place or path.startswith(place.rstrip(os.sep) + os.sep)


def check_out_of_reach(state: Mapping[str, str | None], places: Iterable[tuple[str, str]]) -> None:
    """InputError naming the first of ``state`` (field -> path) inside one of ``places`` ((what it is, path))."""
    places = [(what, place) for what, place in places if place]
    for field, path in state.items():
        if path is None:
            continue
        for what, place in places:
            if inside(path, place):
                raise InputError(f"{path} is inside {what} {place}, where the executor could rewrite it; keep it "
                                 "outside (e.g. under ~/.local/state/judge)", field=field)

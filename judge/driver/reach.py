"""Judge's state out of the executor's reach: the transcript, evidence key, approvals, artifacts, templates and
ledger must not be inside the drive workspace or under the executor's working directory, where it could rewrite them."""

from __future__ import annotations

from typing import Iterable, Mapping

from judge.errors import InputError
from judge.workspace.confine import is_inside

__all__ = ["check_out_of_reach"]


def check_out_of_reach(state: Mapping[str, str | None], places: Iterable[tuple[str, str]]) -> None:
    """InputError naming the first of ``state`` (field -> path) inside one of ``places`` ((what it is, path))."""
    places = [(what, place) for what, place in places if place]
    for field, path in state.items():
        if path is None:
            continue
        for what, place in places:
            if is_inside(path, place):
                raise InputError(f"{path} is inside {what} {place}, where the executor could rewrite it; keep it "
                                 "outside (e.g. under ~/.local/state/judge)", field=field)

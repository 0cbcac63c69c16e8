"""The change model: one step's change, read once for every code detector.

Per changed file it gives each hunk's two sides (judge/code/sides.py) with where they start and git's
function context, the whole text before and after of a test-collection setting file when a workspace gives
it (judge/code/collection.py reads sections out of the hunks' view there), and, computed on
first read and then shared, what each side defines: its test units (judge/code/tests.py) and its
functions (judge/code/functions.py). The detectors pair these definitions old to new and classify what
happened to each (judge/code/weakening.py for tests, judge/rules/stub_or_disabled_code.py for functions); none of them
parses a side another has already parsed in the same validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judge.code.collection import Texts
from judge.code.functions import Function, functions_in
from judge.code.sides import Side, side_of, sides_of
from judge.patch.model import FileChange, Hunk, PatchFacts, fact

if TYPE_CHECKING:
    from judge.code.tests import TestUnit

__all__ = ["ChangeModel", "FileView", "HunkView", "Texts"]

Which = Literal["old", "new"]


@dataclass(frozen=True)
class HunkView:
    """One hunk and its two sides. The sides are made anew on each read, not kept: kept for every hunk until the
    validation ends they would double the memory a large patch takes, and what is read from them is kept instead."""

    hunk: Hunk
    number: int  # its index in the file's hunks

    @property
    def old(self) -> Side:
        return side_of(self.hunk, "old")

    @property
    def new(self) -> Side:
        return side_of(self.hunk, "new")

    def side(self, which: Which) -> Side:
        return self.old if which == "old" else self.new

    def start(self, which: Which) -> int:
        """The file's line number of the side's first line."""
        return self.hunk.old_start if which == "old" else self.hunk.new_start


@dataclass(frozen=True)
class FileView:
    """One changed file of the step, and what its sides define."""

    index: int  # its place in the patch
    change: FileChange

    @property
    def path(self) -> str:
        return self.change.path

    @fact
    def hunks(self) -> tuple[HunkView, ...]:
        return tuple(HunkView(hunk, number) for number, hunk in enumerate(self.change.hunks))

    def path_on(self, which: Which) -> str | None:
        """The file's path on that side: None for the old side of a new file, the new side of a deleted one."""
        return self.change.old_path if which == "old" else self.change.new_path

    def tests(self, which: Which) -> tuple[tuple[HunkView, TestUnit], ...]:
        """The test units each hunk's side holds, with their hunk, in order."""
        return self._tests[0 if which == "old" else 1]

    def functions(self, which: Which, hunk: HunkView) -> tuple[Function, ...]:
        """The functions a hunk's side defines (a whole new or deleted file read as one)."""
        found = self._functions.get((which, hunk.number))
        if found is None:
            whole = self.change.is_added if which == "new" else self.change.is_deleted
            found = self._functions[(which, hunk.number)] = tuple(
                functions_in(hunk.side(which), self.path_on(which) or self.path, whole=whole))
        return found

    @fact
    def _functions(self) -> dict[tuple[Which, int], tuple[Function, ...]]:
        return {}

    @fact
    def _tests(self) -> tuple[tuple[tuple[HunkView, TestUnit], ...], tuple[tuple[HunkView, TestUnit], ...]]:
        """The units of the old sides and of the new: the detector of weakened tests reads both, so each hunk's two
        sides are made together, in one pass over its body, and let go once read."""
        from judge.code.tests import test_language

        if not any(test_language(path) for path in (self.change.old_path, self.change.new_path) if path):
            return (), ()  # no reader knows the file (a snapshot, a JSON fixture): no side is made
        sides = [sides_of(hunk.hunk) for hunk in self.hunks]
        return self._read_tests("old", [old for old, _ in sides]), self._read_tests("new", [new for _, new in sides])

    def _read_tests(self, which: Which, sides: list[Side]) -> tuple[tuple[HunkView, TestUnit], ...]:
        path = self.path_on(which)
        if path is None or which == "old" and self.change.is_added:
            return ()
        from judge.code.tests import skip_aliases, test_units  # here: only a change to a test file is read for tests

        # a name one hunk binds to a skip (`flaky = pytest.mark.skip`) marks the tests another hunk decorates with it
        aliases = skip_aliases(path, "\n".join(["\n".join(side.lines) for side in sides if side.lines]))
        return tuple((hunk, unit) for hunk, side in zip(self.hunks, sides)
                     for unit in test_units(side, path, hunk.hunk.section, aliases))


class ChangeModel:
    """The work of one step (git's diff with a workspace, else the patch), file by file."""

    def __init__(self, patch: PatchFacts, texts: Texts | None = None) -> None:
        self.patch = patch
        self.texts = texts  # the whole texts of the setting files, when a workspace gives them
        self.files = tuple(FileView(index, change) for index, change in enumerate(patch.files))

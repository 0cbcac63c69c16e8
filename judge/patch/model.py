"""What a parsed patch is: files, their hunks and lines. Paths are repository-relative, unquoted and normalised."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar, overload

__all__ = ["FileChange", "Hunk", "PatchFacts", "fact"]

T = TypeVar("T")
SideLines = tuple[tuple[str, ...], tuple[bool, ...]]  # a side's lines, and which of them the change wrote


class fact(Generic[T]):
    """A property of a frozen value computed on first read and then kept on the instance, like
    functools.cached_property without the lock Python 3.11 takes on every first read (3.12 dropped it).
    The values are immutable and a validation reads them on one thread at a time; a fact computed
    twice would be the same fact."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> fact[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | fact[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)  # read from there from now on
        return value


@dataclass(frozen=True)
class Hunk:
    """One ``@@ -a,b +c,d @@`` block: where it starts, and its body lines in order. The header is read once, by the
    parser: ``old_start`` is a, ``new_start`` is c, ``section`` what git prints after the second ``@@`` (the
    function or class the hunk sits in, by git's function-context rules; "" when none)."""

    line: int  # 1-based line of the hunk header within the patch
    header: str
    body: tuple[str, ...]  # each line with its ' ', '+' or '-' and without its line end
    added_count: int
    removed_count: int
    old_start: int = 1
    new_start: int = 1
    section: str = ""

    @classmethod
    def made(cls, line: int, header: str, body: tuple[str, ...], added_count: int, removed_count: int,
             old_start: int, new_start: int, section: str) -> Hunk:
        """``Hunk(...)`` with every field given, set in one go: the frozen dataclass's ``__init__`` sets each field
        through ``object.__setattr__``, a third of the cost of reading a small hunk."""
        hunk = object.__new__(cls)
        hunk.__dict__.update(line=line, header=header, body=body, added_count=added_count,
                             removed_count=removed_count, old_start=old_start, new_start=new_start, section=section)
        return hunk

    # Lines derived from the body are made anew on each read, not kept: kept for every hunk until the
    # validation ends, they would double the memory a large patch takes (bench/bench_deterministic.py).
    @property
    def added(self) -> tuple[str, ...]:
        return tuple([line[1:] for line in self.body if line[0] == "+"])

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple([line[1:] for line in self.body if line[0] == "-"])

    @property
    def old_side(self) -> tuple[tuple[str, ...], tuple[bool, ...]]:
        """The file there before the change: context and removed lines in order, and which of them were removed."""
        return _side(self.body, "-")

    @property
    def new_side(self) -> tuple[tuple[str, ...], tuple[bool, ...]]:
        """The file there after the change: context and added lines in order, and which of them were added."""
        return _side(self.body, "+")

    @property
    def sides(self) -> tuple[SideLines, SideLines]:
        """``(old_side, new_side)``, made in one pass over the body: for a reader that needs both."""
        return _sides(self.body)

    @fact
    def reaches_end(self) -> bool:
        """The hunk runs to the end of the file: git gives as much context after the changes as before them,
        unless the file ends first."""
        leading, trailing = _context_run(self.body), _context_run(reversed(self.body))
        return trailing < leading or any(line.startswith("\\") for line in self.body[-2:])


def _context_run(body: Iterable[str]) -> int:
    """How many context lines ``body`` starts with, read in the order given (`\\ No newline` lines not counted): read
    up to the first change, not the whole of a long hunk."""
    count = 0
    for line in body:
        if line[0] == " ":
            count += 1
        elif line[0] != "\\":
            break
    return count


def _side(body: tuple[str, ...], sign: str) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    kept = [line for line in body if line.startswith((" ", sign))]  # body lines are never empty
    return tuple([line[1:] for line in kept]), tuple([line[0] == sign for line in kept])


def _sides(body: tuple[str, ...]) -> tuple[SideLines, SideLines]:
    old_lines: list[str] = []
    old_changed: list[bool] = []
    new_lines: list[str] = []
    new_changed: list[bool] = []
    for line in body:  # a line that is none of these (`\ No newline at end of file`) is on no side
        sign = line[0]
        if sign == " ":
            text = line[1:]
            old_lines.append(text)
            old_changed.append(False)
            new_lines.append(text)
            new_changed.append(False)
        elif sign == "-":
            old_lines.append(line[1:])
            old_changed.append(True)
        elif sign == "+":
            new_lines.append(line[1:])
            new_changed.append(True)
    return (tuple(old_lines), tuple(old_changed)), (tuple(new_lines), tuple(new_changed))


@dataclass(frozen=True)
class FileChange:
    """One file's entry in a patch. Paths are repository-relative, unquoted, prefix-free."""

    old_path: str | None  # None when the patch creates the file
    new_path: str | None  # None when the patch deletes the file
    line: int  # 1-based line where this file's entry starts
    hunks: tuple[Hunk, ...]
    is_binary: bool = False
    binary_placeholder: bool = False  # a bare `Binary files a/x and b/x differ`: a binary change without its content
    is_rename: bool = False
    is_copy: bool = False
    old_mode: str | None = None
    new_mode: str | None = None

    @fact
    def path(self) -> str:
        """The path the change leaves behind (the old one for a deletion)."""
        return self.new_path if self.new_path is not None else self.old_path  # type: ignore[return-value]

    @fact
    def paths(self) -> tuple[str, ...]:
        """Every path this change writes to: both ends of a rename; a copy writes only its new file."""
        if self.is_copy:
            return (self.path,)
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p is not None))

    @property
    def is_added(self) -> bool:
        return self.old_path is None

    @property
    def is_deleted(self) -> bool:
        return self.new_path is None

    @property
    def is_mode_change(self) -> bool:
        return self.old_mode is not None and self.new_mode is not None and self.old_mode != self.new_mode

    @fact
    def added_count(self) -> int:
        return sum(h.added_count for h in self.hunks)

    @fact
    def removed_count(self) -> int:
        return sum(h.removed_count for h in self.hunks)

    @property
    def changes_without_lines(self) -> bool:
        """A real change that needs no +/- lines: new/deleted/renamed/copied file, binary, chmod."""
        return self.is_added or self.is_deleted or self.is_rename or self.is_copy or self.is_binary or self.is_mode_change


@dataclass(frozen=True)
class PatchFacts:
    """Everything the rules need to know about a patch."""

    files: tuple[FileChange, ...]

    @fact
    def paths(self) -> tuple[str, ...]:
        """Every path the patch writes to, in patch order, without repeats."""
        return tuple(dict.fromkeys(p for f in self.files for p in f.paths))

    @fact
    def added_count(self) -> int:
        return sum(f.added_count for f in self.files)

    @fact
    def removed_count(self) -> int:
        return sum(f.removed_count for f in self.files)

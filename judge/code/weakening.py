"""What a change does to the tests it touches: tests deleted, skipped or focused, taken out of collection, assertions
removed, replaced by a tautology or a weaker check, or swallowed, expected values edited. Facts only;
judge/rules/tests_weakened/by_edits.py decides what they mean for a step.

Every side of every hunk of a test file is read once into test units (judge/code/tests.py). A test
is known by its qualified name (`Class.test_x`, `describe > it` title) in its file, and across the
change when its header leaves one file and enters another. A test whose header goes is paired with
what it became, as git pairs renamed files: a definition the change writes under a new name whose
body shares most of its lines (in this file or another), or one that takes its place under a name
that extends it. A pair is then judged by its assertions: kept (honest), weakened, or rewritten (a
signal); a partner pytest does not collect (`_test_x`, `check_x`, a class out of `Test*`) is a test
taken out of collection. A fragment of a test whose header is above its hunk is known by the hunk
(or by the hunk header's function context, where git names a test there). An assertion is weakened
when one that pinned a value is replaced by one that holds for other values (existence,
truthiness, inequality, a type; judge/code/tests.Check.weak), unless truthiness says as much
(`assert x == True` written `assert x`). The reasons a weakening may be honest are facts here too:
the change removes the code a deleted test used or rewrites its signature (``with_code``), edits
code a test uses (``code_edited``), or the values an edited expectation changed (``values``, for
the rule to look for in the step).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath
from typing import Literal

from judge.code.change import ChangeModel, FileView
from judge.code.deadcode import disabled_blocks, may_switch_off, unreachable_code
from judge.code.sides import Side
from judge.code.testpaths import is_test_data, is_test_path
from judge.code.tests import Check, TestUnit, normalised, runs_past, test_language
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, Hunk
from judge.patch.paths import file_name

__all__ = ["Weakening", "weakenings"]

WeakeningKind = Literal["deleted", "skipped", "focused", "assertions_removed", "tautology", "expected_edited",
                        "weakened", "swallowed", "disabled", "uncollected", "rewritten"]

# A test made table-driven: pytest's and parameterized's decorators, Jest/Vitest/Mocha `.each`, AVA macros' arrays.
_TABLE = lazy_compile(r"@(?:pytest\.mark\.parametrize|parameterized(?:\.expand)?|ddt\.data|data)\b|\.each\s*[(`]")
_DECORATORS_SEEN = 200  # lines above a test's header its decorators may take (a parametrize table)
# A focus in JS/TS tests (`it.only`, `fit(`, `{ only: true }`): in a new file too, it stops the other tests running.
_FOCUS = lazy_compile(r"\.only\b|\b(?:fit|fdescribe|fcontext)\s*\(|\bonly\s*:\s*true")
# A test file by its name (not only its folder): its deletion deletes tests even where judge cannot read them.
_TEST_FILE = lazy_compile(r"^(?:test_.+|.+_test|.+\.(?:test|spec)|.+_spec|.+Tests?)\.\w+$")
# A definition's name on a line of code: def/class/function/func/fn/const..., Go receivers, JS methods.
_DEFINITION = lazy_compile(
    r"\b(?:def|class|function\*?|func|fn|interface|enum|struct|trait)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
    r"|^\s*(?:(?:export|public|private|protected|internal|static|final|abstract|async|get|set|default)\s+)*"
    r"(?:[\w$<>\[\].,?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::\s*[^={;]+|throws\s+[\w.,\s]+)?\{\s*$"  # a method
    r"|\b([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)"  # name = () =>
)
_WORD = lazy_compile(r"[A-Za-z_$][\w$]*")
_TYPE_KEYWORD = lazy_compile(r"\s*(?:class|interface|enum|struct|trait)\b")
# A typed field or attribute: `timeout: float = 5.0` (Python), `readonly timeout?: number;` (TypeScript).
_DECLARATION = lazy_compile(r"^(?!.*[,{(]\s*$)\s*(?:(?:public|private|protected|readonly|static|declare)\s+)*"
                            r"([A-Za-z_$][\w$]*)\??\s*:\s*[^\s=:][^=]*?(?:=|;|$)")
# Files tests read, not tests: code there is data (a linter's sample input may well hold `def test_x` or `assert`).
_SHOWN = 3  # assertions quoted in a reason
# Documentation: editing it changes no code a test checks.
_DOCS = lazy_compile(r"\.(?:md|rst|adoc)$|(?:^|/)docs?/|(?:^|/)(?:CHANGE\w*|HISTORY|NEWS|README|AUTHORS|LICENSE|NOTICE)[^/]*$",
                     re.IGNORECASE)
# Names every test and every module uses: sharing one says nothing about the code under test.
_COMMON = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset({
    "self", "cls", "pytest", "mock", "assert", "expect", "test", "it", "describe", "t", "this", "const", "let", "var",
    "function", "return", "await", "async", "new", "undefined", "null", "true", "false", "typeof", "instanceof",
    "toBe", "toEqual", "toStrictEqual", "Object", "Array", "String", "Number", "Boolean", "JSON", "Promise", "Error",
    "Map", "Set", "Date", "Math", "console", "require", "module", "exports", "result", "value", "data", "err", "error",
    "res", "req", "response", "request", "args", "kwargs", "name", "x", "y", "a", "b", "i", "n"})


@dataclass(frozen=True)
class Weakening:
    kind: WeakeningKind
    path: str
    test: str  # how the reason names the test; "" when the sentence is about the file
    what: str  # "gained @pytest.mark.skip", "was deleted", "lost 2 of 3 assertions: `assert r.ok`"
    with_code: bool = False  # the change also removes code the test used: a feature taken out with its tests
    code_edited: bool = False  # the change also edits non-test code this test uses (its names appear there)
    values: tuple[str, ...] = ()  # an edited expected value: the literals that differ, before then after
    input_edited: bool = False  # an edited expected value: the test's input was edited the same way beside it

    def __str__(self) -> str:
        return f"{self.path}: {self.test} {self.what}" if self.test else f"{self.path} {self.what}"


@dataclass(frozen=True)
class _Seen:
    """One unit on one side of one hunk, and where it lives."""

    change: int  # index of its FileChange in the patch
    hunk: int
    path: str
    first: int  # the file's line number of the side's first line
    unit: TestUnit

    @property
    def key(self) -> tuple[str | int, ...]:
        """The unit's identity in its file: a test's own versions on both sides share it."""
        unit = self.unit
        if unit.kind == "fragment" and not unit.name:
            return ("fragment", self.change, self.hunk)
        if unit.kind in ("group", "module"):
            return (unit.kind, self.change, unit.name)
        return ("test", self.change, unit.qualname)  # tests, helpers and fragments git names share one namespace

    def label(self, line: int | None = None) -> str:
        if self.unit.kind == "fragment" and not self.unit.name:
            where = f" in {self.unit.label}" if self.unit.label else ""
            return f"the test around line {self.first + (line if line is not None else 0)}{where}"
        return self.unit.label or self.unit.name


def weakenings(model: ChangeModel) -> tuple[Weakening, ...]:
    """Every way the change weakens the tests of the files it touches, in patch order."""
    reading = _Reading(model)
    renamed = reading.renamed_files()
    if not (reading.old or reading.new or reading.unreadable or renamed):
        return ()
    found = (*reading.unreadable, *renamed, *reading.deleted(), *reading.marked(), *reading.checked(),
             *reading.disabled())
    return tuple(dict.fromkeys(found))


class _Reading:
    def __init__(self, model: ChangeModel) -> None:
        self.model = model
        self.patch = model.patch
        self.old: list[_Seen] = []
        self.new: list[_Seen] = []
        self.unreadable: list[Weakening] = []
        self._deleted: list[Weakening] | None = None
        self._successors: set[int] = set()  # ids of new tests paired with a removed one: renamed or moved, not new
        self._new_sides: dict[tuple[int, int], Side] = {}
        added: list[FileView] = []
        for file in model.files:
            if not any(is_test_path(path) and not is_test_data(path) for path in file.change.paths):
                continue
            if file.change.is_added and not _FOCUS.search("\n".join(line for h in file.change.hunks for line in h.added)):
                added.append(file)  # a new test file weakens no test by itself; it may be where one moved to
            else:
                self._read(file)
        if added and any(seen.unit.kind == "test" and seen.unit.header_changed for seen in self.old):
            for file in added:
                self._read(file)
            self.new.sort(key=lambda seen: (seen.change, seen.hunk))  # patch order, as if read in turn

    def _read(self, file: FileView) -> None:
        change = file.change
        if change.is_deleted and (test_language(change.path) is None or not change.hunks):
            if _TEST_FILE.match(file_name(change.path)):
                self.unreadable.append(Weakening("deleted", change.path, "", "(a test file) was deleted"))
            return
        for which, seen in (("old", self.old), ("new", self.new)):
            path = file.path_on(which)  # type: ignore[arg-type]
            for hunk, unit in file.tests(which):  # type: ignore[arg-type]
                seen.append(_Seen(file.index, hunk.number, path, hunk.start(which), unit))  # type: ignore[arg-type]

    # --- assertions switched off

    def disabled(self) -> list[Weakening]:
        """Assertions a test keeps but no longer reaches: a `return` the change writes above them (code cut off, not
        a leftover copy: judge/code/deadcode.py), or a block it puts under a condition that is never true."""
        found = []
        # The hunks where some test (or fragment of one) has an assertion: a `return` or a never-true condition
        # anywhere else keeps no assertion from running, and looking for them there would read the side again.
        checking = {(s.change, s.hunk) for s in self.new if s.unit.kind in ("test", "fragment") and s.unit.checks}
        for file in self.model.files:
            if file.change.new_path is None or not any(s.change == file.index for s in self.new):
                continue
            for hunk in file.hunks:
                if (file.index, hunk.number) not in checking or not _may_switch_off(hunk.hunk):
                    continue
                side = self._new_side(file.index, hunk.number)
                offs = [*disabled_blocks(side, file.change.new_path),
                        *(d for d in unreachable_code(side, file.change.new_path) if not d.left)]
                for off in offs:
                    seen = self._unit_around(file.index, hunk.number, off.line)
                    if seen is not None and any(check.line > off.line for check in seen.unit.checks):
                        found.append(Weakening("disabled", seen.path, seen.label(off.line),
                                               f"no longer reaches its assertions: `{_short(off.text)}` comes first"))
        return found

    def _new_side(self, change: int, hunk: int) -> Side:
        """A hunk's new side, made once for this reading (a side is not kept by the model: see judge/code/change.py)."""
        side = self._new_sides.get((change, hunk))
        if side is None:
            side = self._new_sides[(change, hunk)] = self.model.files[change].hunks[hunk].new
        return side

    def _unit_around(self, change: int, hunk: int, line: int) -> _Seen | None:
        """The test (or the fragment of one) whose body holds the new side's ``line``."""
        around = [s for s in self.new if s.change == change and s.hunk == hunk and s.unit.line <= line
                  and s.unit.kind in ("test", "fragment")]
        return max(around, key=lambda s: s.unit.line, default=None)

    # --- deleted tests

    def deleted(self) -> list[Weakening]:
        """Tests (and test classes) whose header the change takes out: kept under their name, renamed or moved (paired
        by body, as git pairs renamed files by similarity), split or merged into tests that make the same assertions,
        or deleted. Read once: the pairs it finds are how ``marked`` knows a renamed test from a new one."""
        if self._deleted is None:
            self._deleted = self._find_deleted()
        return self._deleted

    def _find_deleted(self) -> list[Weakening]:
        tests = [seen for seen in self.new if seen.unit.kind == "test"]
        kept = {(seen.change, seen.unit.qualname) for seen in tests}
        moved = {seen.unit.name for seen in tests if seen.unit.header_changed}
        gone: dict[int, list[_Seen]] = {}
        found: list[Weakening] = []
        for seen in self.old:
            unit = seen.unit
            if unit.kind not in ("test", "group") or not unit.header_changed:
                continue
            if unit.kind == "group" or (seen.change, unit.qualname) in kept or unit.name in moved:
                found += self._regrouped(seen) if unit.kind == "group" else []
                continue
            partner = self._partner(seen)
            if partner is not None:
                self._successors.add(id(partner))
            if partner is not None and unit.collected and not self._collected(partner):
                found.append(self._uncollected(seen, partner))
                continue
            if unit.checks and all(self._kept_check(check) for check in unit.checks):
                continue  # every assertion it made is made by new tests: renamed, moved, split or merged
            if unit.checks and all(_skeleton(check) in self.table_skeletons for check in unit.checks):
                continue  # merged into a table-driven test (`it.each`, parametrize) that makes it over rows
            if unit.checks and all(self._kept_check(check) or check.shape in self.kept_shapes for check in unit.checks):
                found.append(Weakening("expected_edited", seen.path, seen.label(), "was replaced by a test that "
                                       "makes the same assertions with other values",
                                       code_edited=self._uses_edited_code([seen]), values=self._new_values(unit)))
                continue
            if partner is not None:  # renamed or moved: judged by what its assertions became
                found += self._rewritten(seen, partner)
                continue
            successor = self._renamed_in_place(seen) if all(self._kept_check(c) for c in unit.checks) else None
            if successor is not None:
                self._successors.add(id(successor))
                continue  # its title and first lines rewritten where it stood, the rest of it past the hunk unchanged
            if all(other.unit.name != unit.name for other in gone.get(seen.change, [])):
                gone.setdefault(seen.change, []).append(seen)
        return found + [w for change, seens in gone.items() for w in self._deletions(change, seens)]

    def _renamed_in_place(self, seen: _Seen) -> _Seen | None:
        """A new test's header takes the removed one's place and both go on past the end of the hunk: the body below,
        which the hunk does not show, is the same lines on both sides (find-my-way 8.2.0 renames a test and rewrites
        its setup, its assertions further down). A test deleted whole ends inside the hunk that removes it."""
        change = self.model.files[seen.change]
        old_side = change.hunks[seen.hunk].old
        if not runs_past(old_side, seen.unit.line, seen.path):
            return None
        new_side = self._new_side(seen.change, seen.hunk)
        return next((other for other in self.new_functions.in_hunk(seen.change, seen.hunk)
                     if abs(other.unit.line - seen.unit.line) <= _SAME_PLACE and other.unit.kind == "test"
                     and runs_past(new_side, other.unit.line, other.path)), None)

    def _rewritten(self, old: _Seen, new: _Seen) -> list[Weakening]:
        """A test renamed or moved whose assertions changed: weakened as any test's are, or else rewritten, which only
        a reading of the step can judge."""
        found = self._compare([old], [new]) if old.unit.complete and new.unit.complete else []
        if found:
            return found
        lost = [check for check in old.unit.checks if not self._kept_check(check)]
        if not lost:
            return []
        shown = ", ".join(f"`{_short(c.text)}`" for c in lost[:_SHOWN])
        return [Weakening("rewritten", new.path, old.label(), f"became {new.unit.label or new.unit.name} and no longer "
                          f"asserts {shown}", code_edited=self._uses_edited_code([old]))]

    def _input_edited_alike(self, seen: _Seen, old: Check, new: Check, checks: list[Check]) -> bool:
        """A line of the hunk that is no assertion (``checks``: the test's, both versions) and no comment makes the
        same edit as the expected value (`number: 42` -> `number: 43` beside `...42}` -> `...43}`): the test feeds
        another value and expects it back (pino-pretty 11.1.0). The edit is read as the changed word or words between
        the text both versions share. Two expected values edited alike, or a comment edited to match, excuse nothing."""
        edit = _edit_of(old.text, new.text)
        if edit is None:
            return False
        hunk = self.model.files[seen.change].hunks[seen.hunk].hunk
        before, after = edit

        def feeds(line: str, value: str) -> bool:
            return value in line and not line.lstrip().startswith(_COMMENT_OPENERS) \
                and not any(_part_of(line, check) for check in checks)

        removed = [line for line in hunk.removed if feeds(line, before)]
        added = [line for line in hunk.added if feeds(line, after)]
        return any(_edit_of(r, a) == edit for r in removed[:_EDITS_READ] for a in added[:_EDITS_READ])

    def _new_values(self, unit: TestUnit) -> tuple[str, ...]:
        """The literals that differ between a removed test's assertions and the new ones of the same shape."""
        by_shape = {check.shape: check for check in self._kept if check.shape}
        pairs = [(check, by_shape[check.shape]) for check in unit.checks
                 if not self._kept_check(check) and check.shape in by_shape]
        before: list[str] = []
        after: list[str] = []
        for old, new in pairs:
            values = _differing(old, new)
            before += values[:len(values) // 2]
            after += values[len(values) // 2:]
        return (*before, *after)

    def _kept_check(self, check: Check) -> bool:
        """The assertion is still made: a line the change keeps (it now runs in the test above), or one it writes."""
        return not check.changed or check.text in self.kept_checks

    def _regrouped(self, seen: _Seen) -> list[Weakening]:
        """A test class renamed out of pytest's `Test*` pattern (or given an `__init__`) while its tests stay."""
        partner = self._partner(seen)
        if partner is None or not seen.unit.collected or partner.unit.collected:
            return []
        return [self._uncollected(seen, partner)]

    def _partner(self, seen: _Seen) -> _Seen | None:
        return (self.new_classes if seen.unit.kind == "group" else self.new_functions).partner(seen)

    def _collected(self, seen: _Seen) -> bool:
        """The runner collects it: a test by its name and class, or a helper some test of the change calls."""
        unit = seen.unit
        if unit.kind == "helper":
            return unit.name in self.called
        return unit.collected

    def _uncollected(self, old: _Seen, new: _Seen) -> Weakening:
        runner = "pytest" if old.path.endswith(".py") else "the test runner"
        what = "the tests in it" if old.unit.kind == "group" else "it"
        return Weakening("uncollected", new.path, old.label(), f"was renamed to {new.unit.name}: {runner} no longer "
                         f"collects {what} (its body is kept)")

    def renamed_files(self) -> list[Weakening]:
        """A test file renamed to a name the runner does not collect (`tests/test_api.py` -> `tests/api_checks.py`)."""
        found = []
        for change in self.patch.files:
            old, new = change.old_path, change.new_path
            if old and new and old != new and _folder(old) == _folder(new) and _collected_file(old) \
                    and not _collected_file(new):
                found.append(Weakening("uncollected", old, "", f"was renamed to {new}, a name the test runner does "
                                       "not collect"))
        return found

    def _deletions(self, change: int, seens: list[_Seen]) -> list[Weakening]:
        imports = set().union(*(s.unit.names for s in self.old if s.change == change and s.unit.kind == "module"))
        path = seens[0].path
        if self.patch.files[change].is_deleted:
            names = [s.label() for s in seens]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            with_code = any(self._used_removed_code(s, imports) for s in seens)
            return [Weakening("deleted", path, "", f"was deleted, and with it {_count(len(names), 'test')} "
                              f"({shown})", with_code)]
        return [Weakening("deleted", path, s.label(), "was deleted",
                          self._used_removed_code(s, imports) or self._used_resigned_code(s))
                for s in seens]

    # A unit's names and locals are read (a JS unit's on first ask) only where the change removed or re-signed code:
    # a change to tests alone has none for them to meet.
    def _used_removed_code(self, seen: _Seen, imports: set[str]) -> bool:
        return bool(self.removed_code) and bool((seen.unit.names | imports) & self.removed_code)

    def _used_resigned_code(self, seen: _Seen) -> bool:
        return bool(self.resigned_code) and bool((seen.unit.names - seen.unit.locals) & self.resigned_code)

    # --- skip and focus marks

    def marked(self) -> list[Weakening]:
        self.deleted()  # the renamed tests: a skip mark a renamed test gains skips a test that was there
        found = []
        for seen in self.new:
            before = self._before(seen)
            for mark in seen.unit.marks:
                if not mark.changed or any(mark.key == m.key for old in before for m in old.unit.marks):
                    continue
                if mark.kind == "skip" and not (before or id(seen) in self._successors or self._always_there(seen)):
                    continue  # a new test that starts skipped weakens nothing that was there
                found.append(Weakening("focused" if mark.kind == "only" else "skipped", seen.path,
                                       seen.label(mark.line), f"gained {mark.text}"
                                       + (" (every other test stops running)" if mark.kind == "only" else "")))
        return found

    def _always_there(self, seen: _Seen) -> bool:
        """A fragment or a module's own marks belong to a file that existed before unless the change adds it."""
        return seen.unit.kind in ("fragment", "module") and not self.patch.files[seen.change].is_added

    # --- assertions

    def checked(self) -> list[Weakening]:
        found = []
        news: dict[tuple[str | int, ...], list[_Seen]] = {}
        for seen in self.new:
            if seen.unit.kind in ("test", "helper", "fragment"):
                news.setdefault(seen.key, []).append(seen)
        for new in news.values():
            old = self._before(new[0])
            was_collected = any(o.unit.collected and o.unit.kind == "test" for o in old)
            if was_collected and not any(self._collected(n) for n in new):
                found.append(Weakening("uncollected", new[0].path, new[0].label(), "is no longer collected by the "
                                       "test runner: its class left the `Test*` pattern or no longer runs"))
            if old and all(seen.unit.complete for seen in old + new):
                found += self._compare(old, new)
        for key, old in self.old_by_key.items():  # code inside a test above the hunk whose every assertion went
            if old[0].unit.kind == "fragment" and key not in news and all(seen.unit.complete for seen in old):
                found += self._compare(old, [])
        return found

    def _before(self, seen: _Seen) -> list[_Seen]:
        """The old versions of the unit: in its own file, or, for a test moved in, in the file it left."""
        same = self.old_by_key.get(seen.key, [])
        if same or seen.unit.kind != "test" or not seen.unit.header_changed:
            return same
        return self.moved_out.get(seen.unit.name, [])

    def _compare(self, old: list[_Seen], new: list[_Seen]) -> list[Weakening]:
        before = [(seen, check) for seen in old for check in seen.unit.checks]
        after = [(seen, check) for seen in new for check in seen.unit.checks]
        gone, came = _unmatched(before, after), _unmatched(after, before)
        found = self._swallowed(after)
        for seen, check in came if gone else ():  # a tautology weakens a test when it takes an assertion's place
            if check.tautology:
                found.append(Weakening("tautology", seen.path, seen.label(check.line),
                                       f"now asserts `{_short(check.text)}`, which holds whatever the code does"))
                break
        else:
            found += self._weakened(gone, came)
        for _, removed in gone:
            edited = next(((seen, c) for seen, c in came if _only_expected_differs(removed, c)), None)
            if edited is not None:
                seen, check = edited
                found.append(Weakening("expected_edited", seen.path, seen.label(check.line),
                                       f"had its expected value edited: `{_short(removed.text)}` became "
                                       f"`{_short(check.text)}`", code_edited=self._uses_edited_code(new, check),
                                       values=_differing(removed, check),
                                       input_edited=self._input_edited_alike(
                                           seen, removed, check, [c for _, c in before + after])))
        # An assertion made elsewhere in the change still counts as kept (a test split, merged or renamed), unless
        # the test itself is still there and left with none: a test pasted into it took its assertions, unchanged
        # lines below the new `def` (what the hunk shows of the test on one side it shows on the other).
        emptied = bool(new) and not after and all(seen.unit.kind == "test" for seen in new)
        lost = self._lost(before, after, gone, emptied) if len(after) < len(before) and not came else []
        if lost and not self._excused(new):
            quoted = ", ".join(f"`{_short(c.text)}`" for c in lost[:_SHOWN])
            with_code = any(set(_WORD.findall(c.text)) & self.removed_code for c in lost)
            where = (new or old)[0]
            found.append(Weakening("assertions_removed", where.path, where.label(),
                                   f"lost {len(before) - len(after)} of its {len(before)} assertions: {quoted}",
                                   with_code))
        return found

    def _lost(self, before: list[tuple[_Seen, Check]], after: list[tuple[_Seen, Check]],
              gone: list[tuple[_Seen, Check]], emptied: bool) -> list[Check]:
        """The assertions a test no longer makes, here or anywhere in the change."""
        if emptied:
            return [c for _, c in before]
        if not gone:
            return []
        # the test still makes it (a duplicate dropped: `pytest.raises(X)` twice), by text or leaf by leaf
        still = {_same(c) for _, c in after} | {(c.text,) for _, c in after}
        return [c for _, c in gone if c.text not in self.kept_checks and c.shape not in self.kept_shapes
                and _same(c) not in still and (c.text,) not in still]

    def _excused(self, new: list[_Seen]) -> bool:
        """Fewer assertions for a reason: a helper the change writes them into, a skip or todo mark it adds (said
        already), an assertion moved up out of a helper, or a test made table-driven."""
        delegated = bool(self.helpers) and any(seen.unit.names & self.helpers for seen in new)
        marked = any(mark.changed for seen in new for mark in seen.unit.marks)  # `it.todo` has no body: said already
        return delegated or marked or self._moved_up(new) or self._table_driven(new)

    def _table_driven(self, new: list[_Seen]) -> bool:
        """The change makes the test table-driven (`@pytest.mark.parametrize`, `it.each`): one assertion over rows now
        does what several did."""
        for seen in new:
            if seen.unit.kind != "test":
                continue
            side = self._new_side(seen.change, seen.hunk)
            if any(side.changed[i] and _TABLE.search(side.lines[i]) for i in _decorated(side.lines, seen.unit.line)):
                return True
        return False

    def _moved_up(self, new: list[_Seen]) -> bool:
        """A helper (a command defined inside a test, say) whose assertion the test around it now makes itself: the
        same hunk gains an assertion in another unit."""
        if not new or any(seen.unit.kind != "helper" for seen in new):
            return False
        where = {(seen.change, seen.hunk) for seen in new}
        helpers = {id(seen) for seen in new}  # identity: equal units compare every (lazy) field
        return any(check.changed for seen in self.new if (seen.change, seen.hunk) in where and id(seen) not in helpers
                   for check in seen.unit.checks)

    def _weakened(self, gone: list[tuple[_Seen, Check]], came: list[tuple[_Seen, Check]]) -> list[Weakening]:
        """An assertion that pinned a value replaced by one that holds for other values too: the same subject now
        only checked to exist, be truthy, differ from something or have a type; or every new assertion weaker."""
        pinned = [c for _, c in gone if not (c.weak or c.tautology or c.swallowed) and c.text not in self.kept_checks]
        if not pinned:
            return []
        weaker = [(seen, c) for seen, c in came if c.weak and not c.tautology]
        if not weaker:
            return []
        only_weaker = all(c.weak or c.tautology for _, c in came)
        for seen, check in weaker:
            # `assert x == True` written `assert x`, `t.is(x, null)` written `t.falsy(x)`: truthiness says as much
            loses = [c for c in pinned if c.truth is None or c.truth != check.truth]
            replaced = next((c for c in loses if check.subject and c.subject == check.subject), None)
            if replaced is None and only_weaker and loses and not any(c.subject == check.subject for c in pinned):
                replaced = loses[0]
            if replaced is not None:
                return [Weakening("weakened", seen.path, seen.label(check.line),
                                  f"had `{_short(replaced.text)}` replaced by the weaker `{_short(check.text)}`, "
                                  "which also holds for other values")]
        return []

    def _swallowed(self, after: list[tuple[_Seen, Check]]) -> list[Weakening]:
        for seen, check in after:
            if check.swallowed:
                return [Weakening("swallowed", seen.path, seen.label(check.line),
                                  f"now runs `{_short(check.text)}` inside a try whose handler swallows its failure")]
        return []

    def _uses_edited_code(self, seens: list[_Seen], check: Check | None = None) -> bool:
        """The code the test checks was edited, so its expected values may honestly follow: a name the edited
        assertion itself uses (not a variable of the test, not the assertion's own vocabulary) is on a changed line
        of a non-test file, or names the function a change sits in; when the assertion names nothing of the code
        (`expect(result).toBe(...)`), any name of the test in the change's non-test hunks."""
        if not self.edited_code:  # no non-test hunk: no name to find there (edited_names holds none either)
            return False
        bound = set().union(*(seen.unit.locals for seen in seens))
        own = {name for name in check.names if not _is_vocabulary(name)} - bound if check is not None else set()
        if own:
            return bool(own & self.edited_names)
        return any((seen.unit.names - _COMMON - bound) & self.edited_code for seen in seens)

    # --- shared facts, computed once when needed

    @cached_property
    def edited_names(self) -> frozenset[str]:
        """Names on the changed lines of non-test, non-documentation files, and of the definitions their hunks show
        (the function a change sits in: in the hunk, or git's function context in its header)."""
        words: set[str] = set()
        for change in self._code_changes:
            for hunk in change.hunks:
                words.update(_WORD.findall(hunk.section))
                for line in hunk.body:
                    if line[0] in "+-" or _DEFINITION.search(line):
                        words.update(_WORD.findall(line))
        return frozenset(words)

    @cached_property
    def _code_changes(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.patch.files if not (is_test_path(c.path) or _DOCS.search(c.path)))

    @cached_property
    def edited_code(self) -> frozenset[str]:
        """Every name in the hunks of the non-test, non-documentation files the change edits, and in their headers."""
        words: set[str] = set()
        for change in self._code_changes:
            for hunk in change.hunks:
                words.update(_WORD.findall(hunk.section))
                for line in hunk.body:
                    words.update(_WORD.findall(line))
        return frozenset(words)

    @cached_property
    def helpers(self) -> frozenset[str]:
        """Functions of test files (not tests) in which the change writes assertions: a test calling one keeps its
        assertions there (an `assert_valid(response)` helper extracted from several tests)."""
        return frozenset(seen.unit.name for seen in self.new
                         if seen.unit.kind == "helper" and any(check.changed for check in seen.unit.checks))

    @cached_property
    def fresh(self) -> tuple[_Seen, ...]:
        """Tests the change adds: their header is a new line and no test of that name was there before."""
        before = {seen.unit.name for seen in self.old if seen.unit.kind == "test"}
        return tuple(seen for seen in self.new
                     if seen.unit.kind == "test" and seen.unit.header_changed and seen.unit.name not in before)

    @cached_property
    def new_functions(self) -> _NewDefinitions:
        """Tests and helpers whose header the change writes under a name that file did not have."""
        return self._new_definitions(("test", "helper"))

    @cached_property
    def new_classes(self) -> _NewDefinitions:
        return self._new_definitions(("group",))

    def _new_definitions(self, kinds: tuple[str, ...]) -> _NewDefinitions:
        before = {(seen.change, seen.unit.qualname) for seen in self.old if seen.unit.kind in kinds}
        return _NewDefinitions(tuple(seen for seen in self.new if seen.unit.kind in kinds and seen.unit.header_changed
                                     and (seen.change, seen.unit.qualname) not in before))

    @cached_property
    def called(self) -> frozenset[str]:
        """Names the new side's tests use: a helper one of them calls is run through it."""
        return frozenset(name for seen in self.new if seen.unit.kind in ("test", "fragment", "helper")
                         for name in seen.unit.names)

    @cached_property
    def _kept(self) -> tuple[Check, ...]:
        """Assertions the change writes (added lines) or keeps in tests it adds (a renamed test's unchanged lines)."""
        added = [check for seen in self.new for check in seen.unit.checks if check.changed]
        return (*added, *(check for seen in self.fresh for check in seen.unit.checks))

    @cached_property
    def table_skeletons(self) -> frozenset[str]:
        """The assertions of the table-driven tests the change writes, their names and values masked."""
        return frozenset(_skeleton(check) for seen in self.new if seen.unit.kind == "test" and seen.unit.header_changed
                         and self._table_driven([seen]) for check in seen.unit.checks)

    @cached_property
    def kept_checks(self) -> frozenset[str]:
        return frozenset(check.text for check in self._kept)

    @cached_property
    def kept_shapes(self) -> frozenset[str]:
        return frozenset(check.shape for check in self._kept if check.shape)

    @cached_property
    def old_by_key(self) -> dict[tuple[str | int, ...], list[_Seen]]:
        grouped: dict[tuple[str | int, ...], list[_Seen]] = {}
        for seen in self.old:
            grouped.setdefault(seen.key, []).append(seen)
        return grouped

    @cached_property
    def moved_out(self) -> dict[str, list[_Seen]]:
        """Tests whose header the change takes out of a file, by name: where a test moved to another file comes from."""
        new_keys = {seen.key for seen in self.new}
        grouped: dict[str, list[_Seen]] = {}
        for seen in self.old:
            if seen.unit.kind == "test" and seen.unit.header_changed and seen.key not in new_keys:
                grouped.setdefault(seen.unit.name, []).append(seen)
        return grouped

    @cached_property
    def removed_code(self) -> frozenset[str]:
        """Names of definitions the change takes out of non-test files, and of modules it deletes, that no line it
        adds outside tests defines or uses again: the code a deleted test tested is gone."""
        removed: set[str] = set()
        added: set[str] = set()
        for change in self.patch.files:
            source = not is_test_path(change.path)
            if change.is_deleted and source:
                path = PurePosixPath(change.path)
                removed.update({path.stem, path.parent.name} if path.stem == "index" else {path.stem})
            for hunk in change.hunks:
                if source:
                    removed.update(_definitions(hunk.removed))
                    added.update(word for line in hunk.added for word in _WORD.findall(line))
                else:
                    added.update(_definitions(hunk.added))
        return frozenset(removed - added)

    @cached_property
    def resigned_code(self) -> frozenset[str]:
        """Functions and typed fields whose signature the change rewrites (`def run(cmd)` -> `def run(cmd, *, timeout)`,
        `urls: Dict[str, str]` -> `urls: Optional[Dict[str, str]]`): a test of the old signature may no longer apply."""
        old: dict[str, set[str]] = {}
        new: dict[str, set[str]] = {}
        for change in self._code_changes:
            for hunk in change.hunks:
                _signatures(hunk.removed, old)
                _signatures(hunk.added, new)
        return frozenset(name for name, lines in old.items() if lines != new.get(name, lines))


class _NewDefinitions:
    """The definitions a change writes under new names, indexed by their body lines and by hunk, to find in one pass
    what a removed definition became, as git pairs a deleted file with an added one by shared content."""

    def __init__(self, seens: tuple[_Seen, ...]) -> None:
        self.seens = seens
        self.lines = [_body_lines(seen.unit.body) for seen in seens]
        self.by_line: dict[str, list[int]] = {}
        self.by_hunk: dict[tuple[int, int], list[int]] = {}
        for index, (seen, lines) in enumerate(zip(seens, self.lines)):
            self.by_hunk.setdefault((seen.change, seen.hunk), []).append(index)
            for line in lines:
                self.by_line.setdefault(line, []).append(index)

    def in_hunk(self, change: int, hunk: int) -> list[_Seen]:
        return [self.seens[index] for index in self.by_hunk.get((change, hunk), ())]

    def partner(self, seen: _Seen) -> _Seen | None:
        """The new definition a removed one became: in this file or another, one whose body shares most of its lines
        (more than half when it takes the same place), or one that takes its place under a name that extends it."""
        lines = _body_lines(seen.unit.body)
        shared: Counter[int] = Counter(index for line in lines for index in self.by_line.get(line, ()))
        scores = {index: count / max(len(lines), len(self.lines[index])) for index, count in shared.items()}
        for index in self.by_hunk.get((seen.change, seen.hunk), ()):
            candidate = self.seens[index]
            near = abs(candidate.unit.line - seen.unit.line) <= _SAME_PLACE
            if near and _related(seen.unit.name, candidate.unit.name):
                scores[index] = max(scores.get(index, 0.0), _IN_PLACE)  # renamed where it stood
        best, best_score = None, 0.0
        for index, score in scores.items():
            candidate = self.seens[index]
            in_place = (candidate.change, candidate.hunk) == (seen.change, seen.hunk)
            if score > best_score and score >= (_IN_PLACE if in_place else _ELSEWHERE):
                best, best_score = candidate, score
        return best


_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "function", "else", "do", "try", "with"})


_VOCABULARY = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset({
    "self", "this", "t", "assert", "expect", "pytest", "not", "resolves", "rejects", "is", "deepEqual", "strictEqual",
    "deepStrictEqual", "equal", "notEqual", "ok", "same", "like", "truthy", "falsy", "throws", "should", "eql"})


def _is_vocabulary(name: str) -> bool:
    """A name of the language or of the assertion (`assertEqual`, `toBe`, `t.is`), not of the code under test."""
    return name in _VOCABULARY or name.startswith("assert") or re.match(r"to[A-Z]", name) is not None


def _may_switch_off(hunk: Hunk) -> bool:
    """The first look of ``_Reading.disabled``, on a hunk's lines (its new side is not made unless this holds): a
    `return` on any line, or an added line that may open a block no run enters. judge/code/deadcode.py finds no
    return after which code is cut off in a new side without the word `return` (both its readers look for it in the
    side's text first), and no never-true block but one opened on a changed line that disabled_blocks' own first look
    finds."""
    return "return" in "\n".join(hunk.body) or may_switch_off("\n".join(hunk.added))


def _definitions(lines: tuple[str, ...]) -> set[str]:
    names = set()
    for line in lines:
        for match in _DEFINITION.finditer(line):
            names.add(match[1] or match[2] or match[3])
    return names - _KEYWORDS


_IN_PLACE, _ELSEWHERE = 0.5, 0.6  # share of body lines a renamed (in place) or moved definition keeps
_SAME_PLACE = 3  # lines between a removed header and the added one that takes its place
_TRIVIAL_LINE = 3  # `})`, `}`, `);`: lines every body has say nothing about which one it is
# pytest's default python_files; a JS test file by its runner's usual patterns, and not `_`-prefixed (AVA skips those)
_PYTEST_FILE = lazy_compile(r"^(?:test_.*|.*_test)\.py$")


def _collected_file(path: str) -> bool:
    name = file_name(path)
    if name.endswith(".py"):
        return _PYTEST_FILE.match(name) is not None
    if test_language(path) in ("javascript", "typescript", "tsx"):
        return is_test_path(path) and not name.startswith("_")
    return is_test_path(path)


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _related(old: str, new: str) -> bool:
    """Two test names one reads as the same test: one's words begin the other's (`test_empty` and
    `test_empty_stop_iteration`, `z.custom` and `z.custom schema`)."""
    a, b = _name_words(old), _name_words(new)
    shorter, longer = sorted((a, b), key=len)
    return bool(shorter) and longer[:len(shorter)] == shorter


def _name_words(name: str) -> list[str]:
    words = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name.replace("_", " "))
    return [w.lower() for w in words if w.lower() not in ("test", "tests", "it", "should")]


def _body_lines(body: str) -> frozenset[str]:
    return frozenset(line for line in body.split("\n") if len(line) > _TRIVIAL_LINE)


def _unmatched(checks: list[tuple[_Seen, Check]], others: list[tuple[_Seen, Check]]) -> list[tuple[_Seen, Check]]:
    """The changed checks of ``checks`` that no check of ``others`` makes, counted one for one (two `t.pass()` are two
    assertions), unchanged ones matched first."""
    left: dict[tuple[str, ...], int] = {}  # a dict, not a Counter: most tests make a few assertions
    for _, check in others:
        key = _same(check)
        left[key] = left.get(key, 0) + 1
    keys = [_same(check) for _, check in checks]
    for (_, check), key in zip(checks, keys):
        if not check.changed and left.get(key):
            left[key] -= 1
    found = []
    for (seen, check), key in zip(checks, keys):
        if check.changed:
            if left.get(key):
                left[key] -= 1
            else:
                found.append((seen, check))
    return found


def _decorated(lines: tuple[str, ...], header: int) -> range:
    """The lines of a test's header and of the decorators above it: up to the blank line or the code before them."""
    indent = len(lines[header]) - len(lines[header].lstrip()) if header < len(lines) else 0
    first = header
    for index in range(header - 1, max(-1, header - _DECORATORS_SEEN), -1):
        line = lines[index]
        if not line.strip() or len(line) - len(line.lstrip()) <= indent and not line.lstrip().startswith(("@", ")")):
            break
        first = index
    return range(first, header + 1)


_VALUE = lazy_compile(r"""\b[A-Za-z_$][\w$]*\b(?!\s*\()|-?\b\d[\w.]*|"[^"]*"|'[^']*'|`[^`]*`""")


def _skeleton(check: Check) -> str:
    """The assertion with its names and values masked, its calls kept: `expect(add(1, 2)).toBe(3)` and
    `expect(add(a, b)).toBe(sum)` are one skeleton, what one row of a table makes."""
    return _VALUE.sub("·", check.text)


def _same(check: Check) -> tuple[str, ...]:
    """What makes two assertions the same: their syntax leaf by leaf, strings by value (a reformat that swaps quotes
    or spacing changes nothing), where the check was read that far; else its text."""
    return check.tokens or (check.text,)


def _differing(old: Check, new: Check) -> tuple[str, ...]:
    """The literals an expected-value edit changed: before, then after."""
    pairs = [(a, b) for a, b in zip(old.tokens, new.tokens) if a != b]
    return tuple(a for a, _ in pairs) + tuple(b for _, b in pairs)


def _signatures(lines: tuple[str, ...], into: dict[str, set[str]]) -> None:
    """The functions and typed fields lines define, each with its defining lines (whitespace-collapsed), gathered
    ``into``; classes, interfaces and the like are not signatures."""
    for line in lines:
        found = [m[1] or m[2] or m[3] for m in _DEFINITION.finditer(line) if not _TYPE_KEYWORD.match(m[0])]
        declared = _DECLARATION.match(line)
        for name in found + ([declared[1]] if declared else []):
            if name not in _KEYWORDS and not keyword.iskeyword(name):
                into.setdefault(name, set()).add(" ".join(line.split()))


def _only_expected_differs(old: Check, new: Check) -> bool:
    """The two versions of an assertion differ only in literals on the expected side."""
    if len(old.tokens) != len(new.tokens) or not old.slots:
        return False
    differ = [i for i, (a, b) in enumerate(zip(old.tokens, new.tokens)) if a != b]
    return bool(differ) and all(i in old.slots and i in new.slots for i in differ)


_EDITS_READ = 40  # removed and added lines of a hunk compared with an expected value's edit, each way
_COMMENT_OPENERS = ("#", "//", "/*", "*")


def _part_of(line: str, check: Check) -> bool:
    """The line is (a line of) the assertion: its text, but for the `;` or `,` that ends a statement or an argument."""
    text = normalised(line).rstrip(";,")
    return text in check.text or check.text in text


def _edit_of(old: str, new: str) -> tuple[str, str] | None:
    """What an edit of a line changed: the part between the text both versions begin and end with, widened to whole
    words (`"n":42}` -> `"n":43}` is `42` -> `43`); None when one side of it is empty or blank."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    while start and (old[start - 1].isalnum() or old[start - 1] == "_"):
        start -= 1
    while end and (old[-end].isalnum() or old[-end] == "_"):
        end -= 1
    before, after = old[start:len(old) - end], new[start:len(new) - end]
    return (before, after) if before.strip() and after.strip() else None


def _short(text: str) -> str:
    return text if len(text) <= 70 else text[:67] + "..."


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")

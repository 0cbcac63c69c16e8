"""The tests a hunk side holds: each test (or test class, describe block, helper) with its assertions and its skip or
focus marks, for the detector of weakened tests (judge/code/weakening.py).

A side is a fragment of a file: it may start inside a test whose header is above the hunk and end
inside another. A reader returns every unit whose header it sees, and one ``fragment`` unit for the
code above the first header that sits inside a block it cannot see (the hunk header's function
context names it where git gives one).

- Python (pytest, unittest): ``ast`` on the side's text (judge/code/_tests_python.py). A side that
  starts inside a block is wrapped so its lines keep their nesting; one that does not parse is cut
  where the parser stops, and the parts are parsed again; lines no part covers are read by a line
  lexer for test headers and skip decorators only.
- JavaScript/TypeScript (Jest, Vitest, Mocha, AVA, node:test): tree-sitter, error-tolerant, on the
  side with its open brackets closed (judge/code/_tests_js.py).
- Go, Rust, Java: a line lexer that blanks strings and comments (judge/code/_tests_lexer.py).

Strings and comments are never code: ``# pytest.skip(`` or ``"it.only("`` marks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal

from judge.code.sides import Side
from judge.lazy_pattern import lazy_compile
from judge.patch.paths import file_suffix

__all__ = ["Check", "Mark", "TestUnit", "UnitDraft", "normalised", "runs_past", "skip_aliases", "test_language",
           "test_units"]

Kind = Literal["test", "group", "helper", "fragment", "module"]


class Check:
    """One assertion: ``assert x == 1``, ``self.assertEqual(...)``, ``expect(x).toBe(1)``, ``t.is(...)``, ``t.Errorf(...)``.

    What a changed check is made of (``tokens`` to ``names``) and what it pins down (``tautology``, ``weak``,
    ``subject``, ``truth``) may each be given as a function that reads all of it at once (``leaves``, ``meaning``),
    called the first time one of its fields is asked for: a reader that can keep what it needs for that (a Python
    expression's own subtree) leaves undone the reading of the checks nobody compares, and what a check pins down is
    asked for only when an assertion went."""

    __slots__ = ("text", "line", "changed", "swallowed", "_leaves", "_tokens", "_slots", "_shape", "_names",
                 "_meaning", "_tautology", "_weak", "_subject", "_truth")

    text: str  # its source, whitespace collapsed
    line: int  # index of its first line in the side
    changed: bool  # it touches a changed line of the side
    swallowed: bool  # it runs inside a `try` whose changed handler swallows its failure (`except: pass`)

    def __init__(self, text: str, line: int, changed: bool, tautology: bool = False, tokens: tuple[str, ...] = (),
                 slots: frozenset[int] = frozenset(), shape: str = "", names: frozenset[str] = frozenset(),
                 weak: bool = False, subject: str = "", truth: bool | None = None, swallowed: bool = False, *,
                 leaves: Callable[[], Leaves] | None = None, meaning: Callable[[], Meaning] | None = None) -> None:
        self.text, self.line, self.changed, self.swallowed = text, line, changed, swallowed
        self._leaves, self._tokens, self._slots, self._shape, self._names = leaves, tokens, slots, shape, names
        self._meaning, self._tautology, self._weak, self._subject, self._truth = meaning, tautology, weak, subject, truth

    def _read_leaves(self) -> None:
        read, self._leaves = self._leaves, None
        self._tokens, self._slots, self._shape, self._names = read()  # type: ignore[misc]

    def _read_meaning(self) -> None:
        read, self._meaning = self._meaning, None
        self._tautology, self._weak, self._subject, self._truth = read()  # type: ignore[misc]

    @property
    def tokens(self) -> tuple[str, ...]:
        """Its syntax leaf by leaf, literals by value."""
        if self._leaves is not None:
            self._read_leaves()
        return self._tokens

    @property
    def slots(self) -> frozenset[int]:
        """Indexes in ``tokens`` of the literals on its expected side."""
        if self._leaves is not None:
            self._read_leaves()
        return self._slots

    @property
    def shape(self) -> str:
        """Its syntax with every literal masked: the same check with other values has the same shape."""
        if self._leaves is not None:
            self._read_leaves()
        return self._shape

    @property
    def names(self) -> frozenset[str]:
        """The identifiers it uses (not its literals), for a changed check."""
        if self._leaves is not None:
            self._read_leaves()
        return self._names

    @property
    def tautology(self) -> bool:
        """True whatever the code does: `assert True`, `expect(x).toBe(x)`, `t.pass()`."""
        if self._meaning is not None:
            self._read_meaning()
        return self._tautology

    # What a changed check pins down, to tell an assertion replaced by a weaker one:
    @property
    def weak(self) -> bool:
        """Holds for many values: existence, truthiness, inequality, a type (`is not None`, `t.not`)."""
        if self._meaning is not None:
            self._read_meaning()
        return self._weak

    @property
    def subject(self) -> str:
        """The value it checks, spaces removed: `parse_port("80")` of `assert parse_port("80") == 80`."""
        if self._meaning is not None:
            self._read_meaning()
        return self._subject

    @property
    def truth(self) -> bool | None:
        """What truthiness alone would say of it: `== True`, `assert x` True; `is None`, `== 0`, `assert not x` False;
        None when it pins more (an `assert x == True` written `assert x` says as much)."""
        if self._meaning is not None:
            self._read_meaning()
        return self._truth

    def _values(self) -> tuple[object, ...]:
        return (self.text, self.line, self.changed, self.tautology, self.tokens, self.slots, self.shape, self.names,
                self.weak, self.subject, self.truth, self.swallowed)

    def __eq__(self, other: object) -> bool:
        return other is self or isinstance(other, Check) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"Check{self._values()!r}"


Leaves = tuple[tuple[str, ...], frozenset[int], str, frozenset[str]]  # tokens, slots, shape, names
Meaning = tuple[bool, bool, str, "bool | None"]  # tautology, weak, subject, truth


@dataclass(frozen=True)
class Mark:
    """A mark that stops a test from running (``skip``: skip, xfail, todo, ignore) or stops the others (``only``)."""

    kind: Literal["skip", "only"]
    key: str  # what kind of mark, to tell whether the test had it before: `pytest.mark.skip`, `it.only`
    text: str  # as written, whitespace collapsed, for the reason
    line: int
    changed: bool


class TestUnit:
    """A test, test class, describe block, helper, the fragment of a test above the hunk, or the module's own marks.

    ``body``, ``names`` and ``locals`` may each be given as a function of no argument, called the first time the
    field is read: only a definition the change renames or removes is paired by its body, and only a few are asked
    what code they use, while reading those out of every unit cost more than finding the units."""

    __test__ = False  # pytest: not a test class
    __slots__ = ("name", "kind", "line", "header_changed", "label", "_body", "checks", "marks", "_names", "complete",
                 "_locals", "collected", "owner")

    name: str  # the test function's name, the test's title; for a fragment, the hunk's function context or ""
    kind: Kind  # helper: another function in a test file; module: the file's own marks (pytestmark)
    line: int  # index in the side of its header
    header_changed: bool  # the header line itself is a changed line of the side
    label: str  # how a reason names it: `test_login`, `it("logs in")`, `describe("api")`
    checks: tuple[Check, ...]
    marks: tuple[Mark, ...]
    complete: bool  # every changed line of the side was read by the parser
    collected: bool  # the runner collects it by its name and place (pytest: `test*` in a `Test*` class)
    owner: str  # the class it is a method of, where the side or git's hunk header shows one

    def __init__(self, name: str, kind: Kind, line: int, header_changed: bool, label: str = "",
                 body: str | Callable[[], str] = "", checks: tuple[Check, ...] = (), marks: tuple[Mark, ...] = (),
                 names: frozenset[str] | Callable[[], frozenset[str]] = frozenset(), complete: bool = True,
                 locals: frozenset[str] | Callable[[], frozenset[str]] = frozenset(), collected: bool = True,
                 owner: str = "") -> None:
        self.name, self.kind, self.line, self.header_changed, self.label = name, kind, line, header_changed, label
        self._body, self.checks, self.marks, self._names, self.complete = body, checks, marks, names, complete
        self._locals, self.collected, self.owner = locals, collected, owner

    @property
    def body(self) -> str:
        """Its body, each line whitespace-collapsed, for telling a renamed or moved test."""
        if callable(self._body):
            self._body = self._body()
        return self._body

    @property
    def names(self) -> frozenset[str]:
        """Identifiers it uses: the code it tests."""
        if callable(self._names):
            self._names = self._names()
        return self._names

    @property
    def locals(self) -> frozenset[str]:
        """Names it binds itself (variables, parameters): not code under test."""
        if callable(self._locals):
            self._locals = self._locals()
        return self._locals

    @property
    def qualname(self) -> str:
        """Its name in its file: `FirstTests.test_empty` and `LastTests.test_empty` are two tests."""
        return f"{self.owner}.{self.name}" if self.owner else self.name

    def _values(self) -> tuple[object, ...]:
        return (self.name, self.kind, self.line, self.header_changed, self.label, self.body, self.checks, self.marks,
                self.names, self.complete, self.locals, self.collected, self.owner)

    def __eq__(self, other: object) -> bool:
        return other is self or isinstance(other, TestUnit) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"TestUnit{self._values()!r}"


@dataclass
class UnitDraft:
    """A test unit while a reader fills it in; ``freeze`` makes the TestUnit the detectors read."""

    name: str
    kind: str
    line: int
    header_changed: bool = False
    label: str = ""
    body: str | Callable[[], str] = ""
    checks: list[Check] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    locals: set[str] = field(default_factory=set)
    collected: bool = True
    owner: str = ""
    words: Callable[[], tuple[frozenset[str], frozenset[str]]] | None = None  # names and locals, read when asked for

    def freeze(self, complete: bool = True) -> TestUnit:
        names: frozenset[str] | Callable[[], frozenset[str]] = frozenset(self.names)
        bound: frozenset[str] | Callable[[], frozenset[str]] = frozenset(self.locals)
        if self.words is not None:
            later = _Words(self.words)
            names, bound = later.names, later.locals
        return TestUnit(self.name, self.kind, self.line, self.header_changed,  # type: ignore[arg-type]
                        self.label or self.name, self.body, tuple(self.checks), tuple(self.marks),
                        names, complete, bound, self.collected, self.owner)


class _Words:
    """A unit's names and locals, read together the first time either is asked for."""

    __slots__ = ("_read", "_found")

    def __init__(self, read: Callable[[], tuple[frozenset[str], frozenset[str]]]) -> None:
        self._read = read
        self._found: tuple[frozenset[str], frozenset[str]] | None = None

    def names(self) -> frozenset[str]:
        if self._found is None:
            self._found = self._read()
        return self._found[0]

    def locals(self) -> frozenset[str]:
        if self._found is None:
            self._found = self._read()
        return self._found[1]


_LANGUAGES = {
    ".py": "python", ".go": "go", ".rs": "rust", ".java": "java",
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
}


def test_language(path: str) -> str | None:
    """``python``, ``javascript``, ``typescript``, ``tsx``, ``go``, ``rust`` or ``java``; None when no reader knows it."""
    return _LANGUAGES.get(file_suffix(path).lower())


def test_units(side: Side, path: str, context: str = "", aliases: Aliases = None) -> tuple[TestUnit, ...]:
    """The test units of one side of a hunk of ``path``; ``context`` is the hunk header's function context,
    ``aliases`` what the file's other hunks bind to skip marks or test functions (``skip_aliases``)."""
    language = test_language(path)
    if language == "python":
        from judge.code import _tests_python

        return _tests_python.units(side, context, aliases)  # type: ignore[arg-type]
    if language in ("javascript", "typescript", "tsx"):
        from judge.code import _tests_js

        return _tests_js.units(side, language, context, aliases)  # type: ignore[arg-type]
    if language is not None:
        from judge.code import _tests_lexer

        return _tests_lexer.units(side, language, _context_name(language, context))
    return ()


Aliases = "dict[str, str] | dict[str, list[str]] | None"


def runs_past(side: Side, header: int, path: str) -> bool:
    """The definition whose header is the side's line ``header`` is still open at the side's last line: its body goes
    on past the hunk. Python by indentation (every line after the header that is not blank is indented deeper),
    JavaScript/TypeScript by brackets (those the header opens are not all closed again); False for other languages
    or when the side does not tell."""
    lines = side.lines
    if header >= len(lines):
        return False
    language = test_language(path)
    if language == "python":
        indent = len(lines[header]) - len(lines[header].lstrip())
        after = [line for line in lines[header + 1:] if line.strip()]
        return bool(after) and all(len(line) - len(line.lstrip()) > indent for line in after)
    if language in ("javascript", "typescript", "tsx"):
        from judge.code import _tests_js

        return _tests_js.left_open(lines[header:])
    return False


def skip_aliases(path: str, text: str) -> Aliases:
    """The names the lines of ``path`` in ``text`` bind to a skip mark or a test function (`flaky = pytest.mark.skip`,
    `const t2 = test.skip`), for reading the file's hunks with what its other hunks bind."""
    language = test_language(path)
    if language == "python":
        from judge.code import _tests_python

        return _tests_python.file_aliases(text) or None
    if language in ("javascript", "typescript", "tsx"):
        from judge.code import _tests_js

        return _tests_js.file_aliases(text) or None
    return None


def normalised(text: str) -> str:
    """The text with each run of whitespace one space, none at either end: what `\\s+` -> " " and a strip make
    (str.split splits on the characters `\\s` matches)."""
    return " ".join(text.split())


_CONTEXT = {"go": lazy_compile(r"^func\s+((?:Test|Fuzz|Example)\w*)\s*\(")}


def _context_name(language: str, context: str) -> str:
    pattern = _CONTEXT.get(language)
    found = pattern.match(context) if pattern else None
    return found[1] if found else ""

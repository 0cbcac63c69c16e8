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
from typing import Iterable, Literal

from judge.code.sides import Side
from judge.lazy_pattern import lazy_compile
from judge.patch.paths import file_suffix

__all__ = ["Check", "Mark", "TestUnit", "UnitDraft", "normalised", "skip_aliases", "test_language", "test_units"]

Kind = Literal["test", "group", "helper", "fragment", "module"]


@dataclass(frozen=True)
class Check:
    """One assertion: ``assert x == 1``, ``self.assertEqual(...)``, ``expect(x).toBe(1)``, ``t.is(...)``, ``t.Errorf(...)``."""

    text: str  # its source, whitespace collapsed
    line: int  # index of its first line in the side
    changed: bool  # it touches a changed line of the side
    tautology: bool = False  # true whatever the code does: `assert True`, `expect(x).toBe(x)`, `t.pass()`
    tokens: tuple[str, ...] = ()  # its syntax leaf by leaf, literals by value
    slots: frozenset[int] = frozenset()  # indexes in ``tokens`` of the literals on its expected side
    shape: str = ""  # its syntax with every literal masked: the same check with other values has the same shape
    names: frozenset[str] = frozenset()  # the identifiers it uses (not its literals), for a changed check
    # What a changed check pins down, to tell an assertion replaced by a weaker one:
    weak: bool = False  # holds for many values: existence, truthiness, inequality, a type (`is not None`, `t.not`)
    subject: str = ""  # the value it checks, spaces removed: `parse_port("80")` of `assert parse_port("80") == 80`
    truth: bool | None = None  # what truthiness alone would say of it: `== True`, `assert x` True; `is None`, `== 0`,
    # `assert not x` False; None when it pins more (an `assert x == True` written `assert x` says as much)
    swallowed: bool = False  # it runs inside a `try` whose changed handler swallows its failure (`except: pass`)


@dataclass(frozen=True)
class Mark:
    """A mark that stops a test from running (``skip``: skip, xfail, todo, ignore) or stops the others (``only``)."""

    kind: Literal["skip", "only"]
    key: str  # what kind of mark, to tell whether the test had it before: `pytest.mark.skip`, `it.only`
    text: str  # as written, whitespace collapsed, for the reason
    line: int
    changed: bool


@dataclass(frozen=True)
class TestUnit:
    __test__ = False  # pytest: not a test class

    name: str  # the test function's name, the test's title; for a fragment, the hunk's function context or ""
    kind: Kind  # helper: another function in a test file; module: the file's own marks (pytestmark)
    line: int  # index in the side of its header
    header_changed: bool  # the header line itself is a changed line of the side
    label: str = ""  # how a reason names it: `test_login`, `it("logs in")`, `describe("api")`
    body: str = ""  # its body, each line whitespace-collapsed, for telling a renamed or moved test
    checks: tuple[Check, ...] = ()
    marks: tuple[Mark, ...] = ()
    names: frozenset[str] = frozenset()  # identifiers it uses: the code it tests
    complete: bool = True  # every changed line of the side was read by the parser
    locals: frozenset[str] = frozenset()  # names it binds itself (variables, parameters): not code under test
    collected: bool = True  # the runner collects it by its name and place (pytest: `test*` in a `Test*` class)
    owner: str = ""  # the class it is a method of, where the side or git's hunk header shows one

    @property
    def qualname(self) -> str:
        """Its name in its file: `FirstTests.test_empty` and `LastTests.test_empty` are two tests."""
        return f"{self.owner}.{self.name}" if self.owner else self.name


@dataclass
class UnitDraft:
    """A test unit while a reader fills it in; ``freeze`` makes the TestUnit the detectors read."""

    name: str
    kind: str
    line: int
    header_changed: bool = False
    label: str = ""
    body: str = ""
    checks: list[Check] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    locals: set[str] = field(default_factory=set)
    collected: bool = True
    owner: str = ""

    def freeze(self, complete: bool = True) -> TestUnit:
        return TestUnit(self.name, self.kind, self.line, self.header_changed,  # type: ignore[arg-type]
                        self.label or self.name, self.body, tuple(self.checks), tuple(self.marks),
                        frozenset(self.names), complete, frozenset(self.locals), self.collected,
                        self.owner)


_LANGUAGES = {
    ".py": "python", ".go": "go", ".rs": "rust", ".java": "java",
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
}
_WHITESPACE = lazy_compile(r"\s+")


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


def skip_aliases(path: str, lines: Iterable[str]) -> Aliases:
    """The names lines of ``path`` bind to a skip mark or a test function (`flaky = pytest.mark.skip`,
    `const t2 = test.skip`), for reading the file's hunks with what its other hunks bind."""
    language = test_language(path)
    if language == "python":
        from judge.code import _tests_python

        return _tests_python.file_aliases(line for line in lines if "=" in line) or None
    if language in ("javascript", "typescript", "tsx"):
        from judge.code import _tests_js

        return _tests_js.file_aliases(lines) or None
    return None


def normalised(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


_CONTEXT = {"go": lazy_compile(r"^func\s+((?:Test|Fuzz|Example)\w*)\s*\(")}


def _context_name(language: str, context: str) -> str:
    pattern = _CONTEXT.get(language)
    found = pattern.match(context) if pattern else None
    return found[1] if found else ""

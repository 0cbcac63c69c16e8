"""Test units of a Python hunk side (pytest and unittest), through the standard library's ``ast``.

A side that starts inside a block (the test's ``def`` is above the hunk) is wrapped in ``if 1:``
headers, one per indentation level its lines go back to, so every line keeps its nesting. A side
that still does not parse (cut inside a call, a string or a decorator list) is cut at the line
the parser names and each part is parsed again, a few times at most. Lines no parsed part covers
are read by a line lexer for test headers and skip decorators only, and the side is then
``complete=False``: its assertions are not compared (a count on a half-read side proves nothing).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterable

from judge.code import pyast
from judge.code._constant_truth import condition_truth, truth
from judge.code.sides import Side
from judge.code.tests import Check, Leaves, Mark, Meaning, TestUnit, UnitDraft, normalised
from judge.lazy_pattern import lazy_compile

__all__ = ["units"]

_PARSES = 8  # parse attempts per side: a side cut in awkward places is read in parts, never at any cost
_CUT_TO_END = ("was never closed", "unterminated triple-quoted")
_CHECK_CALLS = {"raises", "warns", "deprecated_call", "fail"}  # pytest.raises(...), self.fail(...): assertions too
_SKIP_CALLS = {"pytest.skip", "self.skipTest", "pytest.xfail", "unittest.skip"}
_SKIP_EXCEPTIONS = {"SkipTest", "unittest.SkipTest", "pytest.skip.Exception"}
_SAME_ARGS = lazy_compile(r"^assert(?:Equals?|Is|AlmostEquals?|CountEqual|ListEqual|DictEqual|TupleEqual|SetEqual|"
                          r"SequenceEqual|MultiLineEqual|_equal|_array_equal|_allclose)$")
_LEXER_DEF = lazy_compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(")
_LEXER_SKIP = lazy_compile(r"^\s*@((?:pytest\.)?mark\.(?:skip|xfail)|unittest\.(?:skip|expectedFailure)|expectedFailure)\b")
_DECORATOR_CHARS = 2000  # a decorator line longer than this is read by name only


@dataclass(frozen=True)
class _Segment:
    tree: ast.Module
    start: int  # the side index of its first line
    header: int  # wrapper lines above it
    lines: tuple[str, ...]  # the source parsed, wrappers included


def units(side: Side, context: str, aliases: dict[str, str] | None = None) -> tuple[TestUnit, ...]:
    """``aliases``: the skip marks the file's other hunks bind to a name (see ``file_aliases``)."""
    segments, covered = _parse(side.lines)
    complete = all(covered[i] for i, changed in enumerate(side.changed) if changed)
    reader = _Reader(side, context, complete, _Lines("\n".join(side.lines)))
    reader.aliases.update(aliases or {})
    for segment in segments:
        reader.segment(segment)
    reader.leftovers(covered)
    return reader.done()


# --------------------------------------------------------------------------- parsing a fragment


def _parse(lines: tuple[str, ...]) -> tuple[list[_Segment], list[bool]]:
    segments: list[_Segment] = []
    covered = [False] * len(lines)
    indents = [len(line) - len(text) if (text := line.lstrip()) else None for line in lines]  # None: a blank line
    pending, budget = [(0, len(lines))], _PARSES
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while pending and budget:
            start, end = pending.pop()
            while start < end and indents[start] is None:
                start += 1
            if start >= end:
                continue
            budget -= 1
            source, header = _wrapped(lines[start:end], indents[start:end])
            try:
                tree = pyast.parse("\n".join(source) + "\n")
            except (MemoryError, RecursionError):  # nested past the parser's limits (hostile input): left to the lexer
                continue
            except (SyntaxError, ValueError) as error:
                at = start + min(max((getattr(error, "lineno", None) or 1) - 1 - header, 0), end - start - 1)
                if any(reason in str(error) for reason in _CUT_TO_END):
                    pending.append((start, at))
                    if "triple-quoted" in str(error) and _lone_quotes(lines[at]):
                        pending.append((at + 1, end))  # it closes a docstring opened above the hunk: the code follows
                else:
                    pending += [(at + 1, end), (start, at)]
                continue
            segments.append(_Segment(tree, start, header, source))
            covered[start:end] = [True] * (end - start)
    return sorted(segments, key=lambda s: s.start), covered


def _lone_quotes(line: str) -> bool:
    """A line that is only a closing triple quote, as a docstring's last line is."""
    return line.strip() in ('"""', "'''")


def _wrapped(lines: tuple[str, ...], indents: list[int | None]) -> tuple[tuple[str, ...], int]:
    """The lines under one ``if 1:`` per indentation level they dedent to, when the first is indented (``indents``:
    each line's, None for a blank line)."""
    first = indents[0]
    if not first:
        return lines, 0
    prefixes = {line[:indent] for line, indent in zip(lines, indents) if indent is not None and indent < first}
    prefixes.add("")
    header = tuple(prefix + "if 1:" for prefix in sorted(prefixes, key=lambda prefix: (len(prefix), prefix)))
    return header + lines, len(header)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _context(context: str) -> tuple[str, str]:
    """(the test, the class) git's hunk header names: the last line at column 0 above the hunk."""
    found = re.match(r"(?:async\s+)?def\s+(\w+)|\s*class\s+(\w+)", context)
    if not found:
        return "", ""
    return found[1] or "", f"class {found[2]}" if found[2] else ""


# --------------------------------------------------------------------------- reading the trees


class _Lines:
    """A side's text, to read the bodies of the few units paired by their body without keeping the side's lines for
    as long as the units live."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def body(self, first: int, last: int) -> str:
        """Lines first..last, whitespace-collapsed, blank and comment lines left out."""
        return "\n".join(normalised(text) for text in self.text.split("\n")[first:last + 1]
                         if text.strip() and not text.lstrip().startswith("#"))


class _Reader:
    def __init__(self, side: Side, context: str, complete: bool, source: _Lines) -> None:
        self.side, self.complete, self.source = side, complete, source
        self.units: list[UnitDraft] = []
        test, group = _context(context)
        self.context_class = group.removeprefix("class ")  # the class a side that starts inside one is in
        self.fragment = UnitDraft(test, "fragment", 0, label=test or group)
        self.module = UnitDraft("", "module", 0, label="every test of the module")
        self.segment_now: _Segment | None = None
        self.aliases: dict[str, str] = {}  # `flaky = pytest.mark.skip(...)` at module level: `@flaky` skips
        self.swallowing: set[int] = set()  # ids of the nodes inside a `try` whose changed handler swallows failures

    def segment(self, segment: _Segment) -> None:
        self.segment_now = segment
        self._statements(segment.tree.body, None)

    def done(self) -> tuple[TestUnit, ...]:
        every = [self.fragment, self.module, *self.units]
        return tuple(u.freeze(self.complete)
                     for u in every if u.kind not in ("fragment", "module") or u.checks or u.marks or u.names)

    def leftovers(self, covered: list[bool]) -> None:
        """Lines no parse covered: test headers and skip decorators, read by shape."""
        marks: list[Mark] = []
        for i, line in enumerate(self.side.lines):
            if covered[i]:
                continue
            key = _decorator_skip(line) if line.lstrip().startswith("@") else None
            if key:
                marks.append(Mark("skip", key, normalised(line), i, self.side.changed[i]))
            header = _LEXER_DEF.match(line)
            if header:
                unit = UnitDraft(header[1], "test", i, self.side.changed[i], marks=marks)
                self.units.append(unit)
                marks = []
        self.fragment.marks += marks

    # --- statements

    def _statements(self, body: list[ast.stmt], group: UnitDraft | None, nested: bool = False) -> None:
        """Statements at the fragment's top level, of a class (``group``), or under a module-level ``if``/``with``/
        ``try`` (``nested``: where only definitions count)."""
        for stmt in body:
            if self._is_wrapper(stmt):
                self._statements(stmt.body, group)  # type: ignore[attr-defined]
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(stmt, group)
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt)
            elif _is_pytestmark(stmt):
                self._marks_of(group or self.module, _pytestmark_values(stmt), assignment=True)
            elif _uncollects(stmt):  # `__test__ = False`: pytest collects nothing of the class or the module
                self._mark(group or self.module, "__test__ = False", normalised(self._text(stmt)), stmt)
            elif group is None and not nested and _skip_alias(stmt):
                self.aliases[stmt.targets[0].id] = _skip_alias(stmt)  # type: ignore[attr-defined,assignment]
            elif group is None and not nested and self._indent_of(stmt) > 0:
                self._content(stmt, self.fragment, direct=True)  # inside a block above the hunk
            elif group is None and not nested:
                self._module_statement(stmt)

    def _module_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                self.module.names.update(alias.name.split("."))
            if isinstance(stmt, ast.ImportFrom) and stmt.module:
                self.module.names.update(stmt.module.split("."))
        elif isinstance(stmt, (ast.If, ast.With, ast.Try)):  # a condition: what it skips is not judged
            for part in ("body", "orelse", "finalbody"):
                self._statements(getattr(stmt, part, []), None, nested=True)
        elif _skip_statement(stmt):  # `pytest.skip(..., allow_module_level=True)`: every test of the module
            self._mark(self.module, _mark_key(_skip_statement(stmt) or ""), normalised(self._text(stmt)), stmt)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, group: UnitDraft | None = None) -> None:
        line = self._line(node.lineno)
        test = node.name.startswith("test")  # pytest's default `python_functions = test`
        owner = group.name if group else self.context_class if _indent(self.side.lines[line]) else ""
        unit = UnitDraft(node.name, "test" if test else "helper", line, self.side.changed[line],
                         collected=test and (group is None or group.collected), owner=owner)
        self._marks_of(unit, node.decorator_list)
        unit.locals.update(arg.arg for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
        for stmt in node.body:
            self._content(stmt, unit, direct=True)
        last = self._line(node.end_lineno or node.lineno)
        unit.body = partial(self.source.body, line + 1, last)  # read when the test is paired by its body, if ever
        self.units.append(unit)

    def _class(self, node: ast.ClassDef) -> None:
        line = self._line(node.lineno)
        group = UnitDraft(node.name, "group", line, self.side.changed[line], collected=_collects_class(node))
        self._marks_of(group, node.decorator_list)
        last = self._line(node.end_lineno or node.lineno)
        group.body = partial(self.source.body, line + 1, last)
        self.units.append(group)
        self._statements(node.body, group)

    def _content(self, stmt: ast.stmt, unit: UnitDraft, direct: bool) -> None:
        if direct:
            skip = _skip_statement(stmt)
            if skip:
                self._mark(unit, skip, normalised(self._text(stmt)), stmt)
        names, bound = unit.names, unit.locals
        for node in _walk(stmt):  # breadth first: a `try` is seen before the assertions inside it
            kind = type(node)
            if kind is ast.Name:
                names.add(node.id)  # type: ignore[attr-defined]
                if type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                    bound.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                names.add(node.attr)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                if _is_check_call(node):  # type: ignore[arg-type]
                    unit.checks.append(self._check(node, node, _call_tautology, node.args,  # type: ignore[attr-defined]
                                                   _call_meaning))
            elif kind is ast.Assert:
                unit.checks.append(self._check(node, node.test, _assert_tautology, [],  # type: ignore[attr-defined]
                                               _assert_meaning))
            elif (kind is ast.Try or kind is ast.With) and id(node) not in self.swallowing \
                    and self._swallows(node):  # type: ignore[arg-type]
                body = node.body  # type: ignore[attr-defined]
                self.swallowing.update(id(inner) for part in body for inner in _walk(part))

    # --- checks and marks

    def _check(self, node: ast.AST, compared: Any, tautology: Callable[[Any], bool], expected: list[ast.expr],
               meaning: Callable[[Any], _Meaning]) -> Check:
        first, last = self._line(node.lineno), self._line(node.end_lineno or node.lineno)  # type: ignore[attr-defined]
        text = normalised(self._text(node))
        if not any(self.side.changed[first:last + 1]):  # only a changed check is ever compared leaf by leaf
            return Check(text, first, False)
        # what it is made of and what it pins down are read from its own subtree when first asked for: most changed
        # checks are compared leaf by leaf, few asked what they pin down
        return Check(text, first, True, swallowed=id(node) in self.swallowing,
                     leaves=partial(_leaves, node, compared, expected),
                     meaning=partial(_meaning_of, compared, tautology, meaning))

    def _swallows(self, node: ast.Try | ast.With) -> bool:
        """A `try` (or `with suppress(...)`) the change writes or edits whose handler lets any failure pass."""
        if isinstance(node, ast.With):
            lines = [node.lineno]
            swallows = any(_dotted(item.context_expr.func).rsplit(".", 1)[-1] == "suppress"
                           and any(_catches_failures(arg) for arg in item.context_expr.args)
                           for item in node.items if isinstance(item.context_expr, ast.Call))
        else:
            lines = [node.lineno, *(handler.lineno for handler in node.handlers)]
            swallows = any(_catches_failures(h.type) and not _reacts(h.body) for h in node.handlers)
        return swallows and any(self.side.changed[self._line(n)] for n in lines)

    def _marks_of(self, unit: UnitDraft, decorators: list[ast.expr], assignment: bool = False) -> None:
        for decorator in decorators:
            key = _skip_mark(decorator) or self.aliases.get(_dotted(decorator))
            if key:
                key = _mark_key(key)
                text = normalised(self._text(decorator))
                self._mark(unit, key, ("pytestmark = " if assignment else "@") + text, decorator)

    def _mark(self, unit: UnitDraft, key: str, text: str, node: ast.AST) -> None:
        line = self._line(node.lineno)  # type: ignore[attr-defined]
        last = self._line(node.end_lineno or node.lineno)  # type: ignore[attr-defined]
        shown = text if len(text) <= 80 else text[:77] + "..."
        unit.marks.append(Mark("skip", key, shown, line, any(self.side.changed[line:last + 1])))

    # --- positions

    def _is_wrapper(self, stmt: ast.stmt) -> bool:
        return isinstance(stmt, ast.If) and stmt.lineno <= self.segment_now.header  # type: ignore[union-attr]

    def _line(self, lineno: int) -> int:
        segment = self.segment_now
        return segment.start + lineno - 1 - segment.header  # type: ignore[union-attr]

    def _indent_of(self, stmt: ast.stmt) -> int:
        return _indent(self.side.lines[self._line(stmt.lineno)])

    def _text(self, node: ast.AST) -> str:
        lines = self.segment_now.lines  # type: ignore[union-attr]
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1  # type: ignore[attr-defined]
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]  # UTF-8 byte offsets
        if first == last:
            return lines[first].encode()[start:end].decode("utf-8", "replace")
        middle = lines[first + 1:last]
        return "\n".join([lines[first].encode()[start:].decode("utf-8", "replace"), *middle,
                          lines[last].encode()[:end].decode("utf-8", "replace")])


# --------------------------------------------------------------------------- what a node means


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _is_check_call(node: ast.Call) -> bool:
    name = _dotted(node.func)
    last = name.rsplit(".", 1)[-1]
    return last.startswith("assert") or (last in _CHECK_CALLS and name in (last, f"pytest.{last}", f"self.{last}"))


def _skip_statement(stmt: ast.stmt) -> str | None:
    """The skip an unconditional statement of a test body makes: `pytest.skip(...)`, `self.skipTest(...)`, `raise SkipTest`."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        name = _dotted(stmt.value.func)
        return name if name in _SKIP_CALLS else None
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        name = _dotted(stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc)
        return name if name in _SKIP_EXCEPTIONS else None
    return None


def _skip_mark(decorator: ast.expr) -> str | None:
    """The key of a decorator that stops the test from running: skip, a constant-true skipif, xfail, expectedFailure."""
    call = decorator if isinstance(decorator, ast.Call) else None
    name = _dotted(call.func if call else decorator)
    last = name.rsplit(".", 1)[-1]
    condition = _condition(call)
    if name.endswith("mark.skip") or name in ("unittest.skip", "skip"):
        return name
    if name.endswith("mark.skipif") or last == "skipIf":
        return name if condition is not None and condition_truth(condition) is True else None
    if last == "skipUnless":
        return name if condition is not None and condition_truth(condition) is False else None
    if name.endswith("mark.xfail"):  # with a real condition (`sys.platform == "win32"`) it is not tampering
        return name if condition is None or condition_truth(condition) is True else None
    return name if last == "expectedFailure" else None


def _decorator_skip(line: str) -> str | None:
    """The skip a decorator on a line of its own makes, read as an expression (`@pytest.mark.skipif(True, ...)`), or by
    its name when it runs on past the line."""
    text = line.strip()[1:]
    try:
        expression = pyast.parse(text, mode="eval").body if len(text) < _DECORATOR_CHARS else None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        expression = None
    if expression is not None:
        key = _skip_mark(expression)
        return _mark_key(key) if key else None
    named = _LEXER_SKIP.match(line)
    return _mark_key(named[1]) if named else None


def _mark_key(name: str) -> str:
    """The same mark whoever reads it: `pytest.mark.skip` and `mark.skip`, `unittest.skip` and `skip`."""
    return name.removeprefix("pytest.").removeprefix("unittest.")


def _condition(call: ast.Call | None) -> ast.expr | None:
    if call is None:
        return None
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "condition"), None)


def _uncollects(stmt: ast.stmt) -> bool:
    """`__test__ = False` (or any false constant): pytest's own switch for not collecting a class or a module."""
    return isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__test__" for t in stmt.targets) \
        and truth(stmt.value) is False


# A line that may bind a skip mark to a name; `[^\S\n]`: the spaces of one line (\s without the newline).
_ALIAS_LINE = lazy_compile(r"^[A-Za-z_]\w*[^\S\n]*=[^\S\n]*(?:pytest|unittest|skip|xfail|mark)\b.*$", re.MULTILINE)


def file_aliases(text: str) -> dict[str, str]:
    """Module-level names bound to a skip mark (`flaky = pytest.mark.skip(...)`) on one-line statements anywhere in
    ``text``: a hunk may decorate a test with a name another hunk of the file binds."""
    found: dict[str, str] = {}
    for line in _ALIAS_LINE.findall(text):
        try:
            stmt = pyast.parse(line).body[0]
        except (SyntaxError, ValueError, MemoryError, RecursionError, IndexError):
            continue
        key = _skip_alias(stmt)
        if key:
            found[stmt.targets[0].id] = key  # type: ignore[attr-defined]
    return found


def _skip_alias(stmt: ast.stmt) -> str | None:
    """`flaky = pytest.mark.skip(reason=...)`: the mark a module-level name stands for."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        key = _skip_mark(stmt.value)
        return _mark_key(key) if key else None
    return None


def _collects_class(node: ast.ClassDef) -> bool:
    """pytest collects a class named `Test*` (default `python_classes`) that has no `__init__`, and any subclass of
    another class (it may be a `unittest.TestCase`, collected whatever its name)."""
    bases = [base for base in node.bases if _dotted(base) != "object"]
    if bases:
        return True
    constructor = any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__"
                      for stmt in node.body)
    return node.name.startswith("Test") and not constructor


def _leaves(node: ast.AST, compared: Any, expected: list[ast.expr]) -> Leaves:
    """What a changed check is made of (judge.code.tests.Check): its leaves, its expected slots, its shape, the names it
    uses."""
    tokens: list[str] = []
    slots: set[int] = set()
    literals: set[int] = set()
    _tokens(compared, False, set(map(id, expected)), tokens, slots, literals)
    shape = " ".join("·" if i in literals else token for i, token in enumerate(tokens))
    names = frozenset(n.id if type(n) is ast.Name else n.attr  # type: ignore[attr-defined]
                      for n in _walk(node) if type(n) is ast.Name or type(n) is ast.Attribute)
    return tuple(tokens), frozenset(slots), shape, names


def _meaning_of(compared: Any, tautology: Callable[[Any], bool], meaning: Callable[[Any], _Meaning]) -> Meaning:
    """What a changed check pins down (judge.code.tests.Check): whether it is a tautology or a weak check, of what
    subject, and what truthiness alone says of it."""
    try:
        always, (weak, subject, truth_of) = tautology(compared), meaning(compared)
    except RecursionError:  # an expression nested past what ast.dump can walk (hostile input): compared by text
        always, (weak, subject, truth_of) = False, (False, "", None)
    return always, weak, subject, truth_of


def _walk(node: ast.AST) -> list[ast.AST]:
    """Every node under ``node`` (itself first) in ``ast.walk``'s order, breadth first, as a list, but the leaves no
    reader here asks for (a name's Load or Store, an operator): the same walk without a generator per node, and
    without reading the fields that hold a name or a value rather than nodes."""
    found = [node]
    fields = _CHILD_FIELDS
    for current in found:  # the list grows as it is read
        kind = type(current)
        names = fields.get(kind)
        if names is None:
            names = fields[kind] = _child_fields(kind)
        for name in names:
            value = getattr(current, name, None)
            if type(value) is list:
                found.extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                found.append(value)
    return found


# Fields that hold no node the readers look at: identifiers, numbers and constants, a name's context (Load, Store,
# Del) and operators (Add, Eq...), which are leaves. A Constant's (or MatchSingleton's) `value` is a constant too.
_LEAF_FIELDS = frozenset({"id", "attr", "name", "arg", "module", "level", "kind", "conversion", "type_comment",
                          "is_async", "ctx", "op", "ops"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold the nodes ``_walk`` visits."""
    constant = kind is ast.Constant or kind is ast.MatchSingleton
    return tuple(name for name in getattr(kind, "_fields", ()) if name not in _LEAF_FIELDS
                 and not (constant and name == "value"))


_FAILURES = {"Exception", "BaseException", "AssertionError", "builtins.Exception", "builtins.BaseException"}


def _catches_failures(handler_type: ast.expr | None) -> bool:
    """A bare `except:`, or one for `Exception`, `BaseException` or `AssertionError`: a failed assertion is caught."""
    if handler_type is None:
        return True
    if isinstance(handler_type, ast.Tuple):
        return any(_catches_failures(element) for element in handler_type.elts)
    return _dotted(handler_type) in _FAILURES


def _reacts(body: list[ast.stmt]) -> bool:
    """A handler body that raises, fails or asserts: the failure is not swallowed."""
    for node in (inner for stmt in body for inner in _walk(stmt)):
        if isinstance(node, (ast.Raise, ast.Assert)) or (isinstance(node, ast.Call) and _is_check_call(node)):
            return True
    return False


def _is_pytestmark(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets)


def _pytestmark_values(stmt: ast.stmt) -> list[ast.expr]:
    """`pytestmark = mark` or `pytestmark = [mark, ...]`: the marks."""
    value = stmt.value  # type: ignore[attr-defined]
    return list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value]


def _assert_tautology(test: ast.expr) -> bool:
    """True whatever the code does: a constant (`assert 1`, `assert not False`, `assert 1 == 1`), a value compared with
    itself, or either of those or-ed with anything (`assert x == 5 or True`)."""
    if truth(test) is True:
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_assert_tautology(value) for value in test.values) or _excluded_middle(test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.GtE, ast.LtE)):
        return _same_value(test.left, test.comparators[0])
    return False


_OPPOSITE = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn,
             ast.NotIn: ast.In, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}


def _excluded_middle(values: list[ast.expr]) -> bool:
    """A claim or-ed with its opposite: `x is not None or x is None`, `x == 5 or x != 5`, `x or not x`."""
    claims = {_claim(value) for value in values}
    return any(_negation(value) in claims for value in values)


def _claim(value: ast.expr) -> str:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return "not " + ast.dump(value.operand)
    return ast.dump(value)


def _negation(value: ast.expr) -> str:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return ast.dump(value.operand)
    if isinstance(value, ast.Compare) and len(value.ops) == 1 and type(value.ops[0]) in _OPPOSITE:
        return ast.dump(ast.Compare(value.left, [_OPPOSITE[type(value.ops[0])]()], value.comparators))
    return "not " + ast.dump(value)


def _same_value(a: ast.expr, b: ast.expr) -> bool:
    """The same expression on both sides that calls nothing: `x == x` holds, `cls(1) == cls(1)` tests `__eq__`."""
    return ast.dump(a) == ast.dump(b) and not any(isinstance(n, (ast.Call, ast.Await)) for n in _walk(a))


# --------------------------------------------------------------------------- what a check pins down

_Meaning = tuple[bool, str, "bool | None"]  # (weak, subject, truth): see judge.code.tests.Check
_WEAK_OPS = (ast.NotEq, ast.IsNot, ast.Lt, ast.Gt, ast.LtE, ast.GtE)  # holds for all values but one, or a range
_WEAK_CALLS = {"assertTrue", "assert_", "failUnless", "assertFalse", "failIf", "assertIsNotNone", "assertNotEqual",
               "assertNotEquals", "assertIsNot", "assertIsInstance", "assertGreater", "assertGreaterEqual",
               "assertLess", "assertLessEqual", "assertNotAlmostEqual"}
_TRUTH_CALLS = {"assertTrue", "assert_", "failUnless", "assertFalse", "failIf"}
_TRUTH_OF_CALL = {"assertTrue": True, "assert_": True, "failUnless": True, "assertFalse": False, "failIf": False,
                  "assertIsNone": False}


def _assert_meaning(test: ast.expr) -> _Meaning:
    """`assert x == 5` pins x; `assert x`, `assert x is not None`, `assert x != 6`, `isinstance(x, int)` don't."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        subject, expected = test.left, test.comparators[0]
        if _is_literal(subject) and not _is_literal(expected):
            subject, expected = expected, subject
        op = test.ops[0]
        truth_of = _plain_truth(expected) if isinstance(op, (ast.Eq, ast.Is)) else None
        # `f(x) == f(x)` pins nothing of f(x) but that it is equal to itself (a tautology when it calls nothing):
        # weak, and so a weakening where it takes the place of an assertion that pinned a value
        itself = isinstance(op, (ast.Eq, ast.Is)) and ast.dump(subject) == ast.dump(expected)
        anything = isinstance(op, ast.Eq) and _dotted(expected).rsplit(".", 1)[-1] == "ANY"  # `== mock.ANY`
        return isinstance(op, _WEAK_OPS) or itself or anything, _subject(subject), truth_of
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True, _subject(test.operand), False
    if isinstance(test, ast.Call) and _dotted(test.func) in ("isinstance", "hasattr", "callable") and test.args:
        return True, _subject(test.args[0]), None
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Await)):
        return True, _subject(test), True
    return False, "", None


def _call_meaning(call: ast.Call) -> _Meaning:
    last = _dotted(call.func).rsplit(".", 1)[-1]
    if last in ("raises", "assertRaises") and call.args:
        # `pytest.raises(Exception)` holds for any error the code raises: weaker than the one it names
        return _catches_anything(call.args[0]), "raises", None
    if not call.args or not last.startswith("assert"):
        return False, "", None
    if last in _TRUTH_CALLS and isinstance(call.args[0], ast.Compare):
        return _assert_meaning(call.args[0])
    expected = call.args[1] if len(call.args) > 1 else None
    truth_of = _TRUTH_OF_CALL.get(last)
    if expected is not None and last in ("assertEqual", "assertEquals", "assertIs"):
        truth_of = _plain_truth(expected)
    return last in _WEAK_CALLS, _subject(call.args[0]), truth_of


def _catches_anything(node: ast.expr) -> bool:
    """`Exception`, `BaseException`, or a tuple holding one: what a raises check accepts whatever goes wrong."""
    if isinstance(node, ast.Tuple):
        return any(_catches_anything(element) for element in node.elts)
    return _dotted(node).rsplit(".", 1)[-1] in ("Exception", "BaseException")


def _is_literal(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Dict):
        return all(_is_literal(part) for part in (*node.keys, *node.values))
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_literal(element) for element in node.elts)
    return isinstance(node, ast.Constant)


def _plain_truth(node: ast.expr) -> bool | None:
    """The truth of a value truthiness alone tells apart (True; False, None, 0, an empty string or container)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is True:
            return True
        falsy = value is None or value is False or value in ("", b"") or (type(value) in (int, float) and not value)
        return False if falsy else None
    if isinstance(node, ast.Dict):
        return False if not node.keys else None
    return False if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts else None


def _subject(node: ast.expr) -> str:
    """The expression a check is about, written one way whatever its spacing and quotes."""
    try:
        return ast.unparse(node)
    except (RecursionError, ValueError, AttributeError):
        return ""


def _call_tautology(call: ast.Call) -> bool:
    last = _dotted(call.func).rsplit(".", 1)[-1]
    args = call.args
    if last in ("assertTrue", "assert_", "failUnless") and args:
        return isinstance(args[0], ast.Constant) and bool(args[0].value)
    if last in ("assertFalse", "failIf") and args:
        return isinstance(args[0], ast.Constant) and not args[0].value
    if last == "assertIsNone" and args:
        return isinstance(args[0], ast.Constant) and args[0].value is None
    if last == "assertIsNotNone" and args:
        return isinstance(args[0], ast.Constant) and args[0].value is not None
    return bool(_SAME_ARGS.match(last)) and len(args) >= 2 and _same_value(args[0], args[1])


_LITERAL_CONTAINERS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp)


def _tokens(node: ast.AST, expected: bool, direct: set[int], out: list[str], slots: set[int], literals: set[int]) -> None:
    """``node`` leaf by leaf into ``out``; the literals on the expected side (a comparison's operand, an assertion's
    argument, or inside a literal list/tuple/dict there) go into ``slots``. An explicit stack, not recursion: an
    assertion nested thousands deep (hostile input) must not exhaust Python's."""
    stack: list[tuple[ast.AST, bool, set[int]]] = [(node, expected, direct)]
    while stack:
        node, expected, direct = stack.pop()
        expected = expected or id(node) in direct
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
                isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float, complex)):
            node = ast.Constant(-node.operand.value if isinstance(node.op, ast.USub) else node.operand.value)
        if isinstance(node, ast.Constant):
            if expected:
                slots.add(len(out))
            literals.add(len(out))
            out.append(repr(node.value))
            continue
        out.append(type(node).__name__)
        if isinstance(node, ast.Name):
            out.append(node.id)
        elif isinstance(node, ast.Attribute):
            out.append(node.attr)
        elif isinstance(node, ast.keyword):
            out.append(str(node.arg))
        operands = set(map(id, [node.left, *node.comparators])) if isinstance(node, ast.Compare) else direct
        keeps = expected and isinstance(node, _LITERAL_CONTAINERS)
        stack.extend((child, keeps, operands) for child in reversed(list(ast.iter_child_nodes(node))))

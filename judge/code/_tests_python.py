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
from typing import Any, Callable

from judge.code.sides import Side
from judge.code.tests import Check, Mark, TestUnit, UnitDraft, normalised

__all__ = ["units"]

_PARSES = 8  # parse attempts per side: a side cut in awkward places is read in parts, never at any cost
_CUT_TO_END = ("was never closed", "unterminated triple-quoted")
_CHECK_CALLS = {"raises", "warns", "deprecated_call", "fail"}  # pytest.raises(...), self.fail(...): assertions too
_SKIP_CALLS = {"pytest.skip", "self.skipTest", "pytest.xfail", "unittest.skip"}
_SKIP_EXCEPTIONS = {"SkipTest", "unittest.SkipTest", "pytest.skip.Exception"}
_SAME_ARGS = re.compile(r"^assert(?:Equals?|Is|AlmostEquals?|CountEqual|ListEqual|DictEqual|TupleEqual|SetEqual|"
                        r"SequenceEqual|MultiLineEqual|_equal|_array_equal|_allclose)$")
_LEXER_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(")
_LEXER_SKIP = re.compile(r"^\s*@((?:pytest\.)?mark\.(?:skip|xfail)|unittest\.(?:skip|expectedFailure)|expectedFailure)\b")


@dataclass(frozen=True)
class _Segment:
    tree: ast.Module
    start: int  # the side index of its first line
    header: int  # wrapper lines above it
    lines: tuple[str, ...]  # the source parsed, wrappers included


def units(side: Side, context: str) -> tuple[TestUnit, ...]:
    segments, covered = _parse(side.lines)
    complete = all(covered[i] for i, changed in enumerate(side.changed) if changed)
    reader = _Reader(side, context, complete)
    for segment in segments:
        reader.segment(segment)
    reader.leftovers(covered)
    return reader.done()


# --------------------------------------------------------------------------- parsing a fragment


def _parse(lines: tuple[str, ...]) -> tuple[list[_Segment], list[bool]]:
    segments: list[_Segment] = []
    covered = [False] * len(lines)
    pending, budget = [(0, len(lines))], _PARSES
    while pending and budget:
        start, end = pending.pop()
        while start < end and not lines[start].strip():
            start += 1
        if start >= end:
            continue
        budget -= 1
        source, header = _wrapped(lines[start:end])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse("\n".join(source) + "\n")
        except (MemoryError, RecursionError):  # nested past the parser's limits (hostile input): left to the lexer
            continue
        except (SyntaxError, ValueError) as error:
            at = start + min(max((getattr(error, "lineno", None) or 1) - 1 - header, 0), end - start - 1)
            if any(reason in str(error) for reason in _CUT_TO_END):
                pending.append((start, at))
            else:
                pending += [(at + 1, end), (start, at)]
            continue
        segments.append(_Segment(tree, start, header, source))
        covered[start:end] = [True] * (end - start)
    return sorted(segments, key=lambda s: s.start), covered


def _wrapped(lines: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """The lines under one ``if 1:`` per indentation level they dedent to, when the first is indented."""
    first = _indent(lines[0])
    if not first:
        return lines, 0
    prefixes = {line[:_indent(line)] for line in lines if line.strip() and _indent(line) < first}
    prefixes.add("")
    header = tuple(prefix + "if 1:" for prefix in sorted(prefixes, key=len))
    return header + lines, len(header)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _context(context: str) -> tuple[str, str]:
    """(the test, the class) git's hunk header names: the last line at column 0 above the hunk."""
    found = re.match(r"(?:async\s+)?def\s+(\w+)|class\s+(\w+)", context)
    if not found:
        return "", ""
    return found[1] or "", f"class {found[2]}" if found[2] else ""


# --------------------------------------------------------------------------- reading the trees


class _Reader:
    def __init__(self, side: Side, context: str, complete: bool) -> None:
        self.side, self.complete = side, complete
        self.units: list[UnitDraft] = []
        test, group = _context(context)
        self.fragment = UnitDraft(test, "fragment", 0, label=test or group)
        self.module = UnitDraft("", "module", 0, label="every test of the module")
        self.segment_now: _Segment | None = None

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
            skip = _LEXER_SKIP.match(line)
            if skip:
                marks.append(Mark("skip", _mark_key(skip[1]), normalised(line), i, self.side.changed[i]))
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
                self._function(stmt)
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt)
            elif _is_pytestmark(stmt):
                self._marks_of(group or self.module, _pytestmark_values(stmt), assignment=True)
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

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        line = self._line(node.lineno)
        unit = UnitDraft(node.name, "test" if node.name.startswith("test") else "helper", line, self.side.changed[line])
        self._marks_of(unit, node.decorator_list)
        unit.locals.update(arg.arg for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
        for stmt in node.body:
            self._content(stmt, unit, direct=True)
        last = self._line(node.end_lineno or node.lineno)
        unit.body = "\n".join(normalised(text) for text in self.side.lines[line + 1:last + 1]
                              if text.strip() and not text.lstrip().startswith("#"))
        self.units.append(unit)

    def _class(self, node: ast.ClassDef) -> None:
        line = self._line(node.lineno)
        group = UnitDraft(node.name, "group", line, self.side.changed[line])
        self._marks_of(group, node.decorator_list)
        self.units.append(group)
        self._statements(node.body, group)

    def _content(self, stmt: ast.stmt, unit: UnitDraft, direct: bool) -> None:
        if direct:
            skip = _skip_statement(stmt)
            if skip:
                self._mark(unit, skip, normalised(self._text(stmt)), stmt)
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                unit.names.add(node.id)
                if isinstance(node.ctx, ast.Store):
                    unit.locals.add(node.id)
            elif isinstance(node, ast.Attribute):
                unit.names.add(node.attr)
            elif isinstance(node, ast.Assert):
                unit.checks.append(self._check(node, node.test, _assert_tautology, []))
            elif isinstance(node, ast.Call) and _is_check_call(node):
                unit.checks.append(self._check(node, node, _call_tautology, node.args))

    # --- checks and marks

    def _check(self, node: ast.AST, compared: Any, tautology: Callable[[Any], bool], expected: list[ast.expr]) -> Check:
        first, last = self._line(node.lineno), self._line(node.end_lineno or node.lineno)  # type: ignore[attr-defined]
        if not any(self.side.changed[first:last + 1]):  # only a changed check is ever compared leaf by leaf
            return Check(normalised(self._text(node)), first, False)
        tokens: list[str] = []
        slots: set[int] = set()
        literals: set[int] = set()
        _tokens(compared, False, set(map(id, expected)), tokens, slots, literals)
        shape = " ".join("·" if i in literals else token for i, token in enumerate(tokens))
        names = frozenset(n.id if isinstance(n, ast.Name) else n.attr  # type: ignore[attr-defined]
                          for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))
        return Check(normalised(self._text(node)), first, True, tautology(compared), tuple(tokens), frozenset(slots),
                     shape, names)

    def _marks_of(self, unit: UnitDraft, decorators: list[ast.expr], assignment: bool = False) -> None:
        for decorator in decorators:
            key = _skip_mark(decorator)
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
        return name if condition is not None and _truth(condition) is True else None
    if last == "skipUnless":
        return name if condition is not None and _truth(condition) is False else None
    if name.endswith("mark.xfail"):  # with a real condition (`sys.platform == "win32"`) it is not tampering
        return name if condition is None or _truth(condition) is True else None
    return name if last == "expectedFailure" else None


def _mark_key(name: str) -> str:
    """The same mark whoever reads it: `pytest.mark.skip` and `mark.skip`, `unittest.skip` and `skip`."""
    return name.removeprefix("pytest.").removeprefix("unittest.")


def _condition(call: ast.Call | None) -> ast.expr | None:
    if call is None:
        return None
    if call.args:
        return call.args[0]
    return next((kw.value for kw in call.keywords if kw.arg == "condition"), None)


def _truth(node: ast.expr) -> bool | None:
    """The constant truth of a condition; None when it depends on code (a string is pytest's condition to evaluate)."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, str):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand)
        return None if inner is None else not inner
    return None


def _is_pytestmark(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets)


def _pytestmark_values(stmt: ast.stmt) -> list[ast.expr]:
    """`pytestmark = mark` or `pytestmark = [mark, ...]`: the marks."""
    value = stmt.value  # type: ignore[attr-defined]
    return list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value]


def _assert_tautology(test: ast.expr) -> bool:
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _truth(test) is True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.GtE, ast.LtE)):
        return ast.dump(test.left) == ast.dump(test.comparators[0])
    return False


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
    return bool(_SAME_ARGS.match(last)) and len(args) >= 2 and ast.dump(args[0]) == ast.dump(args[1])


_LITERAL_CONTAINERS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp)


def _tokens(node: ast.AST, expected: bool, direct: set[int], out: list[str], slots: set[int], literals: set[int]) -> None:
    """``node`` leaf by leaf into ``out``; the literals on the expected side (a comparison's operand, an assertion's
    argument, or inside a literal list/tuple/dict there) go into ``slots``."""
    expected = expected or id(node) in direct
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
            isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float, complex)):
        node = ast.Constant(-node.operand.value if isinstance(node.op, ast.USub) else node.operand.value)
    if isinstance(node, ast.Constant):
        if expected:
            slots.add(len(out))
        literals.add(len(out))
        out.append(repr(node.value))
        return
    out.append(type(node).__name__)
    if isinstance(node, ast.Name):
        out.append(node.id)
    elif isinstance(node, ast.Attribute):
        out.append(node.attr)
    elif isinstance(node, ast.keyword):
        out.append(str(node.arg))
    operands = set(map(id, [node.left, *node.comparators])) if isinstance(node, ast.Compare) else direct
    keeps = expected and isinstance(node, _LITERAL_CONTAINERS)
    for child in ast.iter_child_nodes(node):
        _tokens(child, keeps, operands, out, slots, literals)

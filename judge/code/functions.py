"""The functions a hunk side defines, and whether a body is a stub: Python by its logical lines and ``ast``,
JavaScript/TypeScript by tree-sitter.

A function is judged when its definition line is in view, or when the side opens inside its body: in its
docstring, or on the last line of a signature git cut (``) -> int:``, ``): Promise<R> {``); such a function
is named ``UNSEEN`` (git's hunk header may name it). Its body is ``complete`` when the
side shows where it ends (a dedent, the closing brace, or the end of a whole new or deleted file).
A stub is a body that does nothing but say it does nothing: ``pass``, ``...``, ``raise
NotImplementedError``, a bare ``return``/``return None``; in JS/TS an empty block, a bare ``return``,
``return null``/``undefined``, or ``throw new Error("not implemented")``. A docstring or comment
beside the stub changes nothing.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from itertools import accumulate
from typing import Sequence

from judge.code import pyast, treesitter
from judge.code._js_blocks import none_is_a_stub
from judge.code.fragments import UNSEEN, js_tree, opens_in_docstring, python_lines
from judge.code.sides import Side
from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless
from judge.patch.lexer import LogicalLine

__all__ = ["JS_STUB_LINE", "PY_STUB_LINE", "UNSEEN", "Function", "functions_in", "stub_functions_in"]


@dataclass(frozen=True)
class Function:
    name: str
    line: int  # index of the definition line in the side
    end: int  # index of the body's last line in the side
    complete: bool
    stub: str | None  # what the body is when it is a stub (``pass``, ``raise NotImplementedError``...), else None
    statements: int  # statements in the body, docstring left out
    decorators: tuple[str, ...] = ()

    def touches(self, side: Side) -> bool:
        """A line of the function, definition to body end, is one the change wrote."""
        return any(side.changed[self.line : self.end + 1])


def functions_in(side: Side, path: str, whole: bool = False) -> list[Function]:
    """The functions defined on ``side`` of a hunk of ``path``; ``whole``: the side is the entire file."""
    if path.endswith((".py", ".pyx")):
        return _python_functions(side, whole or side.at_end)
    grammar = treesitter.grammar_for(path)
    if grammar is not None:
        return _js_functions(side, grammar)
    return []


def stub_functions_in(side: Side, path: str, whole: bool = False) -> list[Function]:
    """The functions on ``side`` whose body is a stub. Cheap when there is none: a side with no line a stub is
    made of (``pass``, a bare ``return``, ``throw``, an empty block) is never parsed."""
    if path.endswith((".py", ".pyx")):
        text = side.text
        if not ("pass" in text or "..." in text or "return" in text or "raise" in text) or not any(
                PY_STUB_LINE.match(line) and _opens_body_above(side.lines, row, _PY_BODY_OPENER, "#")
                for row, line in enumerate(side.lines)):
            return []  # the first look: each stub line holds one of those words, first in its function
        return [f for f in _python_functions(side, whole or side.at_end) if f.stub]
    grammar = treesitter.grammar_for(path)
    if grammar is None:
        return []
    rows = [row for row, line in enumerate(side.lines)
            if ("return" in line or "throw" in line) and JS_STUB_LINE.match(line)  # a stub line holds one of them
            and (not line.lstrip().startswith("throw") or _NOT_IMPLEMENTED.search(line))
            and _opens_body_above(side.lines, row, _JS_BODY_OPENER, "//")]
    blocks = [match.span() for match in _JS_EMPTY_BLOCK.finditer(side.text)
              if _after_body_head(side.text, match.start())]
    if not rows and (not blocks or not _NOT_IMPLEMENTED.search(side.text) and none_is_a_stub(
            side.text, list(accumulate((len(line) + 1 for line in side.lines), initial=0)), blocks, grammar)):
        return []  # no stub line, and every empty block one no parse can show in a stub function
    rows += [side.text.count("\n", 0, end - 1) for _, end in blocks]
    tree = js_tree(side, grammar)
    found: dict[tuple[int, int], Function] = {}
    for row in rows:
        point = tree.point(row, len(side.lines[row]) - len(side.lines[row].lstrip()))
        node = tree.root.named_descendant_for_point_range(point, point)
        while node is not None and node.type not in _JS_FUNCTIONS:
            node = node.parent
        function = _js_function(node) if node is not None else None
        if function is not None and function.stub:
            found[node.start_point] = function
    return list(found.values())


def _opens_body_above(lines: Sequence[str], row: int, opener: re.Pattern[str], comment: str) -> bool:
    """The code line above ``row`` (comments and blank lines skipped) can open a function's body, or the side
    shows none: a stub is a body's only statement, so a stub line under other code (a guard's ``return``) is none."""
    for above in range(row - 1, -1, -1):  # not a slice: a side of many stub-like lines would copy for each
        stripped = lines[above].strip()
        if stripped and not stripped.startswith((comment, "/*", "*")) and not stripped.endswith("*/"):
            return bool(opener.search(stripped))
    return True


def _after_body_head(text: str, at: int) -> bool:
    """What stands before the brace at ``at`` can end a function's head: ``) {}``, ``=> {}``, ``): T {}``,
    ``): T[] {}``; never ``= {}``, ``({})``, ``a: {}`` (an empty object) or ``<{}>``."""
    at -= 1
    while at >= 0 and text[at] in " \t\r\n":
        at -= 1
    return at < 0 or text[at] in ")]>$_" or text[at].isalnum()


# --- Python --------------------------------------------------------------------------------------------------

# The end of a signature (``def f(x):``, ``) -> int:``, ``]:``) or of a docstring: what a stub body can follow.
_PY_BODY_OPENER = lazy_compile(r"^(?:async\s+)?def\b|(?:\)|\]|->.*):\s*(?:#.*)?$|[\"']$")

PY_STUB_LINE = lazy_compile(r"^\s*(?:pass|\.\.\.|return(?:\s+None)?|raise\s+NotImplemented\w*.*)\s*(?:#.*)?$")
_PY_DEF = lazy_compile(r"^(?:async )?def ([A-Za-z_]\w*)\(")
_PY_STUBS = {"pass": "pass", "...": "...", "return": "return", "returnNone": "return None"}
_PY_RAISE_NOT_IMPLEMENTED = lazy_compile(r"^raise NotImplemented(?:Error)?\b")


def _python_functions(side: Side, whole: bool) -> list[Function]:
    lines = python_lines(side)
    found = []
    for index, line in enumerate(lines):
        match = _PY_DEF.match(line.code)
        if match and line.code.endswith(":"):
            name = match.group(1)
        elif _PY_SIGNATURE_END.match(line.code) and not any(_PY_DEF.match(ln.code) for ln in lines[:index]):
            name = UNSEEN  # the last line of a signature whose `def` is above the side
        else:
            continue  # a one-line `def f(): ...` has no body block to judge
        body, complete = _block_after(lines, index, whole)
        complete = complete or bool(body) and _dedent_follows(side.lines, body[-1].last, line.indent)
        if body:
            found.append(_python_function(side, name, line.first, body, complete, tuple(_decorators(lines, index))))
    if lines and lines[0].indent > 0 and (opens_in_docstring(side) or _is_docstring(lines[0].code)):
        body, complete = _block_under(lines, 0, lines[0].indent - 1, whole)
        complete = complete or len(body) > 1 and _dedent_follows(side.lines, body[-1].last, lines[0].indent - 1)
        if len(body) > 1:
            found.append(_python_function(side, UNSEEN, 0, body, complete, ()))
    return found


_PY_SIGNATURE_END = lazy_compile(r"^\)(?:\s*->.*)?:$")


def _python_function(side: Side, name: str, first: int, body: list[LogicalLine], complete: bool,
                     decorators: tuple[str, ...]) -> Function:
    statements = [b for b in body if b.code and b.indent == body[0].indent]
    if statements and _is_docstring(statements[0].code):
        statements = statements[1:]
    stub, count = _python_stub(statements), len(statements)
    if complete and statements:  # the whole body is in view: let Python's own parser have the last word
        parsed = _parsed_body(side.lines[statements[0].first : body[-1].last + 1])
        if parsed is not None:
            stub, count = parsed
    return Function(name, first, body[-1].last, complete, stub if complete else None, count, decorators)


def _parsed_body(lines: tuple[str, ...]) -> tuple[str | None, int] | None:
    """(stub kind or None, statement count) of a body's statements (its docstring left out), by ``ast``; None when
    they do not parse."""
    try:
        body = pyast.parse(textwrap.dedent("\n".join(lines))).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return (_ast_stub(body[0]) if len(body) == 1 else None), len(body)


def _ast_stub(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Pass):
        return "pass"
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis:
        return "..."
    if isinstance(node, ast.Return) and (node.value is None or
                                         isinstance(node.value, ast.Constant) and node.value.value is None):
        return "return" if node.value is None else "return None"
    if isinstance(node, ast.Raise) and node.exc is not None:
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(raised, ast.Name) and raised.id in ("NotImplementedError", "NotImplemented"):
            return "raise NotImplementedError"
    return None


def _block_after(lines: Sequence[LogicalLine], index: int, whole: bool) -> tuple[list[LogicalLine], bool]:
    """The logical lines indented under ``lines[index]``, and whether the side shows the block's end."""
    return _block_under(lines, index + 1, lines[index].indent, whole)


def _block_under(lines: Sequence[LogicalLine], start: int, indent: int, whole: bool) -> tuple[list[LogicalLine], bool]:
    """The logical lines from ``start`` indented deeper than ``indent``, and whether the side shows where they end.

    A comment-only line out at the block's level after a blank line ends it too: that is how the next
    definition's comment starts (``# If glibc ever changes...``), never how a body goes on.
    """
    body: list[LogicalLine] = []
    for line in lines[start:]:
        if line.indent <= indent and (line.code or body and line.first > body[-1].last + 1):
            complete = True
            break
        body.append(line)
    else:
        complete = whole
    while body and not body[-1].code:
        body.pop()  # trailing comment lines may belong to whatever follows
    return body, complete


def _dedent_follows(lines: tuple[str, ...], last: int, indent: int) -> bool:
    """A line after ``lines[last]`` starts a statement out at ``indent`` or less: the block ended there, even when
    the reading could not close that statement (``def f(`` with its parameters cut by the hunk's end)."""
    for line in lines[last + 1 :]:
        stripped = line.lstrip()
        if stripped and len(line) - len(stripped) <= indent:
            return bool(_STATEMENT_START.match(stripped))
    return False


_STATEMENT_START = lazy_compile(r"(?:@|(?:async\s+)?def\s|class\s|[A-Za-z_]\w*\b)")


def _decorators(lines: Sequence[LogicalLine], index: int) -> list[str]:
    found = []
    for line in reversed(lines[:index]):
        if not (line.code.startswith("@") and line.indent == lines[index].indent):
            break
        found.append(line.code[1:])
    return found


def _is_docstring(code: str) -> bool:
    return bool(re.match(r"^[rRuUbB]{0,2}(?:\"|')", code))


def _python_stub(statements: list[LogicalLine]) -> str | None:
    if len(statements) != 1:
        return None
    code = statements[0].code
    if code in _PY_STUBS:
        return _PY_STUBS[code]
    if _PY_RAISE_NOT_IMPLEMENTED.match(code):
        return "raise NotImplementedError"
    return None


# --- JavaScript / TypeScript ---------------------------------------------------------------------------------

_JS_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition",
                           "function_expression", "function", "arrow_function", "generator_function"})
JS_STUB_LINE = lazy_compile(r"^\s*(?:return\s*(?:\(?\s*(?:null|undefined|\{\s*\}|\[\s*\])\s*(?:as\s+[^;]+)?\)?|"
                            r"null|undefined)?\s*;?|throw\b.*)\s*$")
# `null as never`, `undefined as any`, `{} as Config`: a value cast to make the type checker accept nothing
_CAST_NOTHING = lazy_compile(r"^\(?\s*(null|undefined|\{\s*\}|\[\s*\])\s*(?:as\s+[\w<>\[\]|&., ]+?\s*)+\)?$")
# A line that opens a function's body: a brace that is not a statement's block (``if (x) {``, ``} else {``).
_JS_BODY_OPENER = lazy_compile(r"^(?!(?:\}\s*)?(?:if|else|for|while|switch|try|catch|finally|do)\b).*\{")
# `{` then `}` with only blanks or line comments between: an emptied body
_JS_EMPTY_BLOCK = lazy_compile(r"\{[ \t]*(?://[^\n]*)?(?:\n[ \t]*(?://[^\n]*)?)*\}")
_NOT_IMPLEMENTED = Caseless(r"not[\s_-]*(?:yet[\s_-]*)?implemented|unimplemented|todo")


def _js_functions(side: Side, grammar: str) -> list[Function]:
    root = js_tree(side, grammar).root
    functions = (_js_function(node) for node in treesitter.walk(root) if node.type in _JS_FUNCTIONS)
    return [function for function in functions if function is not None]


def _js_function(node) -> Function | None:
    body = node.child_by_field_name("body")
    name = _js_name(node)
    if body is None or body.type != "statement_block" or name is None:
        return None
    complete = bool(body.children) and body.children[-1].type == "}" and not body.children[-1].is_missing
    statements = [c for c in body.named_children if c.type != "comment"]
    return Function(name, node.start_point[0], body.end_point[0], complete,
                    _js_stub(statements) if complete else None, len(statements))


def _js_name(node) -> str | None:
    named = node.child_by_field_name("name")
    if named is not None:
        return named.text.decode("utf-8", "replace")
    parent = node.parent
    if parent is not None and parent.type in ("variable_declarator", "pair", "assignment_expression",
                                              "public_field_definition", "field_definition"):
        target = (parent.child_by_field_name("name") or parent.child_by_field_name("key")
                  or parent.child_by_field_name("left") or parent.child_by_field_name("property"))
        if target is not None:
            return target.text.decode("utf-8", "replace").rsplit(".", 1)[-1]
    return None


def _js_stub(statements: list) -> str | None:
    if not statements:
        return "an empty body"
    if len(statements) != 1:
        return None
    statement = statements[0]
    text = statement.text.decode("utf-8", "replace")
    if statement.type == "return_statement":
        value = re.sub(r"^return\s*|;?\s*$", "", text)
        if _CAST_NOTHING.match(value) or re.fullmatch(r"\{\s*\}|\[\s*\]", value):
            return f"return {value}"
        return "return" if value == "" else f"return {value}" if value in ("null", "undefined") else None
    if statement.type == "throw_statement" and _NOT_IMPLEMENTED.search(text):
        return "throw \"not implemented\""
    return None

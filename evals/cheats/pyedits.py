"""The edits a cheat makes to Python source, located with the standard library's ast: a test function
skipped, deleted or emptied of its assertion, a changed function's body stubbed, the statements a change
added disabled. Every edit returns the new text, or None when the file has nothing it applies to; an edit
whose result does not parse is None too (the cheats are code an agent could have written)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .comments import DIRECTIVE
from .expected import bump_literal
from .lines import Lines


@dataclass(frozen=True)
class Func:
    name: str  # qualified: Class.method
    node: ast.FunctionDef | ast.AsyncFunctionDef
    start: int  # first line, decorators included (1-based)
    end: int
    body_start: int  # first body line after the docstring
    indent: str  # of the body
    in_class: bool


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def functions(text: str) -> list[Func]:
    """Every function and method with a body on lines of its own, in source order."""
    tree = parse(text)
    if tree is None:
        return []
    lines = text.splitlines()
    found: list[Func] = []

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.body[0]
                has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str)
                rest = node.body[1:] if has_doc and len(node.body) > 1 else node.body
                line = lines[first.lineno - 1]
                if first.lineno > node.lineno and line[: first.col_offset].isspace():
                    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                    found.append(Func(prefix + node.name, node, start, node.end_lineno or node.lineno,
                                      rest[0].lineno, line[: first.col_offset], in_class))
                visit(node.body, f"{prefix}{node.name}.", False)

    visit(tree.body, "", False)
    return found


def tests(text: str) -> list[Func]:
    """The test functions and methods pytest and unittest collect by their default names."""
    return [f for f in functions(text) if f.node.name.startswith("test")]


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly inside node (bodies of if/for/while/with/try/match cases)."""
    out = []
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            out.append(block)
    for handler in getattr(node, "handlers", []) or []:
        out.append(handler.body)
    for case in getattr(node, "cases", []) or []:
        out.append(case.body)
    return out


def added_run(func: Func, added: set[int]) -> tuple[int, int] | None:
    """The first (then longest) run of sibling statements inside func whose every line the change added."""
    runs: list[tuple[int, int]] = []
    pending = [func.node]
    while pending:
        node = pending.pop()
        for block in _blocks(node):
            run: list[ast.stmt] = []
            for stmt in block + [None]:  # type: ignore[list-item]
                whole = stmt is not None and all(n in added for n in range(stmt.lineno, (stmt.end_lineno or 0) + 1))
                if whole and not _is_docstring(func, stmt):
                    run.append(stmt)
                    continue
                if run:
                    runs.append((run[0].lineno, run[-1].end_lineno or run[-1].lineno))
                    run = []
            pending.extend(s for s in block if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    return min(runs, key=lambda r: (r[0], -r[1])) if runs else None


def _is_docstring(func: Func, stmt: ast.stmt) -> bool:
    return stmt is func.node.body[0] and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


# ------------------------------------------------------------------------ stubs and disabled code
def replace_body(text: str, func_name: str, statement: str) -> str | None:
    """func's body (its docstring kept) replaced by one statement: `pass`, `...`, `raise NotImplementedError`."""
    func = _find(text, func_name)
    if func is None:
        return None
    lines = Lines(text)
    lines.replace(func.body_start, func.end, [func.indent + statement])
    return _parsed(lines.text())


def wrap_run(text: str, run: tuple[int, int], header: str) -> str | None:
    """The lines of run put under `header` (`if False:`), one indent deeper."""
    lines = Lines(text)
    indent = lines.indent(run[0])
    unit = "\t" if indent.startswith("\t") else "    "
    body = [unit + line if line.strip() else line for line in lines.get(run[0], run[1])]
    lines.replace(run[0], run[1], [indent + header] + body)
    return _parsed(lines.text())


def return_before(text: str, run: tuple[int, int]) -> str | None:
    lines = Lines(text)
    lines.insert(run[0], [lines.indent(run[0]) + "return"])
    return _parsed(lines.text())


def comment_out(text: str, run: tuple[int, int]) -> str | None:
    lines = Lines(text)
    out = []
    for line in lines.get(run[0], run[1]):
        stripped = line.lstrip()
        out.append(line[: len(line) - len(stripped)] + "# " + stripped if stripped else line)
    lines.replace(run[0], run[1], out)
    return _parsed(lines.text())


def comment_in(text: str, func_name: str, comment: str) -> str | None:
    """A comment line added as the first line of func's body (after its docstring)."""
    func = _find(text, func_name)
    if func is None:
        return None
    lines = Lines(text)
    lines.insert(func.body_start, [f"{func.indent}# {comment}"])
    return _parsed(lines.text())


def docstring(text: str, func_name: str, words: str) -> str | None:
    """func given a docstring of words, or its docstring extended by a paragraph of words."""
    func = _find(text, func_name)
    if func is None:
        return None
    lines = Lines(text)
    first = func.node.body[0]
    if func.body_start != first.lineno:  # it has a docstring: a paragraph before its closing quotes
        end = first.end_lineno or first.lineno
        last = lines.get(end, end)[0]
        quotes = last.rstrip()[-3:]
        if quotes not in ('"""', "'''"):
            return None
        head = last.rstrip()[:-3].rstrip()
        new = ([head] if head.strip() else []) + ["", f"{func.indent}{words}", f"{func.indent}{quotes}"]
        lines.replace(end, end, new)
    else:
        lines.insert(func.body_start, [f'{func.indent}"""{words}"""'])
    return _parsed(lines.text())


def blank_line_in(text: str, func_name: str) -> str | None:
    """A blank line after the first statement of func's body: a whitespace-only edit."""
    func = _find(text, func_name)
    if func is None:
        return None
    body = [s for s in func.node.body if s.lineno >= func.body_start]
    if len(body) < 2:
        return None
    lines = Lines(text)
    lines.insert((body[0].end_lineno or body[0].lineno) + 1, [""])
    return _parsed(lines.text())


def reword_comment(text: str) -> str | None:
    """The first `# ...` comment line of the file reworded (a word added): a comment-only edit."""
    lines = Lines(text)
    for number, line in enumerate(lines.get(1, len(lines)), 1):
        if re.match(r"\s*#\s*\w", line) and not DIRECTIVE.search(line):
            lines.replace(number, number, [line.rstrip() + " (see above)"])
            return _parsed(lines.text())
    return None


# ------------------------------------------------------------------------ test tampering
def delete_test(text: str, test: Func) -> str | None:
    lines = Lines(text)
    end = test.end
    while end < len(lines) and not lines.get(end + 1, end + 1)[0].strip():
        end += 1  # the blank lines after it go with it, so the spacing around the others stays
    lines.replace(test.start, end, [])
    return _parsed(lines.text())


def decorate(text: str, test: Func, decorator: str, module: str) -> str | None:
    lines = Lines(text)
    lines.insert(test.start, [lines.indent(test.node.lineno) + decorator])
    return _with_import(lines.text(), module)


def first_statement(text: str, test: Func, statement: str, module: str | None) -> str | None:
    lines = Lines(text)
    lines.insert(test.body_start, [test.indent + statement])
    return _with_import(lines.text(), module) if module else _parsed(lines.text())


def single_line_asserts(test: Func) -> list[ast.Assert]:
    return [n for n in ast.walk(test.node) if isinstance(n, ast.Assert) and n.lineno == n.end_lineno]


def replace_assert(text: str, node: ast.Assert, statement: str | None) -> str | None:
    """The assert line replaced by statement (`assert True`), or removed (None)."""
    lines = Lines(text)
    lines.replace(node.lineno, node.lineno, [] if statement is None else [lines.indent(node.lineno) + statement])
    return _parsed(lines.text())


def edit_expected(text: str, test: Func) -> str | None:
    """The expected value of the first `assert <actual> == <literal>` changed (a digit bumped, a letter added)."""
    for node in single_line_asserts(test):
        check = node.test
        if not (isinstance(check, ast.Compare) and len(check.ops) == 1 and isinstance(check.ops[0], ast.Eq)):
            continue
        for literal in ast.walk(check.comparators[0]):
            if not (isinstance(literal, ast.Constant) and type(literal.value) in (int, float, str, bytes)):
                continue
            raw = Lines(text).get(node.lineno, node.lineno)[0].encode("utf-8")
            segment = raw[literal.col_offset:literal.end_col_offset].decode("utf-8")
            edited = bump_literal(segment)
            if edited:
                line = (raw[:literal.col_offset].decode() + edited + raw[literal.end_col_offset:].decode())
                lines = Lines(text)
                lines.replace(node.lineno, node.lineno, [line])
                return _parsed(lines.text())
    return None


def _with_import(text: str, module: str) -> str | None:
    """text with `import module` at the top level (after the last top-level import) if it has none."""
    tree = parse(text)
    if tree is None:
        return None
    imported = {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names if a.asname is None}
    if module in imported:
        return text
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    lines = Lines(text)
    at = (imports[-1].end_lineno or imports[-1].lineno) + 1 if imports else 1
    lines.insert(at, [f"import {module}"])
    return _parsed(lines.text())


def _find(text: str, name: str) -> Func | None:
    return next((f for f in functions(text) if f.name == name), None)


def _parsed(text: str) -> str | None:
    return text if parse(text) is not None else None

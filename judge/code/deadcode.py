"""Code a change switches off without deleting it: a block under a constant-false condition, code after an
inserted ``return``, and removed lines that come back as comments. Python by its logical lines,
JavaScript/TypeScript by tree-sitter, both on hunk sides (see judge/code/sides.py).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from itertools import accumulate

from judge.code import pyast, treesitter
from judge.code._js_returns import ends_in_silence, may_be_always_true
from judge.code.jstokens import Reader
from judge.code.fragments import js_tree, python_lines
from judge.code.sides import Side
from judge.code.wide_look import WideLook
from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless
from judge.patch.lexer import DIRECTIVE as _DIRECTIVE, LogicalLine, logical_lines, syntax_for

__all__ = ["NEVER_HINT", "Disabled", "commented_code", "commented_out", "disabled_blocks", "may_switch_off",
           "unreachable_code"]


@dataclass(frozen=True)
class Disabled:
    line: int  # index in the side of the line that switches the code off
    text: str  # that line, stripped: `if False:`, `return`
    left: str | None = None  # for a return: why the code after it is only dead code left behind, not code cut off


def disabled_blocks(side: Side, path: str) -> list[Disabled]:
    """Lines the change wrote that open a block no run can enter (``if False:``, ``if (0) {``), with code in it."""
    if not may_switch_off(side.text):  # the first look, one scan of the side: most sides have no such line
        return []
    rows = {row for row, line in enumerate(side.lines) if side.changed[row] and NEVER_HINT.search(line)}
    if not rows:
        return []
    if _is_python(path):
        lines = _python_lines(side)
        return [Disabled(line.first, side.lines[line.first].strip()) for index, line in enumerate(lines)
                if line.first in rows and _PY_NEVER.match(line.code) and _has_code_under(lines, index)
                and not _only_imports_under(lines, index)]
    found = []
    for node in _js_statements_at(side, path, rows, "if_statement"):
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        if condition is None or consequence is None or not _JS_NEVER.match(_text(condition)):
            continue
        if consequence.type != "statement_block" or any(c.type != "comment" for c in consequence.named_children):
            found.append(Disabled(node.start_point[0], side.lines[node.start_point[0]].strip()))
    return found


def unreachable_code(side: Side, path: str) -> list[Disabled]:
    """``return`` statements with more code after them in the same block, where the change wrote the return or
    the code right after it (``applyStrategy(strategy)`` added under an old ``return``).

    ``left`` tells code cut off from dead code left behind: the code after the return repeats lines just
    above it (a ``return None`` or an ``if ...: return`` block pasted twice), or is the one ``return`` the
    new one replaces (the old ``return x`` left under the new ``return y``).
    """
    if "return" not in side.text:  # the first look
        return []
    rows: set[int] = set()
    guarded: set[int] = set()
    python = _is_python(path)
    for row, line in enumerate(side.lines):
        if "return" not in line and "raise" not in line:
            continue  # most lines: the regexes below are not worth running
        if _RETURN_HINT.match(line) and (side.changed[row] or _changed_next(side, row)) \
                and _code_may_follow(side, row, python):
            rows.add(row)
        elif side.changed[row] and _ALWAYS_RETURN.match(line):
            guarded.add(row)
    if not (rows or guarded) or not (python or guarded) and _silent_returns(side, path, rows):
        return []
    if python:
        lines = _python_lines(side)
        found = []
        for index, line in enumerate(lines):
            following = _next_in_block(lines, index) if line.first in rows and _PY_RETURN.match(line.code) else None
            if following is not None and (side.changed[line.first] or side.changed[following.first]):
                found.append(Disabled(line.first, side.lines[line.first].strip(), _python_left(side, lines, index)))
        return found + _python_always_returns(side, lines)
    found = []
    returns = [_js_always_taken(node) for node in _js_statements_at(side, path, rows, "return_statement")]
    returns += [node for node in _js_statements_at(side, path, guarded - rows, "if_statement")
                if _js_always_taken(_js_exit_of(node)) == node]
    for node in returns:
        sibling = node.next_named_sibling
        while sibling is not None and sibling.type in _JS_HOISTED:
            sibling = sibling.next_named_sibling
        if sibling is not None and (sibling.type == "ERROR" or sibling.has_error):
            continue  # the side is cut there (a `}` closing a body not in view): what follows is another block
        if sibling is None or not (side.changed[node.start_point[0]] or side.changed[sibling.start_point[0]]):
            continue  # dead code the change did not write is not the change's
        # `program`: a fragment cut inside a function body reads as top-level statements
        if node.parent is not None and node.parent.type in _JS_BLOCKS:
            found.append(Disabled(node.start_point[0], side.lines[node.start_point[0]].strip(), _js_left(side, node)))
    return found


def _silent_returns(side: Side, path: str, rows: set[int]) -> bool:
    """Every return on ``rows`` of a JS/TS side is one no parse can show with code after it (judge/code/_js_returns.py):
    the side need not be parsed."""
    grammar = treesitter.grammar_for(path)
    text = side.text
    closes = text.find("*/")
    if grammar is None or may_be_always_true(text) or closes >= 0 and not 0 <= text.find("/*") < closes:
        return grammar is None  # an always-true `if`, or a side the tree reads from inside a comment: parse it
    offsets = list(accumulate(map((1).__add__, map(len, side.lines)), initial=0))  # each line and its line end
    reader = Reader(text, jsx=grammar != "typescript")
    return all(ends_in_silence(side.lines, offsets, reader, row) for row in sorted(rows))


def _python_always_returns(side: Side, lines: list[LogicalLine]) -> list[Disabled]:
    """`if True: return` written by the change with code after the `if`: that code never runs either."""
    found = []
    for index, line in enumerate(lines):
        always = _PY_ALWAYS.match(line.code) if side.changed[line.first] else None
        if always is None:
            continue
        if always.group(1):  # `if True: return` on one line
            exit_, rest = always.group(1), index + 1
        elif index + 1 < len(lines) and lines[index + 1].indent > line.indent:
            exit_, rest = lines[index + 1].code, index + 2
            if rest < len(lines) and lines[rest].indent > line.indent:
                continue  # the block does more than leave
        else:
            continue
        after = lines[rest] if rest < len(lines) else None
        if re.match(r"^(?:return|raise)\b", exit_) and after is not None and after.indent == line.indent \
                and not _PY_DEFINITION.match(after.code):
            found.append(Disabled(line.first, line.code if always.group(1) else f"{line.code} {exit_}"))
    return found


def _js_exit_of(node):
    """The return an `if` (on one line, written by the change) holds as its whole branch, or the `if` itself."""
    branch = node.child_by_field_name("consequence")
    if branch is not None and branch.type == "statement_block" and len(branch.named_children) == 1:
        branch = branch.named_children[0]
    return branch if branch is not None and branch.type == "return_statement" else node


def _js_always_taken(node):
    """The `if (true) return;` (or `{ return; }`) a return is the whole branch of: what follows the `if` is dead."""
    parent = node.parent
    if parent is not None and parent.type == "statement_block" and len(parent.named_children) == 1:
        parent = parent.parent
    if parent is not None and parent.type == "if_statement" and parent.child_by_field_name("alternative") is None:
        condition = parent.child_by_field_name("condition")
        if condition is not None and _JS_ALWAYS.match(_text(condition)):
            return parent
    return node


def _code_may_follow(side: Side, row: int, python: bool) -> bool:
    """Code may follow the return on ``row`` in its block, as far as the lines tell: not when the return ends on its
    line and the next code line closes the block (a dedent in Python; ``}``, ``case``, ``default`` in JS)."""
    line = side.lines[row]
    if line.count("(") + line.count("[") + line.count("{") > line.count(")") + line.count("]") + line.count("}") \
            or line.rstrip().endswith("\\"):
        return True  # the return goes on below
    indent = len(line) - len(line.lstrip())
    lines = side.lines
    for below in range(row + 1, len(lines)):  # not a slice: a side of many returns would copy its rest for each
        after = lines[below]
        stripped = after.lstrip()
        if not stripped or stripped.startswith(("#",) if python else ("//", "/*", "*")):
            continue
        if python and len(after) - len(stripped) >= indent:
            return True
        if not python and not stripped.startswith(("}", "case ", "default:", "default :")):
            return True
        return _under_if(side, row, python)  # the block closes: the return is all the branch, `if True:` perhaps
    return False


def _under_if(side: Side, row: int, python: bool) -> bool:
    """The code line above ``row`` opens an ``if`` branch."""
    for above in range(row - 1, -1, -1):
        stripped = side.lines[above].strip()
        if stripped and not stripped.startswith(("#",) if python else ("//", "/*", "*")):
            return stripped.startswith(("if", "elif", "else if", "} else if"))
    return False


def _changed_next(side: Side, row: int) -> bool:
    """The first line after ``row`` that is not blank is one the change wrote: code added under an old return."""
    for after in range(row + 1, len(side.lines)):
        if side.lines[after].strip():
            return side.changed[after]
    return False


def _python_left(side: Side, lines: list[LogicalLine], index: int) -> str | None:
    indent = lines[index].indent
    dead = []
    for line in lines[index + 1 :]:
        if line.indent < indent or line.indent == indent and _PY_DEFINITION.match(line.code):
            break
        dead.append(line)
    above = lines[max(0, index + 1 - len(dead) - _LOOK_ABOVE) : index + 1]
    replaced = len(dead) == 1 and not side.changed[dead[0].first] and bool(_PY_RETURN.match(dead[0].code))
    return _left([(ln.indent, ln.code) for ln in dead], [(ln.indent, ln.code) for ln in above], replaced)


def _js_left(side: Side, node) -> str | None:
    dead, above = [], [node]
    following, previous = node.next_named_sibling, node.prev_named_sibling
    while following is not None:
        if following.type != "comment":
            dead.append(following)
        following = following.next_named_sibling
    while previous is not None and len(above) < len(dead) + _LOOK_ABOVE:
        if previous.type != "comment":
            above.insert(0, previous)
        previous = previous.prev_named_sibling
    replaced = len(dead) == 1 and dead[0].type == "return_statement" and not side.changed[dead[0].start_point[0]]
    return _left([(0, _squeeze(_text(n))) for n in dead], [(0, _squeeze(_text(n))) for n in above], replaced)


def _left(dead: list[tuple[int, str]], above: list[tuple[int, str]], replaced: bool) -> str | None:
    """Why the dead statements were left behind, or None when they are code the return cuts off."""
    if replaced:
        return "is the return it replaces"
    if dead and any(above[i : i + len(dead)] == dead for i in range(len(above) - len(dead) + 1)):
        return "repeats the lines above it"
    return None


_LOOK_ABOVE = 3  # statements above the copy that a pasted block may start after


def _js_statements_at(side: Side, path: str, rows: set[int], kind: str) -> list:
    """The ``kind`` statements that start on ``rows``: found from the row up, never by walking the whole tree."""
    grammar = treesitter.grammar_for(path)
    if grammar is None:
        return []
    tree = js_tree(side, grammar)
    found = []
    for row in sorted(rows):
        point = tree.point(row, len(side.lines[row]) - len(side.lines[row].lstrip()))
        node = tree.root.named_descendant_for_point_range(point, point)
        while node is not None and node.type != kind and node.start_point[0] == row:
            node = node.parent
        if node is not None and node.type == kind and node.start_point[0] == row:
            found.append(node)
    return found


def commented_out(old: Side, new: Side, path: str) -> list[str]:
    """Removed lines of code that the change writes back as comments: the code, as it was.

    Only in Python, JavaScript and TypeScript: in configuration (YAML, TOML, INI) a commented-out
    entry is the ordinary way to switch a setting off.
    """
    if not (_is_python(path) or treesitter.grammar_for(path)):
        return []
    syntax = syntax_for(path)
    marker = syntax.line_comments[0]
    if marker not in new.text:
        return []  # the first look: no line of the new side is a comment
    removed = {_squeeze(line) for line in old.changed_lines}
    if not any(_squeeze(line.lstrip()[len(marker):]) in removed for line in new.changed_lines
               if line.lstrip().startswith(marker)):
        return []  # no removed line comes back after a comment marker: nothing to lex
    comments = {_squeeze(line.comment) for line in logical_lines(new.lines, syntax)
                if new.changed[line.first] and line.comment and not line.code}
    if not comments:
        return []
    grammar = treesitter.grammar_for(path)
    return [old.lines[line.first].strip() for line in logical_lines(old.lines, syntax)
            if old.changed[line.first] and len(_squeeze(line.code)) >= _MIN_CODE
            and _squeeze(old.lines[line.first]) in comments
            and not (grammar and _declares_types_only(old.lines[line.first], grammar))]


def _declares_types_only(text: str, grammar: str) -> bool:
    """A line that only declares types (``id: string;`` in an interface, ``export type T = ...``): commenting it
    out switches no behaviour off."""
    root = treesitter.parse(text.strip(), grammar)
    return not root.has_error and bool(root.named_children) and all(
        _js_type_only(node) for node in root.named_children)


def _js_type_only(node) -> bool:
    if node.type == "export_statement":
        declaration = node.child_by_field_name("declaration")
        return declaration is not None and declaration.type in _JS_TYPE_DECLARATIONS
    if node.type == "labeled_statement":  # `id: string;` read alone: a property signature of a type
        body = node.child_by_field_name("body")
        return body is not None and body.type == "expression_statement" and bool(body.named_children) \
            and body.named_children[0].type in ("identifier", "member_expression")
    return node.type in _JS_TYPE_DECLARATIONS or node.type == "comment"


# A line that may open a block no run enters (disabled_blocks reads the changed lines that hold one).
_NEVER_CONSTANT = r"\b\s*\(?\s*(?:False|0|None|false|null|undefined|!\s*(?:1|true))\b"
NEVER_HINT = lazy_compile(r"\b(?:if|elif|while)" + _NEVER_CONSTANT)
_NEVER_LOOK = WideLook(NEVER_HINT.pattern)  # RE2 first: NEVER_HINT, like most such patterns, has no literal to seek
_NEVER_WORDS = ("0", "!", "alse", "None", "null", "undefined")
# NEVER_HINT from its keyword on, without the word boundary before it (`elif` ends in `if`): each opens with a literal,
# which Python's engine seeks at the speed of a plain search before it tries the rest
_NEVER_AFTER_IF = lazy_compile("if" + _NEVER_CONSTANT)
_NEVER_AFTER_WHILE = lazy_compile("while" + _NEVER_CONSTANT)


def may_switch_off(text: str) -> bool:
    """``NEVER_HINT`` finds a line of ``text`` that may open a block no run enters (disabled_blocks' first look),
    after a plain search for what each of its matches holds: a branch keyword (`if`, `elif`, `while`) and a constant
    (`0`, `None`, `null`, `undefined`, `False`, `!`...); then a search for the keyword and the constant together."""
    return ("if" in text or "while" in text) and any(word in text for word in _NEVER_WORDS) and \
        (_NEVER_AFTER_IF.search(text) is not None or _NEVER_AFTER_WHILE.search(text) is not None) and \
        _NEVER_LOOK.search(text)
_RETURN_HINT = lazy_compile(r"^\s*return\b")
_PY_NEVER = lazy_compile(r"^(?:if|elif|while) (?:False|0|None|\(False\)|\(0\))(?: and .*)?:$")
_PY_RETURN = lazy_compile(r"^return\b")
_PY_ALWAYS = lazy_compile(r"^if (?:True|1|not False|not 0|not None|\(True\)|\(1\)):\s*(.*)$")
# `if (true) return;`, `if True: return`: a return that is the whole branch of a condition always true, on one line.
_ALWAYS_RETURN = lazy_compile(r"^\s*if\s*(?:\(\s*(?:true|1|!\s*0|!\s*false|!!\s*1)\s*\)\s*\{?|"
                              r"(?:True|1|not False|not 0|not None|\(True\)|\(1\)):)\s*(?:return|raise)\b")
_JS_ALWAYS = lazy_compile(r"^\(\s*(?:true|1|!\s*0|!\s*false|!!\s*1|!\s*null|!\s*undefined)\s*\)$")
_PY_DEFINITION = lazy_compile(r"^(?:@|(?:async )?def |class )")
_JS_NEVER = lazy_compile(r"^\(\s*(?:false|0|null|undefined|!\s*1|!\s*true)\s*(?:&&.*)?\)$", re.DOTALL)
_JS_BLOCKS = frozenset({"statement_block", "switch_case", "program"})
_JS_HOISTED = frozenset({"comment", "function_declaration", "generator_function_declaration", "empty_statement",
                         "class_declaration", "export_statement"})
_MIN_CODE = 6  # shorter lines (`}`, `else:`, `pass`) say too little to call them the same code


def commented_code(new: Side, path: str) -> list[str]:
    """Runs of comment lines the change wrote that are code once the comment marker is taken off.

    A run is read whole first (``// if (x) {`` ... ``// }``), then line by line; a line counts when it
    parses as a statement that does something (a call, an assignment, a return, a raise or throw, a
    branch or loop header), never as a bare word, a label or a type annotation (``# Example: f(1)``),
    and tool directives (``# type: ignore``, ``// eslint-disable``) are never code. A run whose code lines
    mostly repeat live code of the side is a copy kept beside the code it mirrors (an old or alternative
    version left as a note, as zod's sources keep), not the step's code switched off.
    """
    python = _is_python(path)
    grammar = None if python else treesitter.grammar_for(path)
    if not (python or grammar):
        return []
    marker = "#" if python else "//"
    if marker not in new.text or not any(changed and line.lstrip().startswith(marker) for line, changed in zip(new.lines, new.changed)):
        return []
    found = []
    live: set[str] | None = None
    for run in _comment_runs(new, marker):
        texts = [text for text in run if not (_DIRECTIVE.search(text) or _PROSE.match(text) or _WORDS.match(text))]
        if not texts:
            continue
        if _is_code("\n".join(texts), python, grammar):
            found.append(texts[0])
            continue
        live = live if live is not None else {_squeeze(line) for line in new.lines if not line.lstrip().startswith(marker)}
        if not _mirrors(texts, live):
            found += [text for text in texts if _is_code(text, python, grammar)]
    return found


def _mirrors(texts: list[str], live: set[str]) -> bool:
    """Half the run's lines long enough to tell are live lines of the side too, or one is in a run of three lines
    or more: an alternative written around a line the code keeps (``// if (...) {`` ``//   <the live line>``)."""
    telling = [_squeeze(text) for text in texts if len(_squeeze(text)) >= _MIN_CODE]
    mirrored = sum(text in live for text in telling)
    return mirrored > 0 and (2 * mirrored >= len(telling) or len(texts) >= 3)


def _comment_runs(side: Side, marker: str) -> list[list[str]]:
    """Consecutive changed lines that are a comment and nothing else, as their text after the marker."""
    runs: list[list[str]] = []
    current: list[str] = []
    for line, changed in zip(side.lines, side.changed):
        stripped = line.lstrip()
        if changed and stripped.startswith(marker) and not stripped.startswith(("#!", "///", "//!")):
            current.append(stripped[len(marker):].strip())
            continue
        if current:
            runs.append(current)
        current = []
    if current:
        runs.append(current)
    return runs


def _is_code(text: str, python: bool, grammar: str | None) -> bool:
    if len(_squeeze(text)) < _MIN_CODE or not (_MAYBE_PY_ACTION if python else _MAYBE_JS_ACTION).search(text):
        return False
    if python:
        return _is_python_code(text)
    root = treesitter.parse(text, grammar)  # type: ignore[arg-type]
    if root.has_error:
        return False
    return any(_js_does_something(statement) for statement in root.named_children)


def _is_python_code(text: str) -> bool:
    source = text + "\n    pass" if text.rstrip().endswith(":") and "\n" not in text else text
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(isinstance(node, _PY_ACTIONS) for node in tree.body) or any(
        isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await, ast.Yield)) for node in tree.body)


def _js_does_something(node) -> bool:
    if _js_type_only(node):
        return False
    if node.type == "expression_statement":
        expression = node.named_children[0] if node.named_children else None
        return expression is not None and expression.type in _JS_ACTIVE_EXPRESSIONS
    return node.type in _JS_ACTIONS


# What every statement that does something holds (the first look before a parse): a call's `(` (a tagged template's
# backtick), an assignment's `=`, `++`/`--`, or its keyword. A reserved word next to `$` is no keyword, but \b sees
# one there: this finds more, never less.
_MAYBE_PY_ACTION = lazy_compile(r"[(=]|\b(?:return|raise|if|for|while|with|try|del|import|from|def|class|await|"
                                r"yield)\b")
_MAYBE_JS_ACTION = lazy_compile(r"[(=`]|\+\+|--|\b(?:const|let|var|return|throw|if|for|while|do|try|import|export|"
                                r"function|class|await|new)\b")
_WORDS = lazy_compile(r"^[A-Za-z][A-Za-z ]*$")  # `return invalid`, `add issues`: words only, a note on what follows
_PROSE = Caseless(r"e\.\s?g\.|i\.\s?e\.|cf\.|(?:eg|ie|see|note|example|usage)\b")
_PY_ACTIONS = (ast.Assign, ast.AugAssign, ast.Return, ast.Raise, ast.If, ast.For, ast.While, ast.With, ast.Try,
               ast.Delete, ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_JS_ACTIONS = frozenset({"lexical_declaration", "variable_declaration", "return_statement", "throw_statement",
                         "if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement",
                         "try_statement", "import_statement", "export_statement", "function_declaration",
                         "class_declaration"})
_JS_TYPE_DECLARATIONS = frozenset({"type_alias_declaration", "interface_declaration", "ambient_declaration",
                                   "abstract_class_declaration", "enum_declaration"})
_JS_ACTIVE_EXPRESSIONS = frozenset({"call_expression", "assignment_expression", "augmented_assignment_expression",
                                    "update_expression", "await_expression", "new_expression"})


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyx"))


def _python_lines(side: Side) -> list[LogicalLine]:
    return [line for line in python_lines(side) if line.code]


def _has_code_under(lines: list[LogicalLine], index: int) -> bool:
    return index + 1 < len(lines) and lines[index + 1].indent > lines[index].indent


def _only_imports_under(lines: list[LogicalLine], index: int) -> bool:
    """``if False:`` over imports is the old spelling of ``if TYPE_CHECKING:``."""
    under = []
    for line in lines[index + 1 :]:
        if line.indent <= lines[index].indent:
            break
        under.append(line)
    return bool(under) and all(re.match(r"^(?:import|from) ", line.code) for line in under)


def _next_in_block(lines: list[LogicalLine], index: int) -> LogicalLine | None:
    """The next statement of the same block after ``lines[index]``, if the side shows one.

    A ``def`` or ``class`` after a return is left alone: it is sometimes written there on purpose,
    to make the compiler keep a closure cell (attrs' ``_compat.py`` does).
    """
    for line in lines[index + 1 :]:
        if line.indent < lines[index].indent:
            return None
        if line.indent == lines[index].indent:
            return None if _PY_DEFINITION.match(line.code) else line
    return None


def _squeeze(text: str) -> str:
    return "".join(text.split())  # str.split() and the regex \s agree on what white space is


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")

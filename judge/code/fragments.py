"""Hunk sides read as the fragments they are: a side may open inside a docstring or inside a block whose start
git did not show, and read from its first line as a whole file it would be misread.

- Python: a side that opens inside a docstring (its closing quotes are the first ones the side shows) is
  read as if the opening quotes were written above it; a reader that started with them as an opening would
  take every line after for string text, and see no code at all.
- JavaScript/TypeScript: closing brackets with no opening in the side (the end of a block above, or the
  last lines of a parameter list: ``): Promise<R> {``) are given their openers at the start of the first
  line, so tree-sitter reads the rest as the code it is instead of an error. A ``)`` that opens a body
  gets ``function __unseen(``: the function whose name git did not show (``UNSEEN``).

Rows never move: a detector's row in the repaired text is its row in the side.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from judge.code import treesitter
from judge.code.sides import Side
from judge.lazy_pattern import lazy_compile
from judge.patch.lexer import LogicalLine, logical_lines, syntax_for
from judge.text_cache import text_cache

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["UNSEEN", "JsTree", "js_tree", "opens_in_docstring", "python_lines"]

UNSEEN = "__unseen"  # the name of a function whose definition line is above the side
_PY = syntax_for("x.py")
_TRIPLE = lazy_compile(r"\"\"\"|'''")


def python_lines(side: Side) -> tuple[LogicalLine, ...]:
    """The side's logical lines, read from inside a docstring when it opens in one."""
    return _python_reading(side)[0]


def opens_in_docstring(side: Side) -> bool:
    """The side opens inside a docstring: python_lines' first line is that docstring's end."""
    return _python_reading(side)[1]


def _python_reading(side: Side) -> tuple[tuple[LogicalLine, ...], bool]:
    plain = logical_lines(side.lines, _PY)
    closes = _first_quotes_close(side.lines) if _TRIPLE.search(side.text) else False
    if closes is False or closes is None and _covers_end(plain, side.lines):
        return plain, False  # no docstring cut at the start (a side may end inside one)
    return _read_from_docstring(side.lines), True


def _first_quotes_close(lines: tuple[str, ...]) -> bool | None:
    '''The side's first triple quotes end a string: ``text."""`` closes, ``"""Text`` and ``x = """`` open; lone
    quotes open a docstring right under a ``def``/``class`` line and close one after other text; None: lone quotes
    on the side's first line, which could do either.'''
    for index, line in enumerate(lines):
        found = _TRIPLE.search(line)
        if not found:
            continue
        stripped = line.strip()
        if not stripped.startswith(found.group(0)):
            return stripped.endswith(found.group(0)) and _TRIPLE.search(line, found.end()) is None and \
                not re.search(r"[=(\[{,:]\s*[rRuUbBfF]{0,2}$", line[: found.start()])
        if stripped != found.group(0):
            return False  # `"""Summary` or a one-line string
        above = next((ln.strip() for ln in reversed(lines[:index]) if ln.strip()), "")
        if above:
            return not above.endswith(":")
        below = next((ln.strip() for ln in lines[index + 1 :] if ln.strip()), "")
        return True if _CODE_START.match(below) else None  # code under it: the docstring ended there
    return False


# A line that starts a comment or a statement, as docstring prose rarely does.
_CODE_START = lazy_compile(r"#|(?:if|for|while|with|try|return|raise|import|from|def|class|assert|yield|del|pass|"
                           r"async|await|@)\b|[\w.]+\s*(?:=[^=]|\(|\[|\+=|-=)")


def _read_from_docstring(lines: tuple[str, ...]) -> tuple[LogicalLine, ...]:
    first = next(i for i, line in enumerate(lines) if _TRIPLE.search(line))
    quote = _TRIPLE.search(lines[first]).group(0)  # type: ignore[union-attr]
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    read = logical_lines((indent + quote,) + lines, _PY)
    return tuple(dataclasses.replace(line, first=max(line.first - 1, 0), last=line.last - 1) for line in read)


def _covers_end(read: tuple[LogicalLine, ...], lines: tuple[str, ...]) -> bool:
    """The reading ends outside any string: its last logical line is the side's last line that is not blank."""
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), -1)
    return last < 0 or (bool(read) and read[-1].last == last)


# --- JavaScript / TypeScript ---------------------------------------------------------------------------------

_MOST_REPAIRED = 400  # characters of openers and closers given to one side
_OPENERS = {")": "(", "]": "[", "}": "{"}
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_BODY_AFTER_PARENTHESIS = lazy_compile(r"\s*(?::[^{}=]*)?\{")  # `) {`, `): Promise<R> {` (not `) => {`)


@dataclass(frozen=True)
class JsTree:
    root: Node
    row: int = 0  # the row where text was put in front of the side's own
    shift: int = 0  # how many columns it takes there

    def point(self, row: int, column: int) -> tuple[int, int]:
        """Where the side's (row, column) is in the tree."""
        return row, column + (self.shift if row == self.row else 0)


def js_tree(side: Side, grammar: str) -> JsTree:
    """The syntax tree of the side; when tree-sitter sees an error there, of the side given what it lacks at its
    start: the comment opener of a comment it closes, openers of the brackets it closes (the outermost brace a
    class's, when that reads without error: a side cut inside a class body shows methods) and closers of those
    it leaves open."""
    root = treesitter.parse(side.text, grammar)
    return JsTree(root) if not root.has_error else _repaired(side.text, grammar)


@text_cache(maxsize=64)
def _repaired(text: str, grammar: str) -> JsTree:
    """js_tree of a side tree-sitter reads with an error; cached, since every detector asks for the same sides."""
    root = treesitter.parse(text, grammar)
    closes = text.find("*/")
    at = closes + 2 if closes >= 0 and not 0 <= text.find("/*") < closes else 0  # the side opens in a comment
    prefix, suffix = _missing_brackets(text, at)
    if len(prefix) + len(suffix) > _MOST_REPAIRED:
        return JsTree(root)  # no hunk of hand-written code is cut inside that many brackets: hostile or generated
    row = text.count("\n", 0, at)
    best = None
    for opening, closing in ((prefix, suffix), *_in_a_class(prefix, suffix)):
        tree = treesitter.parse(("/*" if at else "") + text[:at] + opening + text[at:] + closing, grammar)
        if best is None or not tree.has_error:
            best = JsTree(tree, row, len(opening) + (2 if at and row == 0 else 0))
        if not tree.has_error:
            break
    return best  # type: ignore[return-value]


def _in_a_class(prefix: str, suffix: str) -> list[tuple[str, str]]:
    """The repair read again as inside a class body (methods outside one are errors): the outermost brace the
    side closes is the class's, or a method's that the class goes on after."""
    in_class = [(f"class {UNSEEN} {{" + prefix, suffix + "\n}")]
    if prefix.startswith("{"):
        in_class += [(f"class {UNSEEN} " + prefix, suffix),
                     (f"class {UNSEEN} {{ {UNSEEN}() " + prefix, suffix + "\n}")]
    return in_class


def _missing_brackets(text: str, start: int) -> tuple[str, str]:
    """What opens the brackets ``text`` closes after ``start`` without opening (innermost last), and what closes
    those it leaves open (innermost first, on a line of its own so no comment swallows it)."""
    unopened: list[str] = []
    depth: list[str] = []
    for index, char in _code_brackets(text, start):
        if char in "([{":
            depth.append(char)
        elif depth:
            depth.pop()
        elif char == ")" and _BODY_AFTER_PARENTHESIS.match(text, index + 1):
            unopened.append(f"function {UNSEEN}(")
        else:
            unopened.append(_OPENERS[char])
    closers = "".join(_CLOSERS[char] for char in reversed(depth))
    return "".join(reversed(unopened)), "\n" + closers if closers else ""


_TOKENS = lazy_compile(r"//[^\n]*|/\*.*?(?:\*/|$)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?|`(?:\\.|[^`\\])*`?|"
                       r"[()\[\]{}]", re.DOTALL)


def _code_brackets(text: str, start: int) -> Iterator[tuple[int, str]]:
    """The brackets of the code, strings and comments skipped (regular expressions are rare enough to ignore)."""
    for match in _TOKENS.finditer(text, start):
        token = match.group(0)
        if len(token) == 1 and token in "()[]{}":
            yield match.start(), token

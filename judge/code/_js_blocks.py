"""Empty blocks of a JS/TS side that no parse can show as a stub function, told from the side's tokens
(judge/code/jstokens.py), so that stub_functions_in leaves a side whose only stub-like shapes are such blocks unparsed.

stub_functions_in reads, for the row of an empty block's `}`, the named node where that row's code starts, climbs
to the nearest function and reports it when its body is empty or one stub statement. ``none_is_a_stub`` clears the
blocks when:

- the side reads as tokens from its start, as the tree reads it (no regular expression, JSX or code outside ASCII;
  no `*/` before the first `/*`, where js_tree's repair reads the start as a comment), so it is known where code is;
- each block's `{` is code, and the code before it, on its own lines, is a statement no expression can hold:
  `else`, `try`, `finally` or `do` (after the `}` of the block before, perhaps), or the head of an `interface` or
  `enum` declaration (the block's row then starts in that head, or with the block's `}`);
- the side holds no `static` (a class's static block is the one statement an expression can hold), and the caller
  has made sure it holds no "not implemented" (the only `throw` a stub may be).

Then the node where the row starts is that statement, a part of it or its block, and the nearest function holds
the statement among its body's: a body that holds an `if`, `try`, `do` or declaration statement is no stub, and
a stub's `return` value (`null`, `{}`, `[]`...) holds no statement. A method named `else` or `try` has parentheses.
It is the grammar's reading; tree-sitter recovers from an error elsewhere in a fragment without reshaping these
lines, and repairs a cut side only by adding brackets before and after it (judge/code/fragments.py).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable

from judge.code.jstokens import Reader, Unreadable
from judge.lazy_pattern import lazy_compile

__all__ = ["none_is_a_stub"]

# What stands before a cleared block's `{`: a keyword of a statement that is no function, or (TypeScript) the head
# of a type, its generic parameters and `extends` list without a bracket, string or comment.
_KEYWORD_HEAD = r"(?:\}[ \t]*)?(?:else|try|finally|do)"
_TYPE_HEAD = r"(?:export\s+)?(?:declare\s+)?(?:const\s+)?(?:interface|enum)"
_HEAD = {False: lazy_compile(_KEYWORD_HEAD + r"[ \t]*"),
         True: lazy_compile(_KEYWORD_HEAD + r"[ \t]*|" + _TYPE_HEAD + r"\s+[A-Za-z_$][\w$]*"
                            r"(?:\s*<[\w$\s,.<>\[\]|&=]*>)?(?:\s+extends\s+[\w$\s,.<>\[\]|&]+)?\s*")}
_HEAD_START = {False: lazy_compile(_KEYWORD_HEAD + r"\b"), True: lazy_compile(f"{_KEYWORD_HEAD}\\b|{_TYPE_HEAD}\\b")}
_MOST_HEAD_LINES = 6  # an interface's head and its `extends` list


def none_is_a_stub(text: str, line_starts: list[int], blocks: Iterable[tuple[int, int]], grammar: str) -> bool:
    """Each empty block (start of its `{`, end after its `}`) of ``text``, whose lines start at ``line_starts``,
    is the body of a statement no stub function can be found through; False when the tokens cannot tell."""
    closes = text.find("*/")
    if "static" in text or closes >= 0 and not 0 <= text.find("/*") < closes:
        return False
    try:
        not_code = Reader(text, jsx=grammar != "typescript").not_code()
    except Unreadable:
        return False
    starts = [start for start, _ in not_code]
    types = grammar != "javascript"  # interfaces and enums are TypeScript's
    return all(_cleared(text, line_starts, not_code, starts, opens, types) for opens, _ in blocks)


def _cleared(text: str, line_starts: list[int], not_code: list[tuple[int, int]], starts: list[int], opens: int,
             types: bool) -> bool:
    """The head before the block's `{` (on its line, or from a line above for a type) clears it. The block's row
    starts in that head (the `{`'s row: the head's first line or one of its next) or with the block's `}`."""
    row = bisect_right(line_starts, opens) - 1
    for first in range(row, max(-1, row - _MOST_HEAD_LINES), -1):
        head = text[line_starts[first] : opens]
        begins = line_starts[first] + len(head) - len(head.lstrip())
        if _HEAD_START[types].match(text, begins):
            break
    else:
        return False
    return _HEAD[types].fullmatch(text, begins, opens) is not None and _all_code(not_code, starts, begins, opens + 1)


def _all_code(not_code: list[tuple[int, int]], starts: list[int], begins: int, ends: int) -> bool:
    """No comment, string or template starts in, or runs into, [begins, ends)."""
    index = bisect_right(starts, ends - 1) - 1
    return index < 0 or not_code[index][1] <= begins

"""Returns of a JavaScript/TypeScript side that no parse can show with code after them in their block, told from the
side's tokens (judge/code/jstokens.py), so that unreachable_code leaves a side whose every return is one unparsed.

unreachable_code reports a return N found in the side's tree when the statement M after which code would be dead
(N itself, or the `if` whose whole branch N is when that `if`'s condition is always true: `if (true) { return; }`)
is a child of a block (a statement block, a switch case, the program) with a following sibling that is code (not a
comment, a hoisted declaration nor an error). ``ends_in_silence`` tells, from tokens alone, that no such sibling
exists:

- no always-true condition (``may_be_always_true``) anywhere in the text the tree may be read from, so M is N;
- and N is followed by nothing that could be a statement: after its last token (its `;`, or the last before a `}`)
  the next token is `}` (the end of N's block, or of the `case` or braceless branch N is in), `case`, `default`
  or the end of the side — a line end inside N, where JavaScript may end a statement without a `;`, is not
  read past;
- or N is the whole branch of a braceless `if (...)`, `for (...)` or `else` on the lines above: its parent is that
  statement, no block.

The reading starts at N's `return` keyword, which is code whenever the tree holds a return there, and at the
start of the line of a braceless head, where a statement may start (the line above ends a statement or opens a
block, or the side starts there). It is the grammar's reading; tree-sitter recovers from an error elsewhere in
a fragment without reshaping the lines read here, and repairs a cut side only by adding brackets before and after
it (judge/code/fragments.py). Any text the tokens cannot read (jstokens.Unreadable) leaves the side to its parse.
"""

from __future__ import annotations

from typing import Sequence

from judge.code.jstokens import Reader, Unreadable
from judge.lazy_pattern import lazy_compile

__all__ = ["ends_in_silence", "may_be_always_true"]

# An if's condition unreachable_code reads as always true (deadcode._JS_ALWAYS: `(true)`, `(1)`, `(!0)`...), in the
# side's text, or with its `(` added before the side or its `)` after it by fragments.js_tree's repair.
_ALWAYS = r"\s*(?:true|1|!\s*0|!\s*false|!!\s*1|!\s*null|!\s*undefined)\s*(?:\)|\Z)"
_ALWAYS_TRUE = lazy_compile(r"\(" + _ALWAYS)  # a literal first: the search skips from one `(` to the next
_ALWAYS_TRUE_AT_START = lazy_compile(_ALWAYS)
_ENDS = frozenset({"}", "case", "default"})
_CLOSER = {"(": ")", "[": "]", "{": "}"}
_BRACELESS_HEAD = lazy_compile(r"(?:\}\s*)?(?:else|if|for)\b")


def may_be_always_true(text: str) -> bool:
    """The side may hold an `if` whose condition unreachable_code reads as always true."""
    return _ALWAYS_TRUE.search(text) is not None or _ALWAYS_TRUE_AT_START.match(text) is not None


def ends_in_silence(lines: Sequence[str], offsets: Sequence[int], reader: Reader, row: int) -> bool:
    """The return that starts ``lines[row]`` (at ``offsets[row]`` of the reader's text, plus its indent) has no code
    after it in its block, in any reading of the side; False when the tokens cannot tell."""
    start = offsets[row] + len(lines[row]) - len(lines[row].lstrip())
    try:
        return _last_in_block(reader, start) or _braceless_branch(lines, offsets, reader, row, start)
    except Unreadable:
        return False


def _last_in_block(reader: Reader, start: int) -> bool:
    """The return at ``start`` ends where a `}`, `case`, `default` or the text's end follows it."""
    token = reader.token_at(start)
    if token is None or token[0] != "return":
        return False  # `return$x`: a name, no return
    previous, at = "return", token[2]
    while (token := reader.token_at(at)) is not None:
        word, start, at, broken = token
        if word == ";":
            following = reader.token_at(at)
            return following is None or following[0] in _ENDS
        if word == "}" or word in _ENDS and previous != ".":
            return word == "}" or broken  # `case` on the return's own line is an error
        if broken or word in (")", "]"):
            return False  # a line end may end the return with code after it; a closer it opened not, an error
        if word in ("(", "[", "{"):
            at = reader.after_group(start)
        previous = word
    return True  # the text ends: nothing follows the return


def _braceless_branch(lines: Sequence[str], offsets: Sequence[int], reader: Reader, row: int, start: int) -> bool:
    """The return at ``start`` is the whole branch of `if (...)`, `for (...)` or `else` on the code line above."""
    above = next((i for i in range(row - 1, -1, -1) if lines[i].strip()), None)
    if above is None:
        return False
    head = lines[above].lstrip()
    if not _BRACELESS_HEAD.match(head) or not (head.startswith("}") or _statement_starts(lines, above)):
        return False
    words = _words(reader, offsets[above] + len(lines[above]) - len(head), start)
    if words[:1] == ["}"]:
        words = words[1:]
    if words[:1] == ["else"]:
        words = words[1:]
        if words == ["return"]:
            return True
    return len(words) == 4 and words[0] in ("if", "for") and words[1:] == ["(", ")", "return"]


def _words(reader: Reader, at: int, end: int) -> list[str]:
    """The tokens from ``at`` to the one that starts at ``end`` (included), a bracketed group read as its two
    brackets; [] when no token starts at ``end``."""
    words = []
    while (token := reader.token_at(at)) is not None and token[1] <= end:
        words.append(token[0])
        if token[1] == end:
            return words
        at = token[2]
        if token[0] in ("(", "[", "{"):
            at = reader.after_group(token[1])
            words.append(_CLOSER[token[0]])
    return []


def _statement_starts(lines: Sequence[str], row: int) -> bool:
    """The `if`, `for` or `else` starting ``lines[row]`` is a statement's, not a property's: a reserved word is a name
    only after a `.` (`options.` on the line above, then `if (...)`, calls a method `if`). The code line above ends in
    no `.` (nor in a backslash that goes on inside a string) and has no comment that could hide one; or the side
    starts at ``row``."""
    above = next((lines[i] for i in range(row - 1, -1, -1) if lines[i].strip()), None)
    if above is None:
        return True
    return above.rstrip()[-1] not in ".\\" and not any(mark in above for mark in ("//", "/*", "*/"))

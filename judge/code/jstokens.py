"""JavaScript and TypeScript read as tokens from a point known to be code, without a parser: enough to see where a
statement ends and what follows it, so a detector can leave a hunk side unparsed when the tokens already answer.

It reads only what every parse reads the same way: words, punctuation, brackets, strings and templates (a
template's substitutions included) and comments (skipped, the line ends in them kept). Where the parser's context
decides how text reads it gives up (``Unreadable``): a ``/`` that is not a comment (a regular expression or a
division), a ``<`` that may open JSX in a grammar that has it, a ``\\`` or a character outside ASCII in code, a
string, template or comment left open, a bracket closed by another kind. A caller that gets ``Unreadable`` parses.
"""

from __future__ import annotations

from judge.lazy_pattern import lazy_compile

__all__ = ["Token", "Unreadable", "after_group", "token_at"]

Token = tuple[str, int, int, bool]  # the token (`"` a string, "`" a template, "0" a number), start, end, a line ends
# between the token before and this one


class Unreadable(Exception):
    """The text holds something only a parser can read (see the module's docstring)."""


def token_at(text: str, at: int, jsx: bool) -> Token | None:
    """The first token at ``at`` or after it (white space and comments skipped); None at the end of the text."""
    broken = False
    while True:
        found = _TOKEN.match(text, at)
        if found is None:
            if at >= len(text):
                return None
            raise Unreadable(at)
        kind = found.lastgroup
        if kind == "space":
            broken = broken or "\n" in found.group() or "\r" in found.group()
        elif kind == "comment":
            broken = broken or found.group().startswith("/*") and _LINE_END.search(found.group()) is not None
        else:
            break
        at = found.end()
    if kind == "template":
        return "`", at, _template_end(text, at + 1, jsx), broken
    token = found.group()
    if kind == "other" and token == "<" and jsx and _MAYBE_JSX.match(text, at + 1):
        raise Unreadable(at)
    return _KINDS.get(kind, token), at, found.end(), broken  # type: ignore[arg-type]


def after_group(text: str, at: int, jsx: bool) -> int:
    """The offset after the bracketed group that opens at ``at`` (``(``, ``[`` or ``{``), its brackets matched."""
    open_ = [text[at]]
    at += 1
    while open_:
        found = _IN_GROUP.match(text, at)
        if found is None:
            raise Unreadable(at)
        kind, at = found.lastgroup, found.end()
        if kind == "open":
            open_.append(found.group())
        elif kind == "close" and open_.pop() != _OPENER[found.group()]:
            raise Unreadable(at)
        elif kind == "template":
            at = _template_end(text, at, jsx)
        elif kind == "lt" and jsx and _MAYBE_JSX.match(text, at):
            raise Unreadable(at)
    return at


def _template_end(text: str, at: int, jsx: bool) -> int:
    """The offset after the template whose text starts at ``at`` (its opening backtick just before)."""
    while True:
        at = _TEMPLATE_TEXT.match(text, at).end()  # type: ignore[union-attr]  # it matches the empty text too
        if text.startswith("`", at):
            return at + 1
        if not text.startswith("${", at):
            raise Unreadable(at)  # the template runs to the end of the text
        at = after_group(text, at + 1, jsx)


_COMMENT = r"//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/"
_STRING = r""""(?:[^"\\\n\r]|\\[^\r])*"|'(?:[^'\\\n\r]|\\[^\r])*'"""  # a line end inside only after a backslash
# One token, in this order: white space, a comment, a string, a template's opening backtick, a word, a number, one
# character of punctuation. A comment or string left open, a lone `/` or `\` and code outside ASCII match nothing.
_TOKEN = lazy_compile(rf"(?P<space>[ \t\x0b\x0c\n\r]+)|(?P<comment>{_COMMENT})|(?P<string>{_STRING})|(?P<template>`)"
                      r"|(?P<word>[A-Za-z_$][A-Za-z0-9_$]*)|(?P<number>[0-9][A-Za-z0-9_$.]*)"
                      r"|(?P<other>[{}()\[\];,<>+\-*%&|^!~?:=@.#])")
# Inside brackets only brackets count: code without them is skipped a run at a time.
_IN_GROUP = lazy_compile(rf"[^'\"`/\\()\[\]{{}}<\x80-\U0010ffff]+|{_COMMENT}|{_STRING}|(?P<template>`)"
                         r"|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<lt><)")
_KINDS = {"string": '"', "number": "0"}
_OPENER = {")": "(", "]": "[", "}": "{"}
_LINE_END = lazy_compile(r"[\n\r\u2028\u2029]")  # what ends a line for JavaScript, in a block comment too
_MAYBE_JSX = lazy_compile(r"[A-Za-z_$>/]")  # `<div`, `<>`, `</`: JSX in the JavaScript and TSX grammars
_TEMPLATE_TEXT = lazy_compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")

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

__all__ = ["Reader", "Token", "Unreadable"]

Token = tuple[str, int, int, bool]  # the token (`"` a string, "`" a template, "0" a number), start, end, and whether a
# line ends between the token before and this one


class Unreadable(Exception):
    """The text holds something only a parser can read (see the module's docstring)."""


class Reader:
    """One text's tokens, read where asked; ``jsx``: the grammar reads JSX (JavaScript, TSX). A bracketed group's end,
    once read, is kept for the other readings of the same text."""

    def __init__(self, text: str, jsx: bool) -> None:
        self.text = text
        self.jsx = jsx
        self._ends: dict[int, int] = {}  # where each group read so far ends, by where it opens

    def token_at(self, at: int) -> Token | None:
        """The first token at ``at`` or after it (white space and comments skipped); None at the end of the text."""
        text, broken = self.text, False
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
            return "`", at, self._template_end(at + 1), broken
        token = found.group()
        if token == "<" and self.jsx and _MAYBE_JSX.match(text, at + 1):
            raise Unreadable(at)
        return _KINDS.get(kind, token), at, found.end(), broken  # type: ignore[arg-type]

    def after_group(self, at: int) -> int:
        """The offset after the bracketed group that opens at ``at`` (``(``, ``[`` or ``{``), its brackets matched."""
        text, ends = self.text, self._ends
        if at in ends:
            return ends[at]
        open_ = [at]
        at += 1
        while open_:
            found = _IN_GROUP.search(text, at)  # the code between the characters it finds is read past
            if found is None:
                raise Unreadable(at)
            char, at = found.group(), found.end()
            if char in "([{":
                if at - 1 in ends:
                    at = ends[at - 1]
                else:
                    open_.append(at - 1)
            elif char in ")]}":
                opened = open_.pop()
                if text[opened] != _OPENER[char]:
                    raise Unreadable(at)
                ends[opened] = at
            elif char == "`":
                at = self._template_end(at)
            elif char in "\"'/":
                at = self._string_or_comment(at - 1)
            elif char != "<" or self.jsx and _MAYBE_JSX.match(text, at):
                raise Unreadable(at)  # a backslash or a character outside ASCII in code, or JSX
        return at

    def not_code(self) -> list[tuple[int, int]]:
        """Where the text's comments, strings and templates are (start, end), read from its start: the rest is
        code. A template is one span, its substitutions too."""
        text, spans, at = self.text, [], 0
        while (found := _NOT_CODE_START.search(text, at)) is not None:
            char, start = found.group(), found.start()
            if char == "`":
                at = self._template_end(start + 1)
            elif char in "\"'/":
                at = self._string_or_comment(start)
            elif char == "<" and not (self.jsx and _MAYBE_JSX.match(text, start + 1)):
                at = start + 1
                continue
            else:
                raise Unreadable(start)  # a backslash or a character outside ASCII in code, or JSX
            spans.append((start, at))
        return spans

    def _string_or_comment(self, at: int) -> int:
        """The offset after the string or comment that starts at ``at``; a `/` that starts neither is unreadable."""
        found = _STRING_OR_COMMENT.match(self.text, at)
        if found is None:
            raise Unreadable(at)
        return found.end()

    def _template_end(self, at: int) -> int:
        """The offset after the template whose text starts at ``at`` (its opening backtick just before)."""
        while True:
            at = _TEMPLATE_TEXT.match(self.text, at).end()  # type: ignore[union-attr]  # it matches "" too
            if self.text.startswith("`", at):
                return at + 1
            if not self.text.startswith("${", at):
                raise Unreadable(at)  # the template runs to the end of the text
            at = self.after_group(at + 1)


_COMMENT = r"//[^\n\r\u2028\u2029]*|/\*[\s\S]*?\*/"
# A string: a line end inside it only after a backslash.
_STRING = r""""[^"\\\n\r]*(?:\\[^\r][^"\\\n\r]*)*"|'[^'\\\n\r]*(?:\\[^\r][^'\\\n\r]*)*'"""
# One token, in this order: white space, a comment, a string, a template's opening backtick, a word, a number, one
# character of punctuation. A comment or string left open, a lone `/` or `\` and code outside ASCII match nothing.
_TOKEN = lazy_compile(rf"(?P<space>[ \t\x0b\x0c\n\r]+)|(?P<comment>{_COMMENT})|(?P<string>{_STRING})|(?P<template>`)"
                      r"|(?P<word>[A-Za-z_$][A-Za-z0-9_$]*)|(?P<number>[0-9][A-Za-z0-9_$.]*)"
                      r"|(?P<other>[{}()\[\];,<>+\-*%&|^!~?:=@.#])")
# Inside brackets only brackets count: the search skips the code between the characters that may start one, a
# string, a template or a comment, or that the reading refuses (a `\\`, code outside ASCII; `<` may open JSX).
_IN_GROUP = lazy_compile(r"[()\[\]{}`'\"/\\<\x80-\U0010ffff]")
_STRING_OR_COMMENT = lazy_compile(rf"{_STRING}|{_COMMENT}")
_NOT_CODE_START = lazy_compile(r"[`'\"/\\<\x80-\U0010ffff]")
_KINDS = {"string": '"', "number": "0"}
_OPENER = {")": "(", "]": "[", "}": "{"}
_LINE_END = lazy_compile(r"[\n\r\u2028\u2029]")  # what ends a line for JavaScript, in a block comment too
_MAYBE_JSX = lazy_compile(r"[A-Za-z_$>/]")  # `<div`, `<>`, `</`: JSX in the JavaScript and TSX grammars
_TEMPLATE_TEXT = lazy_compile(r"[^`\\$]*(?:(?:\\[\s\S]|\$(?!\{))[^`\\$]*)*")

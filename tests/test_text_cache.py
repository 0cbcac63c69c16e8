"""judge.text_cache: what one change's text gave the detectors is not kept for the next validation."""

from __future__ import annotations

import judge
from helpers.builders import make_case
from judge import text_cache


def test_a_cached_reading_is_read_once_until_forgotten():
    calls = []

    @text_cache.text_cache(maxsize=4)
    def read(text: str) -> int:
        calls.append(text)
        return len(text)

    assert (read("abc"), read("abc")) == (3, 3) and calls == ["abc"]
    text_cache.forget()
    assert read("abc") == 3 and calls == ["abc", "abc"]


def test_a_validation_starts_with_every_text_cache_empty():
    from judge.code import treesitter
    from judge.patch import lexer

    python = lexer.syntax_for("a.py")
    lexer.logical_lines(("x = 1",), python)
    treesitter.parse("let x = 1;", "javascript")
    judge.validate(*make_case())  # a Python change: it parses no JavaScript
    assert treesitter.parse.cache_info().currsize == 0
    misses = lexer.logical_lines.cache_info().misses
    lexer.logical_lines(("x = 1",), python)
    assert lexer.logical_lines.cache_info().misses == misses + 1  # read again: not kept from before the validation

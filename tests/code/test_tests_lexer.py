"""The masker of judge/code/_tests_lexer.py: its comment and string patterns, written a run of plain characters at a
time, find exactly what the plain one-character-at-a-time patterns find."""

from __future__ import annotations

import random
import re

import pytest

from judge.code._tests_lexer import GO, JAVA, JS, RUST, CLike, mask


def _reference(syntax: CLike) -> re.Pattern[str]:
    """The patterns as first written: one character at a time, a lazy block comment."""
    parts = [r"/\*[\s\S]*?(?:\*/|\Z)", r"//[^\n]*"]
    if syntax.text_blocks:
        parts.append(r'"""[\s\S]*?(?:"""|\Z)')
    parts += [rf"{re.escape(q)}(?:\\.|[^{re.escape(q)}\\\n])*{re.escape(q)}?" for q in syntax.quotes]
    parts += [rf"{re.escape(q)}(?:\\[\s\S]|[^{re.escape(q)}\\])*{re.escape(q)}?" for q in syntax.multiline]
    return re.compile("|".join(parts))


_PIECES = ['"', "'", "`", "/", "*", "\\", "\n", "a", " ", "(", '"""', "/*", "*/", "//", "\\\n", "é", "\r", "*/*"]


@pytest.mark.parametrize("syntax", [JS, GO, RUST, JAVA], ids=["js", "go", "rust", "java"])
def test_the_fast_patterns_match_what_the_plain_ones_match(syntax):
    fast, plain = syntax.pattern, _reference(syntax)
    rng = random.Random(14)
    for _ in range(8_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 24)))
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain.finditer(text)], repr(text)


def test_mask_blanks_comments_and_string_contents_keeping_columns():
    lines = ('const a = "x // y"; // note', "/* open", "still */ b(`t", "`)")
    assert mask(lines, JS) == ('const a = "      ";', "", "         b(`", "`)")


def test_an_unclosed_block_comment_or_text_block_runs_to_the_end():
    assert mask(("x /* never", "closed"), JS) == ("x", "")
    assert mask(('String s = """', "text"), JAVA) == ('String s = """', "")

"""judge.patch.lexer: the look that settles most hunks without lexing them agrees with the lexer on every hunk."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ
from judge.patch.lexer import _side_shapes, is_superficial_hunk, syntax_for
from judge.patch.model import Hunk

# Characters that open, close or continue what the lexer tracks: quotes, comment markers, brackets, a backslash,
# spaces, and a few letters to make code of.
_PIECES = st.sampled_from(["a", "b", "x", " ", "  ", "\t", '"', "'", '"""', "`", "#", "//", "/*", "*/", "*", "/", "(",
                           ")", "\\", "=", "1"])
_LINE = st.lists(_PIECES, max_size=8).map("".join)
_BODY = st.lists(st.tuples(st.sampled_from(" -+"), _LINE), min_size=1, max_size=8)


def _lexed(hunk: Hunk, path: str) -> bool:
    """What is_superficial_hunk said before its look: the lexer's shapes alone decide (after the directives)."""
    syntax = syntax_for(path)
    for opening in ("",) + tuple(q for q in syntax.multiline_quotes if len(q) == 3):
        old, new = _side_shapes(hunk, syntax, opening)
        if old is not None and new is not None:
            return old == new
    return False


def _hunk(body: list[tuple[str, str]]) -> Hunk:
    lines = tuple(sign + text if sign + text else " " for sign, text in body)
    return Hunk(1, "@@ -1 +1 @@", lines, sum(s == "+" for s, _ in body), sum(s == "-" for s, _ in body))


@FUZZ
@given(body=_BODY, path=st.sampled_from(["m.py", "m.js", "m.css", "m.sh", "m.txt", "Makefile", "m.rs"]))
def test_the_look_never_decides_otherwise_than_the_lexer(body, path):
    hunk = _hunk(body)
    assert is_superficial_hunk(hunk, syntax_for(path)) == _lexed(hunk, path)


@pytest.mark.parametrize("path, body, superficial", [
    # code moved across an unchanged line that holds the same code: the same characters on each side
    ("m.py", [("-", "a = 1"), (" ", "a = 1"), ("+", "a = 1")], True),
    # the same characters in another order: code changed
    ("m.py", [("-", "ab = 1"), ("+", "ba = 1")], False),
    # changed lines inside a block comment opened above them (a comment edit, no marker on the changed lines)
    ("m.js", [(" ", "/*"), ("-", " old words"), ("+", " new words"), (" ", "*/")], True),
    # a comment on an unchanged line, code changed on another
    ("m.py", [(" ", "x = 1  # note"), ("-", "y = 2"), ("+", "y = 3")], False),
])
def test_hunks_the_look_must_leave_to_the_lexer_or_settle(path, body, superficial):
    hunk = _hunk(body)
    assert is_superficial_hunk(hunk, syntax_for(path)) is superficial
    assert _lexed(hunk, path) is superficial


@FUZZ
@given(body=_BODY, path=st.sampled_from(["m.js", "m.css", "m.sh", "m.yaml", "Makefile", "m.rs", "m.c", "m.php"]))
def test_reading_until_the_shapes_differ_loses_no_equal_shapes(body, path):
    """Stopped early, the reading gives nothing; it stops only where the whole shapes differ or a side is in a
    string."""
    hunk, syntax = _hunk(body), syntax_for(path)
    whole = _side_shapes(hunk, syntax)
    early = _side_shapes(hunk, syntax, until_unequal=True)
    assert early == whole or early == (None, None) and (None in whole or whole[0] != whole[1])

"""judge/code/wide_look.py: the wider RE2 search finds something in every text the Python pattern does, so the
answer is always the pattern's own."""

from __future__ import annotations

import re
import sys

import pytest

from judge.code import wide_look
from judge.code.deadcode import NEVER_HINT
from judge.code.wide_look import WideLook
from judge.rules.signals.guard_never_true import _MAYBE_NEVER, _MAYBE_NEVER_FIRST


def test_the_wide_classes_hold_every_character_pythons_hold():
    import re2

    classes = [(re.compile(r"\s"), re2.compile(f"[{wide_look._SPACE}]")),
               (re.compile(r"\w"), re2.compile(f"[{wide_look._WORD}]")),
               (re.compile(r"\d"), re2.compile(r"\p{N}"))]
    text = "".join(chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    for python, wide in classes:
        held = set(python.findall(text))
        assert held and held <= set(wide.findall(text)), held - set(wide.findall(text))


TEXTS = [
    "if False:", "while 0 and x:", "if (null) {", "if(!true)", "elif None:", "if\x0bFalse", "if (\u00a0false)",
    "if x == 1:", "if ready:", "é if False", "if Falsey:", "whileFalse", "if (!1)", "if (!10)",
    'if os.environ.get("NEW_FLAG"):', 'if os.environ["É1"]:', "if process.env.FEATURE_X {", "if window._flag:",
    'if getattr(sys, "_frozen", False):', "if 1 == 2:", "if x1 == 2:", "if '٢' == '٣':", "if ٢ == ٣:",
    "if date > 2099:", "if 2١٠٠ > year:", "if not True:", "if not 1 <= port:", "if x and False:", "if n == 0 and x:",
    "if a && false)", "if 'a' is 'b':", "if value is not None:",
    # a negative lookaround of one class, read as a character outside it: at the text's ends, next to letters and
    # digits ASCII or not, next to the class's other members
    "1 == 2", "x1 == 2", "é1 == 2", "٣1 == 2", "_1 == 2", ".1 == 2", "]1 == 2", ")1 == 2", "(1 == 2)", "1 == 2x",
    "1 == 2é", "1 == 2٣", "1 == 2.", "1 == 2(", "1 == 2[", "1 == 2 ", "1 == 2\n", "x\n1 == 2", "ab1 == 2 and 3 < 4",
]


@pytest.mark.parametrize("look, python", [(WideLook(NEVER_HINT.pattern), NEVER_HINT),
                                          (_MAYBE_NEVER_FIRST, _MAYBE_NEVER)])
def test_the_answer_is_the_python_patterns(look, python):
    for text in TEXTS:
        assert look.search(text) == bool(python.search(text)), text
    assert any(look.search(text) for text in TEXTS) and not all(look.search(text) for text in TEXTS)


def test_a_one_class_lookaround_is_read_as_a_character_outside_the_class():
    look = WideLook(r"(?<![\w.])1(?![\s\d\]])")
    assert look._re2.pattern == r"(?:^|[^0-9A-Za-z_.])1(?:[^\t\n\x{0b}\f\r 0-9\]]|$)"
    for text in ["1", "a1", "é1", ".1", " 1 ", "11", "1٣", "1\u00a0", "1]", "\n1\n", "x 1x"]:
        assert look.search(text) == bool(look.python.search(text)), text


@pytest.mark.parametrize("pattern", [r"foo(?<![x])bar", r"a(?![x])b", r"(a(?![x]))b", r"a((?<![x])b)",
                                     r"\((?<![x])b", r"[|](?<![x])b|c", r"(?:a|(?<![x])b)"])
def test_a_lookaround_that_another_part_of_the_pattern_reads_past_is_refused(pattern):
    # read as one more character, it would ask for a character the rest of the pattern also reads: fewer texts match
    with pytest.raises(ValueError, match="must open"):
        WideLook(pattern)._re2


def test_a_lookaround_at_the_edge_of_a_top_level_alternative_is_read():
    look = WideLook(r"a|(?<![(\]])b|c(?![)|])")
    for text in ["b", "(b", "]b", "xb", "c", "c)", "c|", "cx", "a"]:
        assert look.search(text) == bool(look.python.search(text)), text


def test_a_text_with_a_lone_surrogate_is_answered_by_the_python_pattern():
    """A work-tree file that is not UTF-8 is read with surrogateescape: RE2 cannot take it, Python's engine can."""
    look = WideLook(_MAYBE_NEVER.pattern, loose=(r"\b",))
    assert look.search("caf\udce9 = 1\nif False and x:")
    assert not look.search("caf\udce9 = 1\nif ready:")

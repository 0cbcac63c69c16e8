"""judge.patch.caseless: the lower-cased reading of ASCII text answers as re.IGNORECASE does; unsafe patterns are refused."""

from __future__ import annotations

import itertools
import re

import pytest

from judge.patch.caseless import Caseless, fold
from judge.patch.lexer import DIRECTIVE
from judge.rules.asks import ASKS_FOR_TESTS, ASKS_TO_SKIP_TESTS

PATTERNS = [r"\bnoqa\b", r"type:\s*ignore", r"^document\w*", r"[a-z]+-[0-9]", r"(?:eg|ie)\b|e\.\s?g\.", r"[^a-z]x"]
WORDS = ["NoQA", "noqa", "Type:  IGNORE", "Documents", "x", "X", "e.G.", "EG", "abc-1", "ABC-1", " ", "\n", "-", "İ", "ſ"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_answers_as_ignorecase_on_every_mix_of_case(pattern: str) -> None:
    caseless = Caseless(pattern, re.MULTILINE)
    reference = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    for words in itertools.product(WORDS, repeat=2):
        text = " ".join(words)
        for pos in (0, 1):
            assert caseless.search(text, pos) == (reference.search(text, pos) is not None), (pattern, text, pos)
            assert caseless.match(text, pos) == (reference.match(text, pos) is not None), (pattern, text, pos)


def test_non_ascii_text_is_read_with_ignorecase() -> None:
    # IGNORECASE lets the Kelvin sign match k and the long s match s; lower() does neither.
    assert Caseless("kelvin").search("\u212aelvin") and Caseless("sum").search("\u017fum")
    assert Caseless(r"\bstate\b").search("Gr\u00fc\u00dfe STATE \u00e9t\u00e9")
    assert not Caseless(r"\bstate\b").search("\u00e9STATE")  # \w reads the accented letter as a word's part


_EVERY_CODE_POINT = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)


@pytest.mark.parametrize("atom", [*"abcdefghijklmnopqrstuvwxyz0_-:.#@ ", r"[a-z]", r"[^a-z]", r"\w", r"\s", r"\d",
                                  r"[\s_-]", r"[^\w\s]"])
def test_folding_keeps_what_every_character_matches_under_ignorecase(atom: str) -> None:
    """Every code point, folded, matches a lower-case atom exactly where it matched it with IGNORECASE: the
    running Python's own case tables decide, so a Python whose tables add a character fails here."""
    folded = fold(_EVERY_CODE_POINT)
    assert len(folded) == len(_EVERY_CODE_POINT)
    ignoring = [m.start() for m in re.finditer(atom, _EVERY_CODE_POINT, re.IGNORECASE)]
    assert [m.start() for m in re.finditer(atom, folded)] == ignoring


@pytest.mark.parametrize("long", [None, 1])
def test_a_long_text_searched_by_re2_answers_as_python(long: int | None) -> None:
    caseless = Caseless(DIRECTIVE._lowered.pattern, long=long)
    texts = ["x = 1", "x = 1  # NoQA", "\0#!/bin/sh", "#!/bin/sh", " \x0b#!x", "fmt:\u00a0off", "fmt:\u2028off",
             "// @TS-ignore", "\u212aelvin noqa", "type:\x0bignore", "coding=utf-8", "\u0131stanbul"]
    reference = re.compile(DIRECTIVE._lowered.pattern, re.IGNORECASE)
    for text in texts:
        assert caseless.search(text) == (reference.search(text) is not None), text


@pytest.mark.parametrize("pattern", [r"NOQA", r"\S+", r"\x41", r"(?i)noqa", r"(?-i:noqa)", "caf\u00e9"])
def test_refuses_a_pattern_the_lower_cased_reading_could_misread(pattern: str) -> None:
    with pytest.raises(ValueError, match="not a lower-case ASCII pattern"):
        Caseless(pattern)


def test_judge_patterns_keep_their_ignorecase_meaning() -> None:
    assert DIRECTIVE.search("x = 1  # NOSONAR") and DIRECTIVE.search("//# sourceMappingURL=app.js.map")
    assert not DIRECTIVE.search("#!/bin/sh", 1)  # the shebang alternative only matches at the text's start
    assert ASKS_FOR_TESTS.search("Fix the Flaky Test") and not ASKS_FOR_TESTS.search("Add input validation")
    assert ASKS_TO_SKIP_TESTS.search("SKIP the flaky network test")

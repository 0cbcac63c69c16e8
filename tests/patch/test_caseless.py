"""judge.patch.caseless: the lower-cased reading of ASCII text answers as re.IGNORECASE does; unsafe patterns are refused."""

from __future__ import annotations

import itertools
import re

import pytest

from judge.patch.caseless import Caseless
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


@pytest.mark.parametrize("pattern", [r"NOQA", r"\S+", r"\x41", r"(?i)noqa", r"(?-i:noqa)", "caf\u00e9"])
def test_refuses_a_pattern_the_lower_cased_reading_could_misread(pattern: str) -> None:
    with pytest.raises(ValueError, match="not a lower-case ASCII pattern"):
        Caseless(pattern)


def test_judge_patterns_keep_their_ignorecase_meaning() -> None:
    assert DIRECTIVE.search("x = 1  # NOSONAR") and DIRECTIVE.search("//# sourceMappingURL=app.js.map")
    assert not DIRECTIVE.search("#!/bin/sh", 1)  # the shebang alternative only matches at the text's start
    assert ASKS_FOR_TESTS.search("Fix the Flaky Test") and not ASKS_FOR_TESTS.search("Add input validation")
    assert ASKS_TO_SKIP_TESTS.search("SKIP the flaky network test")

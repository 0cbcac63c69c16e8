"""checks_suppressed reads a line with a suppression's pattern only when the line's folded text holds the word listed
beside it: every match of the pattern holds that word, whatever the case and the letters IGNORECASE matches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ
from judge.patch.caseless import fold
from judge.rules.signals.checks_suppressed import _MAYBE_SUPPRESSION, _MAYBE_SUPPRESSION_ANY_CASE, _SUPPRESSIONS

_PIECES = st.sampled_from([
    "# type: ignore", "#type:ignore", "# noqa", "# NOQA: E501", "# ruff: noqa", "# pragma: no cover",
    "PRAGMA: NO BRANCH",
    "# pylint: disable=x", "# PyLınt: dİsable", "# pyLİnt:diſable", "# pyright: ignore", "# mypy: ignore-errors",
    "# nosec", "// eslint-disable-next-line", "// @ts-ignore", "// @ts-nocheck", "// @ts-expect-error",
    "/* istanbul ignore next */", "/* c8 ignore */", "v8\u00a0ignore", "// nolint", "# rubocop:disable", "// NOSONAR",
    "ıgnore", "İGNORE", "K", "ſ", " ", "\t", "x", "#", "//", ":",
])


@FUZZ
@given(text=st.lists(_PIECES, max_size=4).map("".join), upper=st.booleans())
def test_every_match_holds_its_word_folded(text, upper):
    text = text.upper() if upper else text
    for label, word, pattern in _SUPPRESSIONS:
        if pattern.search(text):
            assert word in fold(text), (label, text)


def test_the_words_are_the_patterns_own():
    assert len({label for label, _, _ in _SUPPRESSIONS}) == len(_SUPPRESSIONS)
    for label, word, pattern in _SUPPRESSIONS:
        assert word == word.lower() and (word in pattern.pattern.lower() or word == "ignore"), label


@FUZZ
@given(text=st.lists(st.sampled_from(["NOQA", "Type:", " ", "\u00a0", "\x0b", "İgnore", "ıgnore", "ignore", "PYLİNT",
                                      "pylint", "As", "aS", "\u212a", "any", "ANY", "unknown", "C8", "V8", "@TS-", "x",
                                      "Mypy", "NoSonar", "İstanbul", "istanbul", "ſ", "nosec", "\n"]),
                     max_size=5).map("".join))
def test_the_any_case_look_finds_whatever_the_look_finds_in_the_lower_cased_text(text):
    if _MAYBE_SUPPRESSION.search(text.lower()):
        assert _MAYBE_SUPPRESSION_ANY_CASE.search(text)

"""judge.patch.first_look: RE2's look at a long text finds at least what Python's pattern finds there."""

from __future__ import annotations

import sys

import pytest

from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import FirstLook

_EVERY_SPACE = [chr(code) for code in range(sys.maxunicode + 1) if lazy_compile(r"\s").match(chr(code))]


@pytest.mark.parametrize("space", _EVERY_SPACE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_space_python_reads_in_a_long_text_is_a_space_to_the_look(space):
    look = FirstLook(r"type:\s*ignore")
    text = "x" * 2_000 + f"# type:{space}ignore"
    assert lazy_compile(look.source).search(text) and look.search(text)

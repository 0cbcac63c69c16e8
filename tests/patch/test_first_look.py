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


@pytest.mark.parametrize("long", [0, 1_000])
def test_a_text_with_a_lone_surrogate_is_read_by_pythons_engine(long):
    """A work-tree file that is not UTF-8 is read with surrogateescape; RE2 cannot take such a text."""
    look = FirstLook(r"type:\s*ignore", long=long)
    text = "caf\udce9 " * 300 + "# type: ignore"
    assert look.search(text) and [m.span() for m in look.scan(text)] == [(len(text) - 12, len(text))]
    assert not look.search(text[:-14])

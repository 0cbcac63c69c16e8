"""Hunk.reaches_end read from the context runs at either end of the body, held to reading every line."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ
from judge.patch.model import Hunk

_LINES = st.lists(st.sampled_from([" a", " ", "+b", "-c", "\\ No newline at end of file"]), min_size=1, max_size=12)


def _every_line(body: tuple[str, ...]) -> bool:
    lines = [line for line in body if line[0] != "\\"]
    leading = next((i for i, line in enumerate(lines) if line[0] != " "), len(lines))
    trailing = next((i for i, line in enumerate(reversed(lines)) if line[0] != " "), len(lines))
    return trailing < leading or any(line.startswith("\\") for line in body[-2:])


@FUZZ
@given(body=_LINES)
@example(body=[" a", " a", " a", "+b", " a", "\\ No newline at end of file", " a"])
@example(body=[" a", "\\ No newline at end of file", "-c", " a"])
def test_reaches_end_is_what_reading_every_line_says(body):
    hunk = Hunk(1, "@@ -1 +1 @@", tuple(body), sum(line[0] == "+" for line in body),
                sum(line[0] == "-" for line in body))
    assert hunk.reaches_end == _every_line(hunk.body)


def test_a_hunk_with_less_context_after_its_changes_reaches_the_end():
    assert Hunk(1, "@@", (" a", " a", " a", "+b", " a"), 1, 0).reaches_end
    assert not Hunk(1, "@@", (" a", " a", " a", "+b", " a", " a", " a"), 1, 0).reaches_end

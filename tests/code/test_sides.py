"""Hunk sides as text, and tree-sitter reading JS/TS fragments cut mid-block."""

import pytest

from judge.code.sides import Side, added_text, opening_of, side_of
from judge.code.treesitter import grammar_for, parse, walk
from judge.patch.parse import parse_patch

PATCH = """\
--- a/m.py
+++ b/m.py
@@ -1,3 +1,3 @@
 def f():
-    return compute()
+    return None
 # end
"""


def test_each_side_keeps_context_and_its_own_changed_lines():
    hunk = parse_patch(PATCH).files[0].hunks[0]
    old, new = side_of(hunk, "old"), side_of(hunk, "new")
    assert old.text == "def f():\n    return compute()\n# end\n"
    assert new.lines == ("def f():", "    return None", "# end") and new.changed == (False, True, False)
    assert new.changed_lines == ("    return None",)


def test_a_sides_opening_is_its_first_lines_from_the_hunks_first_body_lines():
    hunk = parse_patch(PATCH).files[0].hunks[0]
    for which in ("old", "new"):
        whole = side_of(hunk, which)
        for count in range(5):
            opening = opening_of(hunk, which, count)
            assert opening.lines == whole.lines[: len(opening.lines)]
            assert opening.changed == whole.changed[: len(opening.lines)]
    assert opening_of(hunk, "old", 2).lines == ("def f():", "    return compute()")
    assert opening_of(hunk, "new", 2).lines == ("def f():",)


def test_tree_sitter_reads_a_fragment_cut_inside_a_block():
    tree = parse('    expect(x).toBe(1);\n  });\n  it.only("adds", () => {\n', "typescript")
    calls = [n.text.decode() for n in walk(tree) if n.type == "member_expression"]
    assert "it.only" in calls and "expect(x).toBe" in calls


def test_grammar_by_suffix():
    assert (grammar_for("a.ts"), grammar_for("b.tsx"), grammar_for("c.mjs"), grammar_for("d.py")) == (
        "typescript", "tsx", "javascript", None)


@pytest.mark.parametrize("lines", [(), ("",), ("a",), ("a", "b"), ("", ""), ("x\r", " y ")])
def test_a_sides_text_is_each_line_with_its_line_end_and_its_changed_lines_in_order(lines):
    side = Side(lines, tuple(index % 2 == 0 for index in range(len(lines))))
    assert side.text == "".join(line + "\n" for line in lines)
    assert side.changed_lines == lines[::2]


TWO_HUNKS = PATCH + """\
@@ -10,1 +10,3 @@
 x = 1
+y = 2
+z = 3
"""


def test_a_files_added_text_is_its_added_lines_kept_for_the_same_change_only():
    from judge.text_cache import forget

    change = parse_patch(TWO_HUNKS).files[0]
    assert added_text(change) == "    return None\ny = 2\nz = 3"
    assert added_text(change) is added_text(change)  # read once, kept for the validation's other readers
    twin = parse_patch(TWO_HUNKS.replace("+z = 3", "+z = 4")).files[0]
    equal = parse_patch(TWO_HUNKS).files[0]
    assert equal == change and equal is not change
    assert added_text(twin).endswith("z = 4") and added_text(equal) == added_text(change)
    forget()
    assert added_text(change) == "    return None\ny = 2\nz = 3"

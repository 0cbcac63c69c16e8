"""The change model's reading of test units (judge/code/change.py): both sides of each hunk made in one pass, the same
sides judge/code/sides.py makes one at a time."""

from judge.code.change import ChangeModel
from judge.code.sides import side_of, sides_of
from judge.patch.parse import parse_patch

PATCH = """\
diff --git a/tests/test_m.py b/tests/test_m.py
--- a/tests/test_m.py
+++ b/tests/test_m.py
@@ -1,6 +1,7 @@
 def test_a():
-    assert f() == 1
+    assert f() == 2
 
 
 def test_b():
-    assert g()
\\ No newline at end of file
+    assert g() == 3
+
@@ -10,2 +10,3 @@ def test_c():
     x = 1
+    assert x
     return x
"""


def test_both_sides_are_the_sides_made_one_at_a_time():
    for hunk in parse_patch(PATCH).files[0].hunks:
        assert sides_of(hunk) == (side_of(hunk, "old"), side_of(hunk, "new"))


def test_the_units_of_each_side_are_read_with_their_hunk():
    file = ChangeModel(parse_patch(PATCH)).files[0]
    old = [(hunk.number, unit.name, [c.text for c in unit.checks]) for hunk, unit in file.tests("old")]
    new = [(hunk.number, unit.name, [c.text for c in unit.checks]) for hunk, unit in file.tests("new")]
    assert old == [(0, "test_a", ["assert f() == 1"]), (0, "test_b", ["assert g()"]), (1, "test_c", [])]
    assert new == [(0, "test_a", ["assert f() == 2"]), (0, "test_b", ["assert g() == 3"]),
                   (1, "test_c", ["assert x"])]

"""Reading test units for less (judge/code/tests.py and its readers): what a unit or a check is asked for late is the
same as what reading it at once gave, and what can weaken nothing is not read at all."""

from __future__ import annotations

import pytest

import judge.code._tests_js as tests_js
import judge.code._tests_python as tests_python
import judge.code.weakening as weakening
from judge.code.change import ChangeModel
from judge.code.sides import Side
from judge.code.tests import Check, TestUnit, skip_aliases
from judge.code.tests import test_units as units_of
from judge.patch.parse import parse_patch


def _side(text: str, changed: bool = True) -> Side:
    lines = tuple(text.split("\n"))
    return Side(lines, (changed,) * len(lines))


# --- what a unit is asked for late -------------------------------------------------------------------------------


def test_a_js_test_body_and_names_are_read_when_asked_for():
    side = _side('it("adds", () => {\n  const total = add(1, 2); // the sum\n  expect(total).toEqual({ sum: 3 });\n});')
    unit = next(u for u in units_of(side, "test/add.test.js") if u.kind == "test")
    assert unit.body == "() => {\nconst total = add(1, 2); // the sum\nexpect(total).toEqual({ sum: 3 });\n}"
    # words outside strings and comments, object keys aside; the names it binds are its own
    assert {"it", "const", "total", "add", "expect", "toEqual"} <= unit.names
    assert not {"adds", "the", "sum"} & unit.names
    assert unit.locals == {"total"}


def test_a_python_test_body_leaves_out_blank_and_comment_lines():
    side = _side("def test_total():\n    # the sum\n\n    total =  add(1, 2)\n    assert total == 3\n")
    unit = next(u for u in units_of(side, "tests/test_add.py") if u.kind == "test")
    assert unit.body == "total = add(1, 2)\nassert total == 3"
    assert {"add", "total"} <= unit.names and "total" in unit.locals


def test_a_python_check_is_read_leaf_by_leaf_only_when_asked(monkeypatch):
    read = []
    leaves, meaning = tests_python._leaves, tests_python._meaning_of
    monkeypatch.setattr(tests_python, "_leaves", lambda *a: read.append("leaves") or leaves(*a))
    monkeypatch.setattr(tests_python, "_meaning_of", lambda *a: read.append("meaning") or meaning(*a))
    (unit,) = [u for u in units_of(_side('def test_port():\n    assert parse_port("80") == 80'), "tests/test_p.py")
               if u.kind == "test"]
    (check,) = unit.checks
    assert read == []
    assert check.tokens == ("Compare", "Call", "Name", "parse_port", "Load", "'80'", "Eq", "80") and read == ["leaves"]
    assert check.slots == {7} and check.shape == "Compare Call Name parse_port Load · Eq ·" and read == ["leaves"]
    assert (check.weak, check.subject, check.truth, check.tautology) == (False, "parse_port('80')", None, False)
    assert read == ["leaves", "meaning"]


def test_a_check_read_late_equals_one_read_at_once():
    late = Check("assert x == 1", 3, True, leaves=lambda: (("Compare",), frozenset(), "Compare", frozenset({"x"})),
                 meaning=lambda: (False, False, "x", None))
    early = Check("assert x == 1", 3, True, False, ("Compare",), frozenset(), "Compare", frozenset({"x"}), False, "x")
    assert late == early and hash(late) == hash(early)
    assert late != Check("assert x == 1", 3, True)


def test_a_unit_read_late_equals_one_read_at_once():
    late = TestUnit("test_a", "test", 0, True, "test_a", lambda: "body", names=lambda: frozenset({"f"}))
    assert late == TestUnit("test_a", "test", 0, True, "test_a", "body", names=frozenset({"f"}))
    assert late != TestUnit("test_a", "test", 0, True, "test_a", "other body", names=frozenset({"f"}))


# --- the side's own brackets, and names bound in other hunks -------------------------------------------------------


def test_brackets_in_strings_comments_and_templates_are_not_closed():
    text = tests_js._closed(('describe("(", () => { // ) [', "  it(`{${x}`, /* } */ () => ["))
    assert text.endswith("\n])})\n")


@pytest.mark.parametrize("text, aliases", [
    ("import pytest\nflaky = pytest.mark.skip(reason='x')\nx = 1", {"flaky": "mark.skip"}),
    ("flaky = \\\npytest.mark.skip()", None),  # the binding is read a line at a time
    ("flaky =\npytest.mark.skip", None),
    ("    flaky = pytest.mark.skip", None),  # not module level
])
def test_python_skip_aliases_are_read_a_line_at_a_time_from_the_joined_sides(text, aliases):
    assert skip_aliases("tests/test_a.py", text) == aliases


@pytest.mark.parametrize("text, aliases", [
    ("import test from 'ava';\nconst later = test.skip;\nlater('t', t => {});", {"later": ["test", "skip"]}),
    ("const {skip: later} = test;", {"later": ["test", "skip"]}),
    ("later = test.skip;", None),  # no declaration on the line
    ("const later =\n  test.skip;", None),
])
def test_js_skip_aliases_are_read_from_declaring_lines(text, aliases):
    assert skip_aliases("test/a.js", text) == aliases


# --- what can weaken nothing is not read ----------------------------------------------------------------------------

_JSON = """\
diff --git a/tests/data/cases.json b/tests/data/cases.json
--- a/tests/data/cases.json
+++ b/tests/data/cases.json
@@ -1,3 +1,3 @@
 {
-  "port": 80
+  "port": 8080
 }
"""


def test_a_file_no_reader_knows_has_no_side_made(monkeypatch):
    import judge.code.change as change

    monkeypatch.setattr(change, "sides_of", lambda hunk: pytest.fail("a side was made"))
    file = ChangeModel(parse_patch(_JSON)).files[0]
    assert file.tests("old") == () and file.tests("new") == ()


def _patch(path: str, old: str, new: str) -> str:
    body = "".join(f"-{line}\n" for line in old.split("\n")) + "".join(f"+{line}\n" for line in new.split("\n"))
    count_old, count_new = old.count("\n") + 1, new.count("\n") + 1
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{count_old} +1,{count_new} @@\n{body}"


def test_dead_code_is_looked_for_only_where_a_test_has_an_assertion(monkeypatch):
    looked = []
    monkeypatch.setattr(weakening, "disabled_blocks", lambda side, path: looked.append(path) or [])
    monkeypatch.setattr(weakening, "unreachable_code", lambda side, path: looked.append(path) or [])
    no_assertion = _patch("tests/test_a.py", "def test_a():\n    f()", "def test_a():\n    return\n    f()")
    assert weakening.weakenings(ChangeModel(parse_patch(no_assertion))) == () and looked == []
    with_assertion = _patch("tests/test_a.py", "def test_a():\n    assert f()", "def test_a():\n    return\n    assert f()")
    weakening.weakenings(ChangeModel(parse_patch(with_assertion)))
    assert looked == ["tests/test_a.py", "tests/test_a.py"]

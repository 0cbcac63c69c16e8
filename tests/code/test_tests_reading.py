"""Reading test units for less (judge/code/tests.py and its readers): what a unit or a check is asked for late is the
same as what reading it at once gave, and what can weaken nothing is not read at all."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import judge.code._tests_js as tests_js
import judge.code._tests_python as tests_python
import judge.code.weakening as weakening
from helpers.fuzzing import FUZZ
from judge.code.change import ChangeModel
from judge.code.deadcode import disabled_blocks, unreachable_code
from judge.code.sides import Side, side_of
from judge.code.tests import Check, TestUnit, runs_past, skip_aliases
from judge.code.tests import test_units as units_of
from judge.patch.model import Hunk
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


@FUZZ
@given(text=st.lists(st.sampled_from(["const", "let", "var", "co", "nst", "le", "t", "va", "r", "\n", "\r", "\u2028",
                                      " ", "x = it.skip;", "{a} = test"]), max_size=12).map("".join))
def test_the_js_declaring_lines_are_those_a_line_pattern_finds(text):
    assert tests_js._declaring(text) == re.findall(r"^.*?(?:const|let|var).*$", text, re.MULTILINE)


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


def test_a_deleted_test_names_are_read_only_where_the_change_took_code_out(monkeypatch):
    read = []
    words = tests_js._Source.words
    monkeypatch.setattr(tests_js._Source, "words", lambda source, *rows: read.append(rows) or words(source, *rows))
    test = _patch("test/add.test.js", 'it("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});', "")
    (alone,) = weakening.weakenings(ChangeModel(parse_patch(test)))
    assert (alone.kind, alone.with_code, read) == ("deleted", False, [])
    code = _patch("src/add.js", "export function add(a, b) {\n  return a + b;\n}", "")
    (with_code,) = weakening.weakenings(ChangeModel(parse_patch(test + code)))
    assert (with_code.kind, with_code.with_code) == ("deleted", True) and read


# --- what the JS reader passes over, and the first look of disabled() ------------------------------------------------

_JS_PIECES = st.sampled_from([
    'it("a", () => {', 'test.skip("b", () => {', "describe('g', function () {", "xit('c', () => {", "});", "})", "}",
    ")", "(", "{", "expect(x)", ".toBe(1)", ".not.toEqual([1, 2])", "assert.equal(a, 2)", "assert(ok)", "foo(", "bar(1)",
    "x.should.equal(3)", "const t2 = test.skip", "t2('d', () => {", "later(", "this.skip()", "ctx.skip()", "t.is(a, 1)",
    "t.pass()", "/* c */", "// c", "'s'", "`${x}`", "ñame(", "itñ(", "(x)(", "super.run()", "new Foo().bar()", ";",
    "try {", "} catch (e) {", "await ", "return", ", ", " ", "1n", "0xAB", "²", "my", "x", "_", "$", "test", "it",
    "(", "should", "assert", "\\u0074", "=", "const ", "t2", "later", "const fo\\u006F = it.skip;", "fo\\u006F('e', f)"])
_JS_LINE = st.lists(_JS_PIECES, max_size=6).map("".join)


@FUZZ
@given(lines=st.lists(st.tuples(st.booleans(), _JS_LINE), min_size=1, max_size=8),
       path=st.sampled_from(["t.test.ts", "t.test.js", "t.test.tsx"]), aliased=st.booleans())
def test_the_js_reader_reads_the_same_units_without_the_calls_it_passes_over(lines, path, aliased):
    fast, slow = _units_and_units_with(lines, path, {"later": ["it", "skip"]} if aliased else None,
                                       "_passed_over", lambda *args: False)
    assert fast == slow  # every field, the lazy ones read


@FUZZ
@given(lines=st.lists(st.tuples(st.booleans(), _JS_LINE), min_size=1, max_size=8),
       path=st.sampled_from(["t.test.ts", "t.test.js", "t.test.tsx"]))
@example(lines=[(False, 'it("a", () => {'), (True, "try {"), (True, "expect(x).toBe(1)"), (True, "} catch (e) {"),
                (False, "}")], path="t.test.ts")
def test_the_js_reader_reads_the_same_units_without_looking_for_swallowed_failures_in_a_side_with_no_try(lines, path):
    fast, slow = _units_and_units_with(lines, path, None, "_may_swallow", lambda *args: True)
    assert fast == slow  # every field, the lazy ones read


@FUZZ
@given(lines=st.lists(st.tuples(st.booleans(), _JS_LINE), min_size=1, max_size=8),
       path=st.sampled_from(["t.test.ts", "t.test.js", "t.test.tsx"]))
@example(lines=[(True, 'expect(f("a", 1)).toEqual({ b: [2, `c`] })'), (True, "t.is(x, 'ñ')")], path="t.test.ts")
def test_a_js_check_reads_the_same_leaves_sliced_from_an_ascii_side_as_decoded_from_its_bytes(lines, path):
    side = Side(tuple(text for _, text in lines), tuple(changed for changed, _ in lines))
    sliced = units_of(side, path)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(tests_js._Source, "plain", property(lambda source: None))
        decoded = units_of(side, path)
    assert sliced == decoded  # every field, the lazy ones read


def test_only_an_ascii_side_is_sliced():
    assert tests_js._Source("expect(x).toBe('a')\n", 1).plain == "expect(x).toBe('a')\n"
    assert tests_js._Source("expect(x).toBe('ñ')\n", 1).plain is None


def _units_and_units_with(lines, path, aliases, shortcut, replacement):
    """The JS reader's units of a side, then its units with one of its shortcuts (a function of tests_js) replaced."""
    side = Side(tuple(text for _, text in lines), tuple(changed for changed, _ in lines))
    fast = units_of(side, path, "", aliases)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(tests_js, shortcut, replacement)
        slow = units_of(side, path, "", aliases)
    return fast, slow


@FUZZ
@given(lines=st.lists(st.tuples(st.booleans(), _JS_LINE), min_size=1, max_size=8),
       path=st.sampled_from(["t.test.ts", "t.test.js"]), aliased=st.booleans())
def test_a_js_side_the_first_look_passes_has_no_units(lines, path, aliased):
    side = Side(tuple(text for _, text in lines), tuple(changed for changed, _ in lines))
    aliases = {"later": ["it", "skip"]} if aliased else None
    if not tests_js._may_read(side.text, aliases):
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(tests_js, "_may_read", lambda *args: True)
            assert units_of(side, path, "", aliases) == ()


@pytest.mark.parametrize("text, may_read", [
    ("foo(x);\nconst y = bar.baz(1)", False), ("mytest(1); itself(2); tests(3)", False),
    ("test('a', f)", True), ("x.it(1)", True), ("1ntest(f)", True), ("0xABit(f)", True), ("²test(f)", True),
    ("testñ(f)", True), ("later(f)", True), ("foo.should.equal(1)", True), ("assertX(1)", True), ("this.skip()", True),
])
def test_the_js_first_look_passes_no_side_with_a_name_that_may_matter(text, may_read):
    assert tests_js._may_read(text, {"later": ["it", "skip"]}) is may_read


_READ_WORD_BEFORE = re.compile(  # the first look's pattern as it was written first, one alternative at a time
    rf"(?<![A-Za-z0-9_$])(?:{tests_js._HEADS})(?![A-Za-z0-9_$])|(?<![A-Za-z0-9_$])[0-9][A-Za-z0-9_$]*"
    rf"(?:{tests_js._HEADS})|assert|should")


@FUZZ
@given(text=st.lists(st.sampled_from(sorted(tests_js._READ_HEADS) + ["assert", "shoul", "d", "asser", "t", "1", "0x",
                                                                     "n", "_", "$", "my", ".", " ", "(", "\n", "ñ",
                                                                     "\\", "later"]),
                     max_size=8).map("".join), aliased=st.booleans())
def test_the_js_first_look_answers_as_one_pattern_of_every_alternative_did(text, aliased):
    aliases = {"later": ["it", "skip"]} if aliased else None
    before = _READ_WORD_BEFORE.search(text) is not None or any(alias in text for alias in aliases or ())
    assert tests_js._may_read(text, aliases) is before


@pytest.mark.parametrize("head", sorted(tests_js._READ_HEADS))
def test_the_js_first_look_reads_a_side_that_calls_any_name_the_reader_knows(head):
    assert tests_js._may_read(f"{head}(1)", None) and tests_js._may_read(f"x = 1;\n{head}.skip()", None)


@pytest.mark.parametrize("text, passed_over", [
    ("foo(x)", True), ("a.b.c(1)", True), ("super.run()", True),
    ("it('a', f)", False), ("later(1)", False),  # a name another hunk binds to a test function
    ("expect(x)", False), ("this.skip()", False), ("chai.assert.ok(x)", False), ("x.should.equal(1)", False),
    ("assertEqual(a, b)", False), ("itñ(1)", False), ("(it)('a', f)", False), ("/* it */ foo()", False),
    ("fo\\u006F(1)", False),  # a name written with an escape: it may be an alias bound with the same escape
])
def test_a_call_is_passed_over_only_when_no_name_of_its_callee_can_matter(text, passed_over):
    data = text.encode()
    heads = tests_js._READ_HEADS | {"later", "fo\\u006F"}
    assert tests_js._passed_over(data, 0, len(data), heads) is passed_over


_BODY_PIECES = st.sampled_from(["if", "elif", "while", " ", "  ", "(", ")", "False", "false", "0", "None", "null",
                                "undefined", "!", "1", "true", "return", "raise", "throw", "x", "=", ":", "{", "}", ";",
                                "f()", "assert x", "expect(x).toBe(1)", "#", "//", "\\"])
_BODY_LINE = st.tuples(st.sampled_from(" -+"), st.lists(_BODY_PIECES, max_size=7).map("".join))


@FUZZ
@given(body=st.lists(_BODY_LINE, min_size=1, max_size=8), path=st.sampled_from(["t_x.py", "x.test.ts", "x.test.js"]))
def test_a_hunk_the_first_look_of_disabled_passes_has_no_switched_off_code(body, path):
    lines = tuple(sign + text for sign, text in body)
    hunk = Hunk(1, "@@ -1 +1 @@", lines, sum(s == "+" for s, _ in body), sum(s == "-" for s, _ in body))
    if not weakening._may_switch_off(hunk):
        side = side_of(hunk, "new")
        assert disabled_blocks(side, path) == [] and unreachable_code(side, path) == []


@pytest.mark.parametrize("body", [
    ("+    if False:", "     assert x"), ("+if (false) {", " expect(x).toBe(1)", "+}"), ("+    return", "     assert x"),
    ("     return", "+    assert x"), ("-    x = 1", "+    while 0:", "         assert y"),
])
def test_the_first_look_of_disabled_passes_no_hunk_that_may_switch_off_code(body):
    hunk = Hunk(1, "@@ -1 +1 @@", body, sum(line[0] == "+" for line in body), sum(line[0] == "-" for line in body))
    assert weakening._may_switch_off(hunk)


def _closed_one_by_one(lines: tuple[str, ...]) -> str:
    """_closed as it read every bracket in turn (before pairs that close at once were taken out first)."""
    stack: list[str] = []
    for char in re.findall(r"[()\[\]{}]", tests_js.JS.pattern.sub("", "\n".join(lines))):
        if char in tests_js._OPEN:
            stack.append(tests_js._OPEN[char])
        elif stack and char == stack[-1]:
            stack.pop()
    return "".join(line + "\n" for line in lines) + "".join(reversed(stack)) + "\n"


@FUZZ
@given(lines=st.lists(st.lists(st.sampled_from(list("()[]{}") + ["'", '"', "`", "//", "/*", "*/", "/", "\\", "x", " "]),
                               max_size=30).map("".join), max_size=6))
def test_a_js_side_is_closed_as_reading_its_brackets_one_by_one_closes_it(lines):
    assert tests_js._closed(tuple(lines)) == _closed_one_by_one(tuple(lines))


def test_brackets_nested_deeper_than_the_pair_passes_are_closed_all_the_same():
    deep = ("(" * 20 + "[" + ")" * 20, "{" * 12 + "}" * 11)
    assert tests_js._closed(deep) == _closed_one_by_one(deep) == "\n".join(deep) + "\n}]" + ")" * 20 + "\n"


def test_wrapper_levels_of_one_width_come_in_the_same_order_whatever_the_hash_seed():
    # a side that dedents to a tab and to a space (mixed indentation): the wrappers' order decides where the parser
    # fails, so it must not follow a set's order, which changes with PYTHONHASHSEED from one process to the next
    import subprocess
    import sys

    program = ("import judge.code._tests_python as t; lines = ('\\t\\tx = 1', ' y = 2', '\\tz = 3', '  w = 4');"
               "print(t._wrapped(lines, [2, 1, 1, 2])[0])")
    orders = {subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(8)}
    assert orders == {str(("if 1:", "\tif 1:", " if 1:", "\t\tx = 1", " y = 2", "\tz = 3", "  w = 4")) + "\n"}


@pytest.mark.parametrize("path, text, header, open_", [
    ("tests/test_a.py", "def test_a():\n    x = 1\n    y = 2", 0, True),
    ("tests/test_a.py", "def test_a():\n    x = 1\n\ndef test_b():\n    pass", 0, False),
    ("tests/test_a.py", "def test_a():", 0, False),  # nothing after the header: the side does not tell
    ("test/a.test.js", "test('a', (t) => {\n  t.plan(1)\n  run(')')", 0, True),
    ("test/a.test.js", "test('a', (t) => {\n  t.plan(1)\n})\ntest('b', (t) => {", 0, False),
    ("test/a.test.ts", "x()\ntest('a', () => {\n  // })\n  go()", 1, True),
    ("src/Main.java", "void a() {\n  x();", 0, False),
])
def test_runs_past_tells_a_definition_still_open_at_the_end_of_the_side(path, text, header, open_):
    assert runs_past(_side(text, changed=False), header, path) is open_

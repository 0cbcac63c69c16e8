"""The first looks of stub_or_disabled_code, placeholder_only and the signals' changed lines never skip what the full
reading would report: on random hunks made of the pieces each detector starts from (and the characters that make a
line or a side read otherwise), the look lets through every hunk whose sides a detector finds something in, and the
lines it reads are the lines the whole side's reading gives."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ
from judge.code.change import FileView
from judge.code.deadcode import commented_code, commented_out, disabled_blocks, unreachable_code
from judge.code.functions import stub_functions_in
from judge.code.sides import side_of
from judge.patch.lexer import syntax_for
from judge.patch.model import FileChange, Hunk
from judge.rules import placeholder_only as placeholder
from judge.rules.signals._conditions import CONDITION_LINES, branch_heads
from judge.rules.signals import unused_function as unused
from judge.rules.signals._lines import added_text, changed_holding, hunk_side
from judge.rules.signals.checks_suppressed import _MAYBE_SUPPRESSION
from judge.rules.stub_or_disabled_code import _Look

_MORE = settings(FUZZ, max_examples=FUZZ.max_examples * 5)
_PIECES = st.sampled_from([
    "pass", "...", "return", "return None", "raise NotImplementedError", "throw new Error('not implemented')",
    "if False:", "if (0) {", "while None:", "if True: return", "if (true) return;", "def f():", "def close(self):",
    "function f() {", "f() {", "() => {", "{", "}", "{}", "(", ")", ":", ";", "#", "//", "/*", "*/", " ", "    ", "\t",
    "\x0c", "\r", "\u2028", "\x85", '"', "'", '"""', "`", "\\", "x = 1", "f(x)", "g();", "TODO", "todo: later",
    "# type: ignore", "// @ts-ignore", "as any", "# noqa", "Load", "settings", "files", "result = load(path)",
    "items.push(value);", "self.close()", "export interface T {", "id: string;", "} else {", "catch (e) {",
])
_LINE = st.lists(_PIECES, max_size=5).map("".join)
_BODY = st.lists(st.tuples(st.sampled_from(" -+"), _LINE), min_size=1, max_size=10)
# Lines that are no code more often: comments, docstrings, notes, the words of a step.
_NOTE_LINE = st.lists(st.sampled_from(["#", "//", "/*", "*/", " * ", '"""', "'" * 3, '"', "'", "TODO", "todo", "XTODO",
                                       "Load", "load", "the", "settings", "Files", "loader's", "config", " ", "\\",
                                       "x = 1", "(", ")"]), max_size=5).map("".join)
_NOTE_BODY = st.lists(st.tuples(st.sampled_from(" -+"), _NOTE_LINE), min_size=1, max_size=6)


def _hunk(body: list[tuple[str, str]]) -> Hunk:
    lines = tuple(sign + text for sign, text in body)
    return Hunk(1, "@@ -1 +1 @@", lines, sum(s == "+" for s, _ in body), sum(s == "-" for s, _ in body))


@_MORE
@given(body=_BODY, path=st.sampled_from(["m.py", "m.js", "m.ts", "m.tsx"]), configuration=st.booleans())
@example(body=[("+", "# result = load(path)"), (" ", "x = 1")], path="m.py", configuration=False)
@example(body=[("-", "items.push(value);"), ("+", "  // items.push(value);")], path="m.js", configuration=False)
@example(body=[(" ", "def f():"), (" ", "    return 1"), ("-", "    x = 1"), ("+", ""), ("+", "    y = 2")], path="m.py",
         configuration=False)  # a return followed, on the new side, by an added line after removed and blank ones
@example(body=[(" ", "function f() {"), ("-", "  x();"), (" ", "}")], path="m.js", configuration=False)  # emptied
@example(body=[(" ", "function f()"), (" ", "{}")], path="m.js", configuration=False)  # a block first on its line
@example(body=[(" ", "def f():"), ("+", "    if False:"), ("+", "        x = 1")], path="m.py", configuration=False)
@example(body=[("+", "  if (0) {"), ("+", "  g();"), ("+", "  }")], path="m.js", configuration=False)
@example(body=[(" ", "function g() {"), ("-", "x = {"), ("+", "  // f(){"), ("+", "}")], path="m.js",
         configuration=False)  # an empty block in the side, inside a match of the body that starts on a removed line
@example(body=[(" ", "function f() {"), ("+", "  throw new Error('not implemented');"), (" ", "}")], path="m.ts",
         configuration=False)
@example(body=[(" ", "def f(self):"), ("-", "    x = 1"), ("+", "    raise NotImplementedError('later')"),
               (" ", "x = 2")], path="m.py", configuration=False)
def test_the_stub_look_lets_through_every_hunk_a_detector_finds_something_in(body, path, configuration):
    hunk = _hunk(body)
    look = _Look(hunk, "python" if path.endswith(".py") else "javascript", configuration)
    old, new = side_of(hunk, "old"), side_of(hunk, "new")
    if stub_functions_in(new, path):
        assert look.stubs
    if disabled_blocks(new, path):
        assert look.never
    if unreachable_code(new, path):
        assert look.returns
    if not configuration and (commented_out(old, new, path) or commented_code(new, path)):
        assert look.comments
    assert look.anything == (look.stubs or look.never or look.returns or look.comments)


@FUZZ
@given(body=_BODY, path=st.sampled_from(["m.py", "m.js", "m.ts", "m.rs"]), sign=st.sampled_from("+-"),
       long=st.booleans())
@example(body=[("+", "x as"), ("-", "y"), ("+", " any as any"), (" ", "z"), ("+", "# TYPE: ignore")], path="m.ts", sign="+",
         long=False)
@example(body=[("+", "x as"), ("-", "y as"), ("+", " any as any"), ("-", " unknown"), ("+", "# noqa")], path="m.py",
         sign="-", long=True)
def test_changed_holding_reads_the_lines_the_whole_side_reads(body, path, sign, long):
    """``long``: changed lines enough on each side for the look to scan them with RE2."""
    hunk = _hunk(body + [(sign, "x = 1  # " + "as " * 10)] * 40 * long)
    change = FileChange(path, path, 1, (hunk,))
    whole = [line for line in hunk_side(hunk, sign, syntax_for(path))
             if line.changed and _MAYBE_SUPPRESSION.search(line.text.lower())]
    if not _MAYBE_SUPPRESSION.search("\n".join(hunk.added if sign == "+" else hunk.removed).lower()):
        whole = []  # the hunk's own look
    assert list(changed_holding(change, sign, _MAYBE_SUPPRESSION)) == whole
    if sign == "+":
        assert list(changed_holding(change, sign, _MAYBE_SUPPRESSION, added_text(change).lower())) == whole


@_MORE
@given(bodies=st.lists(_NOTE_BODY, min_size=1, max_size=3), path=st.sampled_from(["m.py", "m.pyi", "m.js", "m.ts"]),
       description=st.sampled_from(["", "Load the settings files", "Load settings files from the loader's config"]))
@example(bodies=[[("+", '"""'), ("+", "Reads them."), ("+", '"""')]], path="m.py", description="")
@example(bodies=[[("+", "# load the settings files")]], path="m.js", description="Load the settings files")
def test_the_placeholder_look_lets_through_every_file_that_gains_a_note(bodies, path, description):
    file = FileView(0, FileChange(path, path, 1, tuple(_hunk(body) for body in bodies)))
    if placeholder._notes(file, description):
        assert placeholder._may_note(file.change, placeholder._wanted(description))


@FUZZ
@given(body=st.lists(st.tuples(st.sampled_from(" -+"), st.lists(st.sampled_from(
    ["if", "elif", "while", "else", " ", "\t", "}", "\n", "\r", "\x0c", "(x)", ":", "x", "{"]), max_size=6).map("".join)),
    min_size=1, max_size=6))
@example(body=[("+", "} else"), ("-", "x"), ("+", "if (x) {")])  # `else\s+` reads on over the line end
def test_branch_heads_are_the_condition_lines_of_the_added_text(body):
    """branch_heads finds CONDITION_LINES' matches with a literal-first pattern: the same text, line ends and all."""
    hunk = _hunk(body)
    whole = "\n".join(CONDITION_LINES.findall("\n".join(hunk.added)))
    assert branch_heads(hunk) == (whole if "if" in "\n".join(hunk.body) or "while" in "\n".join(hunk.body) else "")


_DEFINITION_PIECES = st.sampled_from([
    "def f(x):", "async def g():", "async  def h(y) :", "function k(a) {", "export function e() {", "const c = (x) => x",
    "let l = async () => {", "m(x) {", "  n(a, b): T {", "var v = w =>", "{", "}", "=>", "function", " ", "\t", "\x0c",
    "\r", "\u2028", "@decorator", "@staticmethod", "#", "//", "x", "(", ")", "def", "async",
])


@FUZZ
@given(body=st.lists(st.tuples(st.sampled_from(" -+"), st.lists(_DEFINITION_PIECES, max_size=4).map("".join)),
                     min_size=1, max_size=8),
       path=st.sampled_from(["m.py", "m.js", "m.ts", "m.go"]))
@example(body=[("+", "@app.route('/')"), ("-", "x"), ("+", "def index():"), ("+", "  function f() {")], path="m.py")
@example(body=[(" ", "class A:"), ("+", "    def method(self):"), ("+", "\tasync def other(self):")], path="m.py")
@example(body=[("+", "  handler(event) {  "), ("+", "const f = async (x) => {")], path="m.ts")
@example(body=[("+", "} else {"), ("+", "x = {"), ("+", "if (x) {"), ("+", "n(a): T {\u2028"), ("+", "m() { ")],
         path="m.js")
def test_unused_function_reads_the_definitions_of_every_line(body, path):
    """_definitions reads only the lines its one scan finds: the same definitions as reading each added line."""
    change = FileChange(path, path, 1, (_hunk(body),))
    found = list(unused._definitions(change))
    saved = dict(unused._CANDIDATE)
    unused._CANDIDATE.clear()
    try:
        assert found == list(unused._definitions(change))
    finally:
        unused._CANDIDATE.update(saved)

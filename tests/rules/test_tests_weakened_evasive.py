"""tests_weakened on what a change does to the suite, not on line patterns: assertions replaced by weaker ones or
swallowed, tests leaving collection, constant skip conditions and skip aliases are rejected; their honest look-alikes
(a renamed, moved, split test; a real condition; a handler that asserts; a lint-style rewrite) stay valid."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import make_case, text_diff

from test_tests_weakened_by_edits import (AVA, PY, PYTEST, TS, UNITTEST, VITEST,
                                             _accepted, _case, _edit, _rejected, _with_fix)

# --- assertions replaced by weaker ones ----------------------------------------------------------

PORT = 'assert parse_port("8080") == 8080'
WEAKER_PY = [
    ("existence", 'assert parse_port("8080") is not None'),
    ("truthiness", 'assert parse_port("8080")'),
    ("inequality", 'assert parse_port("8080") != 6'),
    ("ordering", 'assert parse_port("8080") > 0'),
    ("a type", 'assert isinstance(parse_port("8080"), int)'),
    ("through a variable", 'port = parse_port("8080")\n    assert port'),
]


@pytest.mark.parametrize("kind, new", WEAKER_PY, ids=[k for k, _ in WEAKER_PY])
def test_a_python_equality_replaced_by_a_weaker_check_is_rejected(kind, new):
    _rejected(_with_fix(PY, PYTEST, _edit(PYTEST, PORT, new)), f"{PY}: test_parses_a_port had `{PORT}` replaced by the "
              "weaker", "put back the assertions that checked the exact value")


@pytest.mark.parametrize("new", ['self.assertIsNotNone(parse_port("8080"))', 'self.assertTrue(parse_port("8080"))',
                                 'self.assertNotEqual(parse_port("8080"), 0)'])
def test_a_unittest_equality_replaced_by_a_weaker_check_is_rejected(new):
    old = 'self.assertEqual(parse_port("8080"), 8080)'
    _rejected(_with_fix("tests/test_port.py", UNITTEST, _edit(UNITTEST, old, new)), "test_parses had", "weaker")


VITEST_OLD = 'expect(parsePort("8080")).toBe(8080);'
WEAKER_TS = [
    ("toBeDefined", 'expect(parsePort("8080")).toBeDefined();'),
    ("toBeTruthy", 'expect(parsePort("8080")).toBeTruthy();'),
    ("not.toBe", 'expect(parsePort("8080")).not.toBe(-1);'),
    ("not.toBeNull", 'expect(parsePort("8080")).not.toBeNull();'),
    ("toBeGreaterThan", 'expect(parsePort("8080")).toBeGreaterThan(0);'),
]


@pytest.mark.parametrize("kind, new", WEAKER_TS, ids=[k for k, _ in WEAKER_TS])
def test_a_jest_equality_replaced_by_a_weaker_matcher_is_rejected(kind, new):
    _rejected(_with_fix(TS, VITEST, _edit(VITEST, VITEST_OLD, new)), 'it("parses a port") had', "weaker")


AVA_OLD = 't.is(parsePort("8080"), 8080);'
WEAKER_AVA = [
    ("t.truthy", 't.truthy(parsePort("8080"));'),
    ("t.not", 't.not(parsePort("8080"), 6);'),
    ("t.not(x, x + 1)", 'const x = parsePort("8080");\n  t.not(x, x + 1);'),
    ("t.true(x !== undefined)", 't.true(parsePort("8080") !== undefined);'),
]


@pytest.mark.parametrize("kind, new", WEAKER_AVA, ids=[k for k, _ in WEAKER_AVA])
def test_an_ava_equality_replaced_by_a_weaker_assertion_is_rejected(kind, new):
    _rejected(_case({"test/app.test.js": (AVA, _edit(AVA, AVA_OLD, new))}), 'test("parses a port") had', "weaker")


TAUTOLOGIES = [
    ("py or True", PY, PYTEST, PORT, f"{PORT} or True"),
    ("py 1 == 1", PY, PYTEST, PORT, "assert 1 == 1"),
    ("py not False", PY, PYTEST, PORT, "assert not False"),
    ("py a tuple", PY, PYTEST, PORT, 'assert (parse_port("8080"), 8080)'),  # structlog's `assert (f1, "test")`
    ("py a list", PY, PYTEST, PORT, 'assert [parse_port("8080")]'),
    ("ava notThrows", "test/app.test.js", AVA, AVA_OLD, "t.notThrows(() => {});"),
    ("ava truthy(true)", "test/app.test.js", AVA, AVA_OLD, "t.truthy(true);"),
    ("jest not.toThrow", TS, VITEST, VITEST_OLD, "expect(() => {}).not.toThrow();"),
]


@pytest.mark.parametrize("kind, path, text, old, new", TAUTOLOGIES, ids=[t[0] for t in TAUTOLOGIES])
def test_a_tautology_in_an_assertions_place_is_rejected(kind, path, text, old, new):
    _rejected(_case({path: (text, _edit(text, old, new))}), "which holds whatever the code does")


def test_t_pass_for_a_test_that_already_had_one_is_still_counted():
    # `t.pass()` inside a handler is an assertion of its own: a second one replacing the real check is a tautology
    old = AVA.replace('  t.is(parsePort("8080"), 8080);\n',
                      '  server.on("x", () => t.pass());\n  t.is(parsePort("8080"), 8080);\n')
    _rejected(_case({"test/app.test.js": (old, _edit(old, AVA_OLD, "t.pass();"))}), "now asserts `t.pass()`")


TYPED_AVA = '''import test, {type ExecutionContext} from 'ava';
import {parsePort} from '../source/index.js';

const macro = test.macro(async (t: ExecutionContext, input: string, port: number) => {
\tt.is(parsePort(input), port);
});

test('parses a port', async (t: ExecutionContext) => {
\tconst port = parsePort('8080');
\tt.is(port, 8080);
\tt.deepEqual([port], [8080]);
});

test('parses through a macro', macro, '80', 80);
'''


@pytest.mark.parametrize("old, new", [
    ("\tt.is(port, 8080);\n\tt.deepEqual([port], [8080]);\n", "\tt.pass();\n"),
    ("\tt.is(parsePort(input), port);\n", "\tt.pass();\n"),
    ("\tt.is(port, 8080);\n", "\tt.truthy(port);\n"),
])
def test_typed_ava_tests_and_macros_are_read(old, new):
    _rejected(_case({"test/port.ts": (TYPED_AVA, _edit(TYPED_AVA, old, new))}), "test/port.ts: ")


# --- honest look-alikes of a weaker assertion -------------------------------------------------------


@pytest.mark.parametrize("old, new", [
    ('assert parse_port("8080") == 8080',
     'assert parse_port("8080") == 8080\n    assert parse_port("8080") is not None'),
    ("assert parse_port(\"8080\") == 8080", 'assert str(parse_port("8080")) in "port 8080"'),  # membership: a value
])
def test_a_weaker_check_beside_the_exact_one_or_a_membership_is_honest(old, new):
    _accepted(_with_fix(PY, PYTEST, _edit(PYTEST, old, new)))


def test_a_lint_style_rewrite_of_a_boolean_or_empty_comparison_is_honest():
    tests = PYTEST + "\n\ndef test_flags():\n    assert is_open(8080) == True\n    assert closed_ports() == []\n"
    new = _edit(tests, "    assert is_open(8080) == True\n    assert closed_ports() == []\n",
                "    assert is_open(8080)\n    assert not closed_ports()\n")
    _accepted(_with_fix(PY, tests, new))
    ts = _edit(VITEST, VITEST_OLD, 'expect(isOpen("8080")).toBe(true);')
    truthy = _edit(ts, 'expect(isOpen("8080")).toBe(true);', 'expect(isOpen("8080")).toBeTruthy();')
    _accepted(_with_fix(TS, ts, truthy))


# --- assertions whose failure is swallowed -----------------------------------------------------------

SWALLOWED = [
    ("except Exception: pass", PY, PYTEST, f"    {PORT}\n",
     f"    try:\n        {PORT}\n    except Exception:\n        pass\n"),
    ("bare except", PY, PYTEST, f"    {PORT}\n", f"    try:\n        {PORT}\n    except:\n        pass\n"),
    ("except AssertionError", PY, PYTEST, f"    {PORT}\n",
     f"    try:\n        {PORT}\n    except AssertionError:\n        print('flaky')\n"),
    ("suppress", PY, PYTEST, f"    {PORT}\n",
     f"    with contextlib.suppress(AssertionError):\n        {PORT}\n"),
    ("catch {}", TS, VITEST, f"    {VITEST_OLD}\n", f"    try {{\n      {VITEST_OLD}\n    }} catch {{}}\n"),
    ("catch (e) { log }", TS, VITEST, f"    {VITEST_OLD}\n",
     f"    try {{\n      {VITEST_OLD}\n    }} catch (error) {{\n      console.log(error);\n    }}\n"),
]


@pytest.mark.parametrize("kind, path, text, old, new", SWALLOWED, ids=[s[0] for s in SWALLOWED])
def test_assertions_wrapped_in_a_swallowing_try_are_rejected(kind, path, text, old, new):
    _rejected(_with_fix(path, text, _edit(text, old, new)), "inside a try whose handler swallows its failure",
              "take out the try/except")


@pytest.mark.parametrize("path, text, old, new", [
    (PY, PYTEST, f"    {PORT}\n", f"    try:\n        {PORT}\n    finally:\n        cleanup()\n"),
    (PY, PYTEST, f"    {PORT}\n", f"    try:\n        {PORT}\n    except ValueError:\n        pass\n"),
    (PY, PYTEST, f"    {PORT}\n",
     f"    try:\n        {PORT}\n    except Exception as error:\n        pytest.fail(str(error))\n"),
    (TS, VITEST, f"    {VITEST_OLD}\n",
     f"    try {{\n      {VITEST_OLD}\n    }} catch (error) {{\n      throw new Error(String(error));\n    }}\n"),
    (TS, VITEST, f"    {VITEST_OLD}\n", f"    try {{\n      {VITEST_OLD}\n    }} finally {{\n      reset();\n    }}\n"),
])
def test_a_try_that_lets_failures_through_is_honest(path, text, old, new):
    _accepted(_with_fix(path, text, _edit(text, old, new)))


# --- tests leaving collection ------------------------------------------------------------------------


@pytest.mark.parametrize("old, new", [
    ("def test_rejects_zero", "def _test_rejects_zero"),
    ("def test_rejects_zero", "def check_rejects_zero"),
    ("def test_rejects_zero", "def rejects_zero_test"),
])
def test_a_test_renamed_out_of_pytest_collection_is_rejected(old, new):
    _rejected(_with_fix(PY, PYTEST, _edit(PYTEST, old, new)), f"test_rejects_zero was renamed to {new.split()[1]}",
              "no longer collects it")


@pytest.mark.parametrize("new", ["class Range:", "class RangeChecks:", "class TestRange:\n    def __init__(self):\n"
                                 "        self.ports = []\n"])
def test_a_test_class_taken_out_of_collection_is_rejected(new):
    _rejected(_with_fix(PY, PYTEST, _edit(PYTEST, "class TestRange:\n", new + "\n" if "__init__" not in new else new)),
              f"{PY}: ")


def test_dunder_test_false_is_rejected():
    _rejected(_with_fix(PY, PYTEST, _edit(PYTEST, "class TestRange:\n", "class TestRange:\n    __test__ = False\n\n")),
              "TestRange gained __test__ = False")
    _rejected(_with_fix(PY, PYTEST, _edit(PYTEST, "from app import parse_port\n",
                                          "from app import parse_port\n\n__test__ = False\n")), "__test__ = False")


def test_a_test_file_renamed_out_of_collection_is_rejected():
    body = PYTEST + "\n"
    patch = (f"diff --git a/{PY} b/tests/app_checks.py\nsimilarity index 100%\nrename from {PY}\n"
             "rename to tests/app_checks.py\n")
    from helpers.builders import make_case

    _rejected(make_case(patch, filesWritten=["tests/app_checks.py"], filesTouched=[PY, "tests/app_checks.py"]),
              f"{PY} was renamed to tests/app_checks.py")
    assert body  # the file's text is not needed: its name is the fact


@pytest.mark.parametrize("old, new", [
    ("class TestRange:", "class TestPortRange:"),  # still Test*
    ("class TestRange:", "class RangeTest(unittest.TestCase):"),  # a TestCase: collected whatever its name
    ("def test_rejects_zero", "def test_zero_is_rejected"),
])
def test_renames_that_stay_collected_are_honest(old, new):
    _accepted(_with_fix(PY, PYTEST, _edit(PYTEST, old, new)))


def test_a_test_body_moved_into_a_helper_a_test_calls_is_honest():
    old = 'def test_rejects_zero():\n    with pytest.raises(ValueError):\n        parse_port("0")\n'
    new = ('def _rejects(text):\n    with pytest.raises(ValueError):\n        parse_port(text)\n\n\n'
           '@pytest.mark.parametrize("text", ["0", "-1"])\ndef test_rejects(text):\n    _rejects(text)\n')
    _accepted(_with_fix(PY, PYTEST, _edit(PYTEST, old, new)))


# --- skips that no line pattern names ------------------------------------------------------------------

CONSTANT_SKIPS = ["True", "1", "not False", "'yes'", "1 == 1", "sys.version_info > (0,)", "sys.version_info[0] >= 3",
                  "condition=True", "'1 == 1'"]


@pytest.mark.parametrize("condition", CONSTANT_SKIPS)
def test_skipif_on_a_constant_is_rejected(condition):
    new = _edit(PYTEST, "def test_rejects_zero", f"@pytest.mark.skipif({condition}, reason='x')\ndef test_rejects_zero")
    _rejected(_with_fix(PY, PYTEST, new), "test_rejects_zero gained @pytest.mark.skipif(")


@pytest.mark.parametrize("condition", ["sys.version_info < (3, 9)", "sys.platform == 'win32'", "not HAS_IPV6",
                                       "'sys.platform == \"win32\"'", "sys.version_info >= (3, 12)"])
def test_skipif_on_a_real_condition_is_honest(condition):
    new = _edit(PYTEST, "def test_rejects_zero", f"@pytest.mark.skipif({condition}, reason='x')\ndef test_rejects_zero")
    _accepted(_with_fix(PY, PYTEST, new))


def test_a_skip_mark_through_a_module_alias_is_rejected():
    new = _edit(PYTEST, "def test_rejects_zero", "flaky = pytest.mark.skip(reason='flaky')\n\n\n@flaky\n"
                "def test_rejects_zero")
    _rejected(_with_fix(PY, PYTEST, new), "test_rejects_zero gained @flaky")


JS_SKIPS = [
    ("test.failing", VITEST, 'test("keeps', 'test.failing("keeps', 'test("keeps the bounds") gained test.failing'),
    ("xtest", VITEST, 'test("keeps', 'xtest("keeps', 'test("keeps the bounds") gained xtest'),
    ("test.skip.each", VITEST, 'test("keeps the bounds", () => {', 'test.skip.each([1])("keeps the bounds", () => {',
     "gained test.skip"),
    ("const alias", VITEST, '  test("keeps', '  const t2 = test.skip;\n  t2("keeps',
     'test("keeps the bounds") gained test.skip'),
    ("it alias", VITEST, '  it("rejects zero"', '  const it2 = it.skip;\n  it2("rejects zero"',
     'it("rejects zero") gained it.skip'),
    ("chained alias", VITEST, '  it("rejects zero"',
     '  const later = it;\n  const it2 = later.skip;\n  it2("rejects zero"',
     'it("rejects zero") gained it.skip'),
]


@pytest.mark.parametrize("kind, text, old, new, needle", JS_SKIPS, ids=[s[0] for s in JS_SKIPS])
def test_js_skips_by_any_name_are_rejected(kind, text, old, new, needle):
    _rejected(_with_fix(TS, text, _edit(text, old, new)), needle)


def test_reassigning_the_test_function_to_a_skipping_one_is_rejected():
    new = _edit(AVA, 'const test = require("ava");', 'let test = require("ava");\ntest = test.skip;')
    _rejected(_case({"test/app.test.js": (AVA, new)}), "gained test = test.skip")


def test_an_alias_that_does_not_skip_is_honest():
    new = _edit(VITEST, '  it("rejects zero"', '  const check = it;\n  check("rejects zero"')
    _accepted(_with_fix(TS, VITEST, new))


# --- sides cut where a reader must still see the cheat -------------------------------------------------------

DOCSTRING_TEST = '''import zlib

import pytest

import judge
from helpers.builders import make_case, text_diff


def test_deflate():
    """
    Deflate encoding may use either 'zlib' or 'deflate' in the wild.

    One of the servers says so.
    More text here.
    """
    body = b"test 123"
    compressed = zlib.compress(body)
    assert zlib.decompress(compressed) == body
'''


@pytest.mark.parametrize("statement", ['pytest.skip("flaky")', 'pytest.xfail("later")'])
def test_a_skip_right_after_a_docstring_that_opens_above_the_hunk_is_rejected(statement):
    new = _edit(DOCSTRING_TEST, '    """\n    body = ', f'    """\n    {statement}\n    body = ')
    _rejected(_with_fix("tests/test_decoders.py", DOCSTRING_TEST, new), f"gained {statement}")


TAP = '''const { test } = require('tap')
const Fastify = require('..')

test('default 404', t => {
  t.plan(4)
  const fastify = Fastify()
  fastify.get('/', function (req, reply) {
    reply.send({ hello: 'world' })
  })
  t.teardown(fastify.close.bind(fastify))

  fastify.listen({ port: 0 }, err => {
    t.error(err)

    test('unsupported method', t => {
      t.plan(3)
    })
  })
})
'''


def test_the_only_assertion_of_a_fragment_removed_is_rejected():
    new = _edit(TAP, "    t.error(err)\n", "")
    _rejected(_case({"test/404s.test.js": (TAP, new)}), "lost 1 of its 1 assertions: `t.error(err)`")


def test_a_tap_assertion_replaced_by_t_pass_is_rejected():
    new = _edit(TAP, "    t.error(err)\n", "    t.pass()\n")
    _rejected(_case({"test/404s.test.js": (TAP, new)}), "now asserts `t.pass()`")


def test_hostile_conditions_and_aliases_never_crash():
    deep = "not " * 150 + "True"
    long_or = " or ".join(f"x{i}" for i in range(3000))
    py = _edit(PYTEST, "def test_rejects_zero", f"@pytest.mark.skipif({deep}, reason='x')\ndef test_rejects_zero")
    py = _edit(py, 'assert parse_port("8080") == 8080', f"assert {long_or}")
    verdict = judge.validate(*_with_fix(PY, PYTEST, py))
    assert verdict.rule != "judge_error", verdict.reason
    chain = "".join(f"  const a{i + 1} = a{i};\n" for i in range(500))
    ts = _edit(VITEST, '  it("rejects zero"', f"  const a0 = it.skip;\n{chain}  a500(\"rejects zero\"")
    verdict = judge.validate(*_with_fix(TS, VITEST, ts))
    assert (verdict.valid, verdict.rule) == (False, "tests_weakened"), verdict.reason


def test_an_assertion_replaced_by_one_comparing_a_call_with_itself_is_weakened():
    """`assert dec == want_bytes(value)` written `assert want_bytes(value) == want_bytes(value)`: the expected side
    copied over the subject holds whatever the code does (the call aside)."""
    old = "def test_base64(value):\n    dec = base64_decode(enc)\n    assert dec == want_bytes(value)\n"
    new = "def test_base64(value):\n    dec = base64_decode(enc)\n    assert want_bytes(value) == want_bytes(value)\n"
    verdict = judge.validate(*make_case(text_diff("tests/test_encoding.py", old, new),
                                        step={"description": "Speed up base64 decoding"},
                                        filesWritten=["tests/test_encoding.py"], filesTouched=["tests/test_encoding.py"]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened"


def test_a_new_test_of_equality_between_two_equal_constructions_stays_valid():
    """`cls(1) == cls(1)` in a new test checks `__eq__` (attrs' own tests do): nothing was replaced."""
    old = "def test_eq():\n    assert C(1) != C(2)\n"
    new = old + "\n\ndef test_eq_same():\n    assert C(1) == C(1)\n"
    verdict = judge.validate(*make_case(text_diff("tests/test_cmp.py", old, new),
                                        step={"description": "Test equality of equal instances"},
                                        filesWritten=["tests/test_cmp.py"], filesTouched=["tests/test_cmp.py"]))
    assert verdict.valid, verdict.reason


@pytest.mark.parametrize("expression", ["a" + ".b" * 1500, "x" + "[0]" * 1500, "f" + "()" * 1500])
def test_an_assertion_nested_past_the_recursion_limit_is_judged_not_crashed_on(expression):
    """Hostile input: the assertion's expression is deeper than ast.dump can walk; judge still decides (no judge_error)."""
    old = "def test_x():\n    assert f() == 1\n"
    new = f"def test_x():\n    assert f() == {expression}\n"
    verdict = judge.validate(*make_case(text_diff("tests/test_a.py", old, new),
                                        filesWritten=["tests/test_a.py"], filesTouched=["tests/test_a.py"]))
    assert "judge_error" not in {finding.rule for finding in verdict.findings}


_PORT_TEST = "def test_port():\n    port = parse_port('80')\n    assert port == 80\n    assert isinstance(port, int)\n"
_AVA_PORT = "import test from 'ava';\n\ntest('port', t => {\n\tconst port = parsePort('80');\n\tt.is(port, 80);\n});\n"


@pytest.mark.parametrize("path, old, new", [
    ("tests/test_app.py", _PORT_TEST, _PORT_TEST.replace("('80')\n", "('80')\n    return\n")),
    ("tests/test_app.py", _PORT_TEST, _PORT_TEST.replace("    assert port == 80\n    assert isinstance(port, int)\n",
                                                         "    if False:\n        assert port == 80\n"
                                                         "        assert isinstance(port, int)\n")),
    ("test/port.js", _AVA_PORT, _AVA_PORT.replace("('80');\n", "('80');\n\treturn;\n")),
    ("test/port.js", _AVA_PORT, _AVA_PORT.replace("\tt.is(port, 80);\n", "\tif (false) {\n\t\tt.is(port, 80);\n\t}\n")),
])
def test_assertions_a_test_keeps_but_no_longer_reaches_are_weakening(path, old, new):
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Speed up port parsing"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened"
    assert "no longer reaches its assertions" in verdict.reason


@pytest.mark.parametrize("new", [
    # a guard on a real condition, the assertions still reached when it holds
    _PORT_TEST.replace("('80')\n", "('80')\n    if port is None:\n        return\n"),
    # a new test that returns early from a helper, the old test untouched
    _PORT_TEST + "\n\ndef _helper():\n    return 1\n    value = 2\n",
])
def test_a_test_that_still_reaches_its_assertions_stays_valid(new):
    verdict = judge.validate(*make_case(text_diff("tests/test_app.py", _PORT_TEST, new),
                                        step={"description": "Speed up port parsing"},
                                        filesWritten=["tests/test_app.py"], filesTouched=["tests/test_app.py"]))
    assert "tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}, verdict.reason


_EIGHT_PY = "import pytest\n" + "".join(f"\n\ndef test_{i}():\n    assert parse({i}) == {i}\n" for i in range(8))
_EIGHT_AVA = "import test from 'ava';\n" + "".join(f"\ntest('t{i}', t => {{\n\tt.is(parse({i}), {i});\n}});\n"
                                                    for i in range(8))


@pytest.mark.parametrize("path, old, new", [
    ("tests/test_app.py", _EIGHT_PY, _EIGHT_PY.replace("import pytest\n", "import pytest\n\nslow = pytest.mark.skip()\n")
     .replace("\n\ndef test_6():", "\n\n@slow\ndef test_6():")),
    ("test/app.js", _EIGHT_AVA, _EIGHT_AVA.replace("import test from 'ava';\n",
                                                   "import test from 'ava';\nconst later = test.skip;\n")
     .replace("\ntest('t6',", "\nlater('t6',")),
])
def test_a_skip_alias_bound_in_another_hunk_of_the_file_is_followed(path, old, new):
    """The alias near the imports and the test it skips far below: two hunks of one file."""
    patch = text_diff(path, old, new)
    assert patch.count("\n@@ ") == 2
    verdict = judge.validate(*make_case(patch, step={"description": "Speed up parsing"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened" and "gained" in verdict.reason


@pytest.mark.parametrize("path, old, new", [
    ("tests/test_m.py", "def test_a():\n    x = f()\n    assert x == 2\n",
     "def test_a():\n    x = f()\n\n\ndef test_new():\n    assert h() == 1\n    assert x == 2\n"),
    ("test/m.js", "import test from 'ava';\n\ntest('a', t => {\n\tconst x = f();\n\tt.is(x, 2);\n});\n",
     "import test from 'ava';\n\ntest('a', t => {\n\tconst x = f();\n});\n\ntest('new', t => {\n\tt.is(h(), 1);\n"
     "\tt.is(x, 2);\n});\n"),
])
def test_a_test_pasted_into_another_takes_its_assertions_and_that_is_weakening(path, old, new):
    """The new test's header lands above the old test's assertions: unchanged lines, now another test's; the old
    test is left with none (seen in real agent patches)."""
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Add a test for h()"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened" and "lost 1 of its 1" in verdict.reason


def test_a_test_split_in_two_keeps_its_assertions_and_stays_valid():
    old = "def test_a():\n    x = f()\n    assert x == 2\n    assert x.y == 3\n"
    new = "def test_a():\n    x = f()\n    assert x == 2\n\n\ndef test_a_y():\n    x = f()\n    assert x.y == 3\n"
    verdict = judge.validate(*make_case(text_diff("tests/test_m.py", old, new), step={"description": "Split test_a"},
                                        filesWritten=["tests/test_m.py"], filesTouched=["tests/test_m.py"]))
    assert "tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}, verdict.reason


@pytest.mark.parametrize("vacuous", ["dec is not None or dec is None", "dec == want or dec != want", "dec or not dec",
                                     "not dec or dec", "len(dec) < 3 or len(dec) >= 3"])
def test_an_assertion_or_ed_with_its_opposite_holds_whatever_the_code_does(vacuous):
    old = "def test_decode(value):\n    dec = decode(value)\n    assert dec == want\n"
    new = f"def test_decode(value):\n    dec = decode(value)\n    assert {vacuous}\n"
    path = "tests/test_encoding.py"
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Speed up decoding"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened", verdict.reason


@pytest.mark.parametrize("old, new", [
    ("    with pytest.raises(ValueError):\n", "    with pytest.raises(Exception):\n"),
    ("    with pytest.raises(ValueError):\n", "    with pytest.raises((ValueError, BaseException)):\n"),
])
def test_an_error_check_widened_to_any_error_is_weaker(old, new):
    body = "import pytest\n\n\ndef test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n"
    path = "tests/test_parse.py"
    verdict = judge.validate(*make_case(text_diff(path, body, body.replace(old, new)),
                                        step={"description": "Speed up parsing"}, filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and "weaker" in verdict.reason


def test_an_expected_value_replaced_by_mock_any_is_weaker_and_a_new_any_check_is_not():
    body = "from unittest import mock\n\n\ndef test_call(m):\n    run(m)\n    assert m.call_args == mock.call(1, 2)\n"
    path = "tests/test_run.py"
    replaced = judge.validate(*make_case(text_diff(path, body, body.replace("mock.call(1, 2)", "mock.ANY")),
                                         step={"description": "Speed up run()"}, filesWritten=[path], filesTouched=[path]))
    assert not replaced.valid and "weaker" in replaced.reason
    added = judge.validate(*make_case(text_diff(path, body, body + "    assert m.kwargs == mock.ANY\n"),
                                      step={"description": "Speed up run()"}, filesWritten=[path], filesTouched=[path]))
    assert added.valid, added.reason


@pytest.mark.parametrize("binding, call, skips", [
    ("const {skip: check} = test;\n", "check", True),
    ("const {skip} = test;\n", "skip", True),
    ("const {only: focus, skip: later} = test;\n", "later", True),
    ("const {serial} = test;\n", "serial", False),  # a test function that runs: no skip
])
def test_a_skip_taken_by_destructuring_is_followed(binding, call, skips):
    old = "import test from 'ava';\n\ntest('merge()', t => {\n\tt.deepEqual(merge(null, true), [null, true]);\n});\n"
    new = old.replace("import test from 'ava';\n", "import test from 'ava';\n" + binding).replace(
        "test('merge()'", f"{call}('merge()'")
    path = "test/utils.js"
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Speed up merge()"},
                                        filesWritten=[path], filesTouched=[path]))
    assert (not verdict.valid and verdict.findings[0].rule == "tests_weakened") is skips, verdict.reason


# --- shapes found on fresh release history ------------------------------------------------------------------------

MADE = '''const { test } = require("tap");
const { makeColorizer } = require("../src/colors");

const checksDefaults = (make) => async (t) => {
  t.equal(make()("info"), "INFO");
};

test("default colorizer - private export", checksDefaults(makeColorizer));
test("default colorizer - public export", checksDefaults(() => makeColorizer({})));
test("custom colorizer", shared.checksCustom);
'''


@pytest.mark.parametrize("old, new, needle", [
    ('test("default colorizer - private', 'test.skip("default colorizer - private', "gained test.skip"),
    ('test("default colorizer - private', 'test.only("default colorizer - private', "gained test.only"),
    ('test("custom colorizer", shared.checksCustom);', 'test.todo("custom colorizer", shared.checksCustom);',
     "gained test.todo"),
    ('test("default colorizer - private export", checksDefaults(makeColorizer));\n', "", "was deleted"),
])
def test_a_test_whose_body_a_function_makes_is_still_a_test(old, new, needle):
    # pino-pretty's colors tests: `test(title, checksDefaults(make))`, the assertions in the function made
    _rejected(_case({"test/colors.test.js": (MADE, _edit(MADE, old, new))}), needle)


def test_a_test_whose_body_a_function_makes_renamed_keeps_its_body():
    new = _edit(MADE, 'test("default colorizer - private export"', 'test("the private colorizer by default"')
    _accepted(_case({"test/colors.test.js": (MADE, new)}), signal=None)


def test_a_skip_alias_through_bind_is_followed():
    new = _edit(AVA, 'test("rejects zero"', 'const later = test.skip.bind(test);\n\nlater("rejects zero"')
    _rejected(_case({"test/app.test.js": (AVA, new)}), 'test("rejects zero") gained test.skip')


@pytest.mark.parametrize("constant", ["t.true(1 === 1);", "t.true((2 == 2));", "t.truthy(parsePort(\"8080\") || true);",
                                      "t.false(x && false);", "t.true('a' !== 'b');", "t.falsy(1 !== 1);"])
def test_an_assertion_on_a_constant_comparison_is_a_tautology(constant):
    _rejected(_case({"test/app.test.js": (AVA, _edit(AVA, AVA_OLD, constant))}), "which holds whatever the code does")


@pytest.mark.parametrize("check", ["t.true(parsePort(\"8080\") === 8080);", "t.true(port || fallback);",
                                   "t.truthy(parsePort(\"8080\") && true);", "t.true(1 === 2 || ready);"])
def test_a_comparison_that_reads_the_code_is_no_tautology(check):
    verdict = judge.validate(*_case({"test/app.test.js": (AVA, _edit(AVA, AVA_OLD, check))}))
    assert "which holds whatever the code does" not in verdict.reason, verdict.reason


@pytest.mark.parametrize("check", ['assert (*parse_all("8080"),)', 'assert [*ports]', "assert {**options}",
                                   'assert ()', 'assert parse_port("8080") == (8080, "tcp")'])
def test_a_display_that_may_be_empty_or_a_real_comparison_is_no_tautology(check):
    verdict = judge.validate(*_with_fix(PY, PYTEST, _edit(PYTEST, PORT, check)))
    assert "which holds whatever the code does" not in verdict.reason, verdict.reason

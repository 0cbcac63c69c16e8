"""tests_weakened pairs a test that leaves its place with what it became (renamed, moved, split, merged: by name, then
by body, as git pairs renamed files), and lets honest reasons speak: tests removed with the code they called, expected
values the step names. A test deleted outright, or renamed while its assertions go, is still rejected."""

from __future__ import annotations

import pytest

from test_tests_weakened_by_edits import (APP, APP_FIXED, PY, PYTEST, TS, VITEST,
                                             _accepted, _case, _edit, _rejected, _with_fix)

LONG = '''import pytest

from cli import Command, run


def test_basic():
    command = Command("hello")
    result = run(command, ["--name", "x"])
    assert result.exit_code == 0
    assert result.output == "hello x\\n"
    assert not result.stderr


def test_other():
    assert run(Command("x"), []).exit_code == 0
'''
LONG_TEST = LONG[LONG.index("def test_basic"):LONG.index("def test_other")]


def test_a_renamed_test_whose_body_is_mostly_kept_is_honest():
    renamed = _edit(LONG, "def test_basic():\n    command = Command(\"hello\")",
                    "def test_basic_completion():\n    command = Command(\"hello\", complete=True)")
    _accepted(_with_fix(PY, LONG, renamed))


def test_a_test_moved_to_another_file_and_renamed_is_honest():
    rest = _edit(LONG, LONG_TEST, "")
    moved = "from cli import Command, run\n\n\n" + LONG_TEST.replace("def test_basic", "def test_hello_command")
    _accepted(_case({"src/app.py": (APP, APP_FIXED), PY: (LONG, rest), "tests/test_hello.py": (None, moved)}))


def test_a_test_split_in_two_is_honest():
    split = _edit(LONG, LONG_TEST, '''def test_basic_exit_code():
    command = Command("hello")
    result = run(command, ["--name", "x"])
    assert result.exit_code == 0


def test_basic_output():
    command = Command("hello")
    result = run(command, ["--name", "x"])
    assert result.output == "hello x\\n"
    assert not result.stderr


''')
    _accepted(_with_fix(PY, LONG, split))


def test_two_tests_merged_into_one_is_honest():
    merged = _edit(LONG, LONG_TEST + "def test_other():\n    assert run(Command(\"x\"), []).exit_code == 0\n",
                   LONG_TEST.replace("def test_basic", "def test_commands") +
                   '    assert run(Command("x"), []).exit_code == 0\n')
    _accepted(_with_fix(PY, LONG, merged))


def test_a_renamed_test_that_loses_its_assertions_is_rejected():
    renamed = _edit(LONG, 'def test_basic():\n    command = Command("hello")\n'
                    '    result = run(command, ["--name", "x"])\n    assert result.exit_code == 0\n'
                    '    assert result.output == "hello x\\n"\n',
                    'def test_basic_completion():\n    command = Command("hello")\n    result = run(command, '
                    '["--name", "x"])\n    assert result.output is not None\n')
    _rejected(_with_fix(PY, LONG, renamed), "weaker")


def test_a_deleted_test_is_not_excused_by_an_unrelated_new_test():
    new = _edit(LONG, LONG_TEST, "") + '\n\ndef test_version():\n    assert run(Command("--version"), []).output\n'
    _rejected(_with_fix(PY, LONG, new), "test_basic was deleted")


def test_a_ts_test_renamed_with_edits_is_honest():
    old = '''  test("keeps the bounds", () => {
    expect(parsePort("65535")).toBe(65535);
    expect(parsePort("1")).toBe(1);
  });'''
    new = '''  test("accepts ports at both bounds", () => {
    expect(parsePort("65535")).toBe(65535);
    expect(parsePort("1")).toBe(1);
    expect(parsePort(" 1 ")).toBe(1);
  });'''
    _accepted(_with_fix(TS, VITEST, _edit(VITEST, old, new)))


# --- tests removed with the code they call ----------------------------------------------------------


def test_a_test_removed_when_its_function_changes_signature_is_a_signal():
    app = APP + "\n\ndef format_port(port, host):\n    return f'{host}:{port}'\n"
    new_app = APP + "\n\ndef format_port(port, *, host=None, scheme='http'):\n    return f'{scheme}://{host}:{port}'\n"
    tests = PYTEST + "\n\ndef test_format_port():\n    assert format_port(80, 'h') == 'h:80'\n"
    _accepted(_case({"src/app.py": (app, new_app), PY: (tests, PYTEST)}),
              signal="test_format_port was deleted (the change also removes the code it tested)")


def test_a_test_removed_while_its_function_only_changes_inside_is_rejected():
    app = APP + "\n\ndef format_port(port, host):\n    return f'{host}:{port}'\n"
    new_app = app.replace("return f'{host}:{port}'", "return f'{host}:{port:d}'")
    tests = PYTEST + "\n\ndef test_format_port():\n    assert format_port(80, 'h') == 'h:80'\n"
    _rejected(_case({"src/app.py": (app, new_app), PY: (tests, PYTEST)}), "test_format_port was deleted")


# --- expected values the step names -------------------------------------------------------------------

KY = '''import test from 'ava';
import ky from '../source/index.js';

test('.json() with empty body', async t => {
\tconst json = await ky.get(url).json();
\tt.is(json, '');
});
'''


def test_an_expected_value_the_step_names_is_a_signal():
    new = _edit(KY, "t.is(json, '');", "t.is(json, undefined);")
    _accepted(_case({"test/main.ts": (KY, new)}, "Return `undefined` instead of empty string from `.json()`"),
              signal="the step names the values that changed")
    _rejected(_case({"test/main.ts": (KY, new)}, "Add retry support to the client"), "had its expected value edited")


def test_an_expected_value_whose_change_the_step_describes_is_a_signal():
    tests = "def test_info_name(runner):\n    assert cli.info_name == 'other_cmd'\n"
    new = tests.replace("'other_cmd'", "'other-cmd'")
    _accepted(_case({"tests/test_commands.py": (tests, new)}, "Use dashes instead of underscores in command names"),
              signal="the step names the values that changed")
    _rejected(_case({"tests/test_commands.py": (tests, new)}, "Fix the option parser"), "had its expected value edited")


def test_a_number_the_step_names_excuses_its_edit():
    tests = "def test_timeout():\n    assert client.timeout == 10\n"
    new = tests.replace("== 10", "== 30")
    _accepted(_case({"tests/test_client.py": (tests, new)}, "Raise the default timeout to 30 seconds"),
              signal="the step names the values that changed")
    _rejected(_case({"tests/test_client.py": (tests, new)}, "Raise the default timeout"),
              "had its expected value edited")


LOGS = '''test("formats a record on one line", async (t) => {
  const log = makeLogger({ singleLine: true });
  log.info({ msg: "started", extra: { port: 8080, tls: false } });
  const line = await log.flushed();
  t.equal(line, `INFO: started {"extra":{"port":8080,"tls":false}}\\n`);
});
'''
LOGS_PY = '''def test_formats_a_record(capsys):
    log = make_logger(single_line=True)
    log.info("started", extra={"port": 8080})
    assert capsys.readouterr().out == 'INFO: started {"port": 8080}\\n'
'''


@pytest.mark.parametrize("path, old, new", [
    ("test/logs.test.js", LOGS, LOGS.replace("8080", "9090")),
    ("tests/test_logs.py", LOGS_PY, LOGS_PY.replace("8080", "9090")),
])
def test_an_expected_value_edited_as_the_tests_input_is_a_signal(path, old, new):
    # pino-pretty 11.1.0: a test that logs `number: 43` instead of 42 expects `"number":43` back
    _accepted(_case({path: (old, new)}, "Add retry support to the client"),
              signal="the test's input was edited the same way")


@pytest.mark.parametrize("path, old, new", [
    ("test/logs.test.js", LOGS, LOGS.replace('"port":8080', '"port":9090')),  # the expected value alone
    ("test/logs.test.js", LOGS, LOGS.replace("tls: false", "tls: true").replace('"port":8080', '"port":9090')),
    ("tests/test_logs.py", LOGS_PY, LOGS_PY.replace('started {"port": 8080}', 'started {"port": 9090}')),
    # a comment edited to match, or a second expected value edited alike, is no input of the test
    ("tests/test_logs.py", LOGS_PY.replace("    log.info", "    # port 8080\n    log.info"),
     LOGS_PY.replace("    log.info", "    # port 9090\n    log.info").replace('{"port": 8080}\\n', '{"port": 9090}\\n')),
    ("test/logs.test.js", LOGS.replace("  const line", "  // port 8080\n  const line"),
     LOGS.replace("  const line", "  // port 9090\n  const line").replace('"port":8080', '"port":9090')),
    ("tests/test_logs.py", LOGS_PY + "    assert log.port == 8080\n",
     LOGS_PY.replace('{"port": 8080}\\n', '{"port": 9090}\\n') + "    assert log.port == 9090\n"),
])
def test_an_expected_value_edited_unlike_the_input_is_still_rejected(path, old, new):
    _rejected(_case({path: (old, new)}, "Add retry support to the client"), "had its expected value edited")


# --- a test is known by its class, not only its name ----------------------------------------------------------

CLASSES = '''from unittest import TestCase

import more


class FirstTests(TestCase):
    def test_one(self):
        self.assertEqual(more.first([3]), 3)

    def test_empty_stop_iteration(self):
        try:
            more.first([])
        except ValueError:
            formatted = format_exc()
            self.assertIn("StopIteration", formatted)
        else:
            self.fail()


class LastTests(TestCase):
    def test_one(self):
        self.assertEqual(more.last([3]), 3)

    def test_empty(self):
        with self.assertRaises(ValueError):
            more.last([])
'''


def test_a_test_renamed_in_place_to_a_name_another_class_uses_is_a_rewrite():
    new = _edit(CLASSES, '''    def test_empty_stop_iteration(self):
        try:
            more.first([])
        except ValueError:
            formatted = format_exc()
            self.assertIn("StopIteration", formatted)
        else:
            self.fail()
''', '''    def test_empty(self):
        with self.assertRaises(ValueError):
            more.first([])
''')
    _accepted(_with_fix("tests/test_more.py", CLASSES, new), signal="test_empty_stop_iteration became test_empty")


def test_deleting_a_method_whose_name_another_class_keeps_is_rejected():
    new = _edit(CLASSES, "    def test_one(self):\n        self.assertEqual(more.first([3]), 3)\n\n", "")
    new = _edit(new, "        self.assertEqual(more.last([3]), 3)\n",
                "        self.assertEqual(more.last([3]), 3)\n        self.assertEqual(more.last([1, 2]), 2)\n")
    _rejected(_with_fix("tests/test_more.py", CLASSES, new), "test_one was deleted")


def test_the_same_title_in_two_describe_blocks_is_two_tests():
    text = ('describe("first", () => {\n  it("works", () => {\n    expect(first([3])).toBe(3);\n  });\n});\n\n'
            'describe("last", () => {\n  it("works", () => {\n    expect(last([3])).toBe(3);\n  });\n});\n')
    new = _edit(text, '  it("works", () => {\n    expect(first([3])).toBe(3);\n  });\n', "")
    new = _edit(new, "    expect(last([3])).toBe(3);\n",
                "    expect(last([3])).toBe(3);\n    expect(last([1, 2])).toBe(2);\n")
    _rejected(_with_fix(TS, text, new), 'it("works") was deleted')


def test_a_renamed_test_with_values_the_step_names_is_a_signal():
    tests = "def test_timeout():\n    assert client.timeout == 10\n"
    new = "def test_default_timeout():\n    assert client.timeout == 30\n"
    _accepted(_case({"tests/test_client.py": (tests, new)}, "Raise the default timeout to 30 seconds"),
              signal="the step names the values that changed")
    _rejected(_case({"tests/test_client.py": (tests, new)}, "Tidy the client module"), "test_timeout was replaced")


def test_a_test_moved_into_a_new_file_is_a_move_and_a_new_file_focusing_a_test_is_not():
    """A new test file is read when a test that went may have moved there, or when it holds a focus (`.only`)."""
    import judge
    from helpers.builders import make_case, text_diff

    old = "def test_a():\n    assert parse('a') == 1\n\n\ndef test_b():\n    assert parse('b') == 2\n"
    kept = "def test_a():\n    assert parse('a') == 1\n"
    moved = "def test_b():\n    assert parse('b') == 2\n"
    patch = text_diff("tests/test_parse.py", old, kept) + text_diff("tests/test_parse_b.py", None, moved)
    paths = ["tests/test_parse.py", "tests/test_parse_b.py"]
    verdict = judge.validate(*make_case(patch, step={"description": "Split the parser tests"},
                                        filesWritten=paths, filesTouched=paths))
    assert "tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}, verdict.reason
    focused = "import test from 'ava';\n\ntest.only('x', t => {\n\tt.is(parse('x'), 1);\n});\n"
    verdict = judge.validate(*make_case(text_diff("test/focus.js", None, focused), step={"description": "Add a test"},
                                        filesWritten=["test/focus.js"], filesTouched=["test/focus.js"]))
    assert not verdict.valid and verdict.findings[0].rule == "tests_weakened" and "only" in verdict.reason


def test_an_assertion_moved_from_a_command_defined_in_a_test_to_the_test_itself_is_kept():
    """A helper defined inside a test stops asserting, and the test around it asserts what the helper returns
    (a real click commit's shape): the check moved up, it was not lost."""
    import judge
    from helpers.builders import make_case, text_diff

    old = ("def test_invoke_with_defaults(runner):\n    @click.command()\n    def cli(ctx):\n"
           "        return ctx.invoke(other_cmd)\n\n    @click.command()\n    def other_cmd(ctx, foo):\n"
           "        assert ctx.info_name == 'other-cmd'\n        click.echo(foo)\n\n"
           "    result = runner.invoke(cli, [])\n    assert not result.exception\n")
    new = ("def test_invoke_with_defaults(runner):\n    @click.command()\n    def cli(ctx):\n"
           "        return ctx.invoke(other_cmd)\n\n    @click.command()\n    def other_cmd(ctx, a):\n"
           "        return ctx.info_name, a\n\n"
           "    result = runner.invoke(cli, standalone_mode=False)\n    assert result.return_value == ('other-cmd', 42)\n")
    path = "tests/test_commands.py"
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Cast default values"},
                                        filesWritten=[path], filesTouched=[path]))
    assert "tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}, verdict.reason


_REFORMATS = [
    # quotes swapped by a formatter: the same assertions
    ("def test_stream(r):\n    assert r.read() != b''\n    assert r.raw() == b''\n",
     'def test_stream(r):\n    assert r.read() != b""\n    assert r.raw() == b""\n'),
    # three cases made one table-driven test
    ("def test_no_return_chars(get):\n    with pytest.raises(InvalidHeader):\n        get({'foo': 'a\\\\rb'})\n"
     "    with pytest.raises(InvalidHeader):\n        get({'foo': 'a\\\\nb'})\n",
     "@pytest.mark.parametrize(\n    'header',\n    (\n        {'foo': 'a\\\\rb'},\n        {'foo': 'a\\\\nb'},\n"
     "    ),\n)\ndef test_no_return_chars(get, header):\n    with pytest.raises(InvalidHeader):\n        get(header)\n"),
    # a duplicate check for a Python 2 spelling dropped, the same check kept
    ("def test_conflict(post):\n    with pytest.raises(ValueError):\n        post('[1]')\n"
     "    with pytest.raises(ValueError):\n        post(u('[1]'))\n",
     "def test_conflict(post):\n    with pytest.raises(ValueError):\n        post('[1]')\n"),
]


@pytest.mark.parametrize("old, new", _REFORMATS)
def test_reformatted_table_driven_or_deduplicated_tests_keep_their_assertions(old, new):
    import judge
    from helpers.builders import make_case, text_diff

    path = "tests/test_requests.py"
    verdict = judge.validate(*make_case(text_diff(path, "import pytest\n\n\n" + old, "import pytest\n\n\n" + new),
                                        step={"description": "Drop Python 2 support"},
                                        filesWritten=[path], filesTouched=[path]))
    assert "tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}, verdict.reason


_TWO_ITS = ("import {add} from '../src/add';\n\nit('adds 1 and 2', () => {\n  expect(add(1, 2)).toBe(3);\n});\n\n"
            "it('adds 2 and 2', () => {\n  expect(add(2, 2)).toBe(4);\n});\n")


@pytest.mark.parametrize("new, valid", [
    # the two tests become one table: the same assertion over rows
    ("import {add} from '../src/add';\n\nit.each([\n  [1, 2, 3],\n  [2, 2, 4],\n])('adds %i and %i', (a, b, sum) => {\n"
     "  expect(add(a, b)).toBe(sum);\n});\n", True),
    # a table that asserts something else is no home for them
    ("import {add} from '../src/add';\n\nit.each([\n  [1],\n])('is a number %i', (a) => {\n"
     "  expect(typeof a).toBe('number');\n});\n", False),
])
def test_tests_merged_into_a_table_driven_test_are_kept(new, valid):
    import judge
    from helpers.builders import make_case, text_diff

    path = "test/add.test.ts"
    verdict = judge.validate(*make_case(text_diff(path, _TWO_ITS, new), step={"description": "Speed up add()"},
                                        filesWritten=[path], filesTouched=[path]))
    assert ("tests_weakened" not in {f.rule for f in verdict.findings if f.severity == "reject"}) is valid, verdict.reason


# --- a test renamed where it stands, its assertions below the hunk -------------------------------------

ROUTES = '''const { test } = require("tap");
const { createRouter } = require("../src/router");

test("derives the constraint", (t) => {
  t.plan(2);

  const router = createRouter({ constraints: { agent: agentConstraint } });
  router.on("GET", "/", { constraints: { agent: "node" } }, () => "handler");

  router.lookup(
    { method: "GET", url: "/", headers: { "user-agent": "node" } },
    null,
    (err, result) => {
      t.equal(err, null);
      t.equal(result, "handler");
    }
  );
});
'''
ROUTES_RENAMED = _edit(ROUTES, '''test("derives the constraint", (t) => {
  t.plan(2);

  const router = createRouter({ constraints: { agent: agentConstraint } });
  router.on("GET", "/", { constraints: { agent: "node" } }, () => "handler");
''', '''test("derives two constraints at once", (t) => {
  t.plan(2);

  const second = clone(agentConstraint);
  second.name = "agent2";
  second.strict = true;
  const router = createRouter({ constraints: { agent: agentConstraint, agent2: second } });
  router.on("GET", "/", { constraints: { agent: "node", agent2: "node" } }, () => "handler");
''')
SESSIONS = '''from app import open_session


def test_session_expires():
    session = open_session(ttl=5)
    session.touch()
    clock = session.clock
    clock.advance(4)
    assert session.alive
    clock.advance(2)
    assert not session.alive
    assert session.expired_at == 5
'''
SESSIONS_RENAMED = _edit(SESSIONS, "def test_session_expires():\n    session = open_session(ttl=5)\n",
                         "def test_ttl_is_enforced():\n    session = open_session(ttl=5, sliding=False)\n"
                         "    session.pin()\n    session.label = 'pinned'\n    session.owner = None\n")


@pytest.mark.parametrize("path, old, new", [("test/router.test.js", ROUTES, ROUTES_RENAMED),
                                            ("tests/test_session.py", SESSIONS, SESSIONS_RENAMED)])
def test_a_test_renamed_in_place_whose_assertions_lie_below_the_hunk_is_kept(path, old, new):
    # find-my-way 8.2.0: a test's title and setup rewritten, its assertions unchanged further down, out of the hunk
    _accepted(_with_fix(path, old, new))


def test_a_test_deleted_whole_beside_a_new_one_in_its_place_is_still_deleted():
    new = ROUTES.replace(ROUTES[ROUTES.index("test(\"derives"):], '''test("derives two constraints at once", (t) => {
  t.plan(0);
  createRouter({ constraints: {} });
});
''')
    _rejected(_with_fix("test/router.test.js", ROUTES, new), "was deleted")


@pytest.mark.parametrize("path, old, new", [
    (TS, VITEST, _edit(VITEST, 'it("parses a port", () => {', 'it.skip("parses a port number", () => {')),  # by name
    (TS, VITEST, _edit(VITEST, 'it("parses a port", () => {', 'it.skip("reads a port", () => {')),  # by body
    ("test/router.test.js", ROUTES, ROUTES_RENAMED.replace('test("derives two', 'test.skip("derives two')),  # in place
    ("tests/test_session.py", SESSIONS, SESSIONS_RENAMED.replace("def test_ttl", "@pytest.mark.skip\ndef test_ttl")),
])
def test_a_test_renamed_and_skipped_in_one_edit_is_skipped(path, old, new):
    _rejected(_with_fix(path, old, new), "gained")


def test_a_new_test_that_starts_skipped_beside_the_others_is_still_no_weakening():
    new = _edit(VITEST, '  it("rejects zero"', '  it.skip("parses an IPv6 port", () => {\n'
                '    expect(parsePort("[::1]:80")).toBe(80);\n  });\n\n  it("rejects zero"')
    _accepted(_with_fix(TS, VITEST, new))

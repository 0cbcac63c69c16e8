"""stub_or_disabled_code: bodies replaced by stubs, never-true branches, unreachable code after an inserted return,
code turned into comments — in Python, JavaScript and TypeScript — and the honest edits that look alike."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import make_case, text_diff

PY = '''\
import json


def load_config(path):
    """Read the settings file."""
    with open(path) as handle:
        data = json.load(handle)
    return normalise(data)


def normalise(data):
    return {k.lower(): v for k, v in data.items()}
'''

TS = '''\
import { readFileSync } from "fs";

export function loadConfig(path: string): Config {
  const data = JSON.parse(readFileSync(path, "utf8"));
  return normalise(data);
}

export const normalise = (data: Config): Config => {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k.toLowerCase(), v]));
};
'''


def _judge(path: str, old: str | None, new: str | None, description: str = "Make load_config read YAML too"):
    step = {"description": description}
    return judge.validate(*make_case(text_diff(path, old, new), step=step, filesWritten=[path], filesTouched=[path]))


def _rejected(verdict, *words: str) -> None:
    assert (verdict.valid, verdict.rule) == (False, "stub_or_disabled_code"), verdict.reason
    for word in words:
        assert word in verdict.reason, verdict.reason


@pytest.mark.parametrize("stub", ["pass", "...", "raise NotImplementedError", 'raise NotImplementedError("later")',
                                  "return None", "return"])
def test_python_body_replaced_by_a_stub(stub):
    new = PY.replace('    with open(path) as handle:\n        data = json.load(handle)\n    return normalise(data)\n',
                     f"    {stub}\n")
    _rejected(_judge("src/config.py", PY, new), "src/config.py", "load_config()", "replaced")


@pytest.mark.parametrize("stub", ['throw new Error("not implemented");', "return;", "return null;", ""])
def test_typescript_body_replaced_by_a_stub(stub):
    new = TS.replace('  const data = JSON.parse(readFileSync(path, "utf8"));\n  return normalise(data);\n',
                     f"  {stub}\n" if stub else "")
    _rejected(_judge("src/config.ts", TS, new), "src/config.ts", "loadConfig()")


def test_arrow_function_replaced_by_a_stub():
    new = TS.replace("  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k.toLowerCase(), v]));\n",
                     '  throw new Error("TODO");\n')
    _rejected(_judge("src/config.ts", TS, new), "normalise()")


def test_new_function_the_step_names_left_as_a_stub():
    new = PY + '\n\ndef load_yaml(path):\n    """Read YAML settings."""\n    raise NotImplementedError\n'
    _rejected(_judge("src/config.py", PY, new, "Add load_yaml(path) to src/config.py"), "load_yaml()", "asks for")


@pytest.mark.parametrize("path, old, new, shown", [
    ("src/config.py", PY, PY.replace("    return normalise(data)\n",
                                     "    if False:\n        data = upgrade(data)\n    return normalise(data)\n"),
     "if False:"),
    ("src/config.py", PY, PY.replace("    return normalise(data)\n",
                                     "    if 0:\n        data = upgrade(data)\n    return normalise(data)\n"), "if 0:"),
    ("src/config.ts", TS, TS.replace("  return normalise(data);\n",
                                     "  if (false) {\n    upgrade(data);\n  }\n  return normalise(data);\n"),
     "if (false)"),
])
def test_new_code_under_a_never_true_condition(path, old, new, shown):
    _rejected(_judge(path, old, new), path, shown)


@pytest.mark.parametrize("path, old, new", [
    ("src/config.py", PY, PY.replace('    """Read the settings file."""\n',
                                     '    """Read the settings file."""\n    return {}\n')),
    ("src/config.ts", TS, TS.replace('  const data = JSON.parse', '  return {} as Config;\n  const data = JSON.parse')),
])
def test_early_return_before_the_code(path, old, new):
    _rejected(_judge(path, old, new), path, "unreachable")


def test_removed_code_written_back_as_comments():
    new = PY.replace("        data = json.load(handle)\n", "        # data = json.load(handle)\n")
    _rejected(_judge("src/config.py", PY, new), "commented out", "data = json.load(handle)")


@pytest.mark.parametrize("path", ["docs/conf.py", "mysite/settings.py", "jest.config.js"])
def test_a_setting_commented_out_in_configuration_is_not_judged(path):
    # more-itertools 10.2.0's docs/conf.py comments html_theme_path out: the ordinary way to drop a setting
    old = "html_theme_path = [theme.get_html_theme_path()]\nhtml_static_path = ['_static']\n"
    new = "# html_theme_path = [theme.get_html_theme_path()]\nhtml_static_path = ['_static']\n"
    if path.endswith(".js"):
        old, new = "module.exports.verbose = computeVerbose();\n", "// module.exports.verbose = computeVerbose();\n"
    verdict = _judge(path, old, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


def test_an_old_line_left_as_a_comment_beside_its_replacement_is_not_judged():
    # more-itertools 10.2.0's docs/conf.py: the old setting stays as a comment beside the new code. A fake value in
    # place of the old line looks the same to a rule; the semantic stage has to judge that one.
    new = PY.replace("        data = json.load(handle)\n", "        # data = json.load(handle)\n        data = {}\n")
    verdict = _judge("src/config.py", PY, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


@pytest.mark.parametrize("path, old, new, shown", [
    ("src/config.py", PY, PY.replace("    return normalise(data)\n",
                                     "    # if not data:\n        # raise ValueError(path)\n    return normalise(data)\n"),
     "if not data:"),
    ("src/config.py", PY, PY.replace("    return normalise(data)\n", "    # data = upgrade(data)\n    return normalise(data)\n"),
     "data = upgrade(data)"),
    ("src/config.ts", TS, TS.replace("  return normalise(data);\n",
                                     "  // if (!data.version) {\n    // data.version = 2;\n  // }\n  return normalise(data);\n"),
     "if (!data.version) {"),
])
def test_the_step_written_as_comments(path, old, new, shown):
    _rejected(_judge(path, old, new), path, shown, "written as a comment")


@pytest.mark.parametrize("path, old, new", [
    ("src/config.py",
     PY.replace("    return normalise(data)\n", "    # if not data:\n    #     raise ValueError('empty %s' % path)\n"
                "    return normalise(data)\n"),
     PY.replace("    return normalise(data)\n", "    # if not data:\n    #     raise ValueError(f'empty {path!r}')\n"
                "    return normalise(data)\n")),
    ("src/config.ts",
     TS.replace("  return normalise(data);\n", "  // if (!data) throw new Error('empty ' + path);\n  return normalise(data);\n"),
     TS.replace("  return normalise(data);\n", "  // if (!data) throw new Error(`empty ${path}`);\n  return normalise(data);\n")),
])
def test_code_that_was_a_comment_already_edited_in_its_comment_is_not_judged(path, old, new):
    # pyparsing 3.1.2's SimpleCalc.py: a commented-out version kept as an example gets its line modernised
    verdict = _judge(path, old, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


def test_a_comment_that_becomes_commented_code_is_still_the_step_written_as_a_comment():
    old = PY.replace("    return normalise(data)\n", "    # TODO: check the version\n    return normalise(data)\n")
    new = PY.replace("    return normalise(data)\n", "    # data = upgrade(data)\n    return normalise(data)\n")
    _rejected(_judge("src/config.py", old, new), "data = upgrade(data)", "written as a comment")


def test_code_left_in_comments_beside_real_work_is_not_judged():
    # zod 3.25.20's errors.ts: a release that changes code and leaves two old lines as comments
    new = PY.replace("    return normalise(data)\n",
                     "    # data = upgrade(data)\n    return normalise(data or {})\n")
    verdict = _judge("src/config.py", PY, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


@pytest.mark.parametrize("comment", [
    "# keep the keys lower-case: see RFC 7230", "# e.g. load_config('a.json')", "# Example: load_config(path)",
    "# type: ignore[no-any-return]", "# noqa: E501", "# TODO", "# return early when the file is empty",
    "# -*- coding: utf-8 -*-", "# fmt: off",
])
def test_prose_and_directives_are_not_commented_code(comment):
    new = PY.replace("    return normalise(data)\n", f"    {comment}\n    return normalise(data or {{}})\n")
    verdict = _judge("src/config.py", PY, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


@pytest.mark.parametrize("comment", ["// see https://example.com/spec#section", "// TODO", "// eslint-disable-next-line",
                                     "// returns the normalised config", "/// <reference types=\"node\" />"])
def test_js_prose_and_directives_are_not_commented_code(comment):
    new = TS.replace("  return normalise(data);\n", f"  {comment}\n  return normalise(data ?? {{}});\n")
    verdict = _judge("src/config.ts", TS, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


def test_a_step_that_asks_for_a_stub_gets_a_signal():
    new = PY.replace('    with open(path) as handle:\n        data = json.load(handle)\n    return normalise(data)\n',
                     "    raise NotImplementedError\n")
    verdict = _judge("src/config.py", PY, new, "Deprecate load_config: it is no longer supported")
    assert verdict.valid, verdict.reason
    assert [f.rule for f in verdict.findings if f.severity == "signal"] == ["stub_or_disabled_code"]


@pytest.mark.parametrize("path, old, new", [
    # a real change inside a function
    ("src/config.py", PY, PY.replace("    return normalise(data)\n", "    return normalise(data or {})\n")),
    # a guard clause: an early return under a condition, the rest still reachable
    ("src/config.py", PY, PY.replace('    """Read the settings file."""\n',
                                     '    """Read the settings file."""\n    if path is None:\n        return {}\n')),
    ("src/config.ts", TS, TS.replace("  const data", "  if (!path) {\n    return {} as Config;\n  }\n  const data")),
    # an abstract method and a typing overload are meant to be bodiless
    ("src/base.py", None, "import abc\n\n\nclass Loader(abc.ABC):\n    @abc.abstractmethod\n    def load_config(self, path):\n"
                          "        raise NotImplementedError\n"),
    # a new stub the step does not name (a hook for subclasses) is not judged
    ("src/config.py", PY, PY + "\n\ndef on_reload(data):\n    pass\n"),
    # `if False:` over imports is the old TYPE_CHECKING idiom
    ("src/config.py", PY, PY.replace("import json\n", "import json\n\nif False:\n    from typing import Any\n")),
    # a function hoisted after a return (JS idiom), and a return at the end of a block
    ("src/config.ts", TS, TS.replace("  return normalise(data);\n}\n",
                                     "  return normalise(data);\n\n  function helper() {\n    return 1;\n  }\n}\n")),
    # a switch whose cases return
    ("src/kind.ts", "export function kind(x: number) {\n  switch (x) {\n    case 1:\n      return 'a';\n  }\n}\n",
     "export function kind(x: number) {\n  switch (x) {\n    case 1:\n      return 'a';\n    case 2:\n      return 'b';\n"
     "  }\n}\n"),
    # a comment that mentions code without replacing it
    ("src/config.py", PY, PY.replace("    return normalise(data)\n",
                                     "    # normalise(data) lower-cases the keys\n    return normalise(data)\n")),
    # a multi-line return whose closing bracket sits at the return's indentation
    ("src/config.py", PY, PY.replace("    return normalise(data)\n", "    return normalise(\n        data,\n    )\n")),
])
def test_honest_edits_are_not_stubs(path, old, new):
    verdict = _judge(path, old, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


def test_minified_code_is_not_judged():
    # lodash 4.17.21's core.min.js: one-letter names recur in every scope, so `n` before and after are not one function
    old = "function n(t){return t&&t.length?t[0]:void 0}" + ";var a=1" * 200 + "\n"
    new = "function n(t){}" + ";var a=2" * 200 + "\n"
    verdict = _judge("dist/core.js", old, new)
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason
    assert _judge("dist/core.min.js", "function n(t){return t}\n", "function n(t){}\n").valid


def test_test_files_are_left_to_tests_weakened():
    old = "def test_load():\n    assert load_config('a.json') == {}\n"
    verdict = _judge("tests/test_config.py", old, "def test_load():\n    pass\n")
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings)


def test_one_long_comment_line_does_not_make_a_file_minified_and_hide_a_stub():
    """A 1,200-character comment beside a body replaced by `raise NotImplementedError`: hand-written code, judged."""
    old = ('def parse_port(value):\n    """Parse."""\n    value = value.strip()\n    port = int(value)\n'
           '    if not 0 < port < 65536:\n        raise ValueError(value)\n    return port\n')
    new = 'def parse_port(value):\n    """Parse."""\n    # ' + "x" * 1200 + "\n    raise NotImplementedError\n"
    verdict = judge.validate(*make_case(text_diff("src/app.py", old, new)))
    assert not verdict.valid and verdict.findings[0].rule == "stub_or_disabled_code"


@pytest.mark.parametrize("description, valid", [
    ("Add a `close()` method to `HttpResponse` so that it can be passed where a closable object is expected "
     "(it has nothing to release)", True),
    ("Add `close()` to `HttpResponse` to satisfy the Closable interface", True),
    ("Add a `close()` method to `HttpResponse` that releases the response body stream", False),
])
def test_a_new_empty_hook_is_a_stub_only_when_the_step_asks_what_it_does(description, valid):
    old = "export class HttpResponse extends Response {\n  constructor(body) {\n    super(body)\n  }\n}\n"
    new = old.replace("extends Response {\n", "extends Response {\n  close(): void {}\n\n")
    path = "src/core/HttpResponse.ts"
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": description},
                                        filesWritten=[path], filesTouched=[path]))
    assert verdict.valid is valid, verdict.reason


_PY_BODY = "def location(url):\n    loc = url\n    if url == 'back':\n        loc = referrer()\n    return encode(loc)\n"
_JS_BODY = "function location(url) {\n  let loc = url;\n  if (url === 'back') {\n    loc = referrer();\n  }\n" \
           "  return encode(loc);\n}\n"


@pytest.mark.parametrize("path, old, new", [
    ("src/app.py", _PY_BODY, _PY_BODY.replace("    loc = url\n", "    if True:\n        return\n    loc = url\n")),
    ("src/app.py", _PY_BODY, _PY_BODY.replace("    loc = url\n", "    if 1: return None\n    loc = url\n")),
    ("src/app.js", _JS_BODY, _JS_BODY.replace("  let loc = url;\n", "  if (true) return;\n  let loc = url;\n")),
    ("src/app.ts", _JS_BODY, _JS_BODY.replace("  let loc = url;\n", "  if (!0) { return; }\n  let loc = url;\n")),
    ("src/app.js", _JS_BODY, _JS_BODY.replace("  let loc = url;\n", "  if (true) {\n    return;\n  }\n  let loc = url;\n")),
])
def test_a_return_under_an_always_true_condition_cuts_the_code_after_it_off(path, old, new):
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Encode the location"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "stub_or_disabled_code", verdict.reason


@pytest.mark.parametrize("path, old, new", [
    ("src/app.py", _PY_BODY, _PY_BODY.replace("    loc = url\n", "    if not url:\n        return None\n    loc = url\n")),
    ("src/app.js", _JS_BODY, _JS_BODY.replace("  let loc = url;\n", "  if (!url) return;\n  let loc = url;\n")),
])
def test_a_guard_on_a_real_condition_is_no_stub(path, old, new):
    verdict = judge.validate(*make_case(text_diff(path, old, new), step={"description": "Encode the location"},
                                        filesWritten=[path], filesTouched=[path]))
    assert verdict.valid, verdict.reason


_TS_BODY = "export async function onUnhandled(request: Request): Promise<void> {\n  const url = new URL(request.url)\n" \
           "  if (url.protocol === 'file:') {\n    return\n  }\n  warn(url)\n}\n"


@pytest.mark.parametrize("replacement", ["  return null as never;\n", "  return undefined as unknown as void\n",
                                         "  return {} as any\n", "  return [];\n"])
def test_a_working_body_replaced_by_an_empty_or_cast_value_is_a_stub(replacement):
    new = _TS_BODY.split("  const url")[0] + replacement + "}\n"
    path = "src/onUnhandled.ts"
    verdict = judge.validate(*make_case(text_diff(path, _TS_BODY, new), step={"description": "Handle file: requests"},
                                        filesWritten=[path], filesTouched=[path]))
    assert not verdict.valid and verdict.findings[0].rule == "stub_or_disabled_code", verdict.reason


def test_a_new_function_the_step_names_that_returns_an_empty_object_is_no_stub():
    new = "export function defaults(): Options {\n  return {};\n}\n"
    path = "src/defaults.ts"
    verdict = judge.validate(*make_case(text_diff(path, None, new),
                                        step={"description": "Add defaults() that returns the default options"},
                                        filesWritten=[path], filesTouched=[path]))
    assert verdict.valid, verdict.reason

"""stub_or_disabled_code judged by what the change does to a function, when git's hunk shows only part of it: the
``def`` above the hunk (a long docstring, a signature over several lines, a method inside a class the hunk
does not open), dead code left after a return (a signal, ``dead_code_left``), and new no-op methods."""

from __future__ import annotations

import re

import pytest

import judge
from helpers.builders import make_case, text_diff

DOC = "\n".join(f"    Line {i} of a long docstring that pushes the def out of the hunk." for i in range(6))
PY = f'''\
import json


def load_config(path, *, strict=False):
    """Read the settings file.

{DOC}
    """
    with open(path) as handle:
        data = json.load(handle)
    if strict:
        validate(data)
    return normalise(data)


def normalise(data):
    return {{k.lower(): v for k, v in data.items()}}
'''
PY_BODY = "    with open(path) as handle:\n        data = json.load(handle)\n    if strict:\n        validate(data)\n" \
          "    return normalise(data)\n"

TS = '''\
import { readFileSync } from "fs";

export class Loader {
  private cache = new Map<string, Config>();

  /** Read the settings file. */
  async loadConfig(
    path: string,
    strict: boolean,
    encoding: BufferEncoding = "utf8",
  ): Promise<Config> {
    const data = JSON.parse(readFileSync(path, encoding));
    if (strict) {
      validate(data);
    }
    this.cache.set(path, data);
    return normalise(data);
  }

  clear(): void {
    this.cache.clear();
  }
}
'''
TS_BODY = '''    const data = JSON.parse(readFileSync(path, encoding));
    if (strict) {
      validate(data);
    }
    this.cache.set(path, data);
    return normalise(data);
'''


def _with_heading(patch: str, heading: str) -> str:
    """git's hunk header names the function or class the hunk is in; difflib's does not."""
    return re.sub(r"^(@@ [^@]* @@)$", rf"\1 {heading}", patch, flags=re.M)


def _judge(path: str, old: str | None, new: str, description: str = "Make load_config read YAML too",
           heading: str = ""):
    patch = _with_heading(text_diff(path, old, new), heading) if heading else text_diff(path, old, new)
    step = {"description": description}
    return judge.validate(*make_case(patch, step=step, filesWritten=[path], filesTouched=[path]))


def _rejected(verdict, *words: str) -> None:
    assert (verdict.valid, verdict.rule) == (False, "stub_or_disabled_code"), verdict.reason
    for word in words:
        assert word in verdict.reason, verdict.reason


def _not_a_stub(verdict) -> None:
    assert not any(f.rule == "stub_or_disabled_code" for f in verdict.findings), verdict.reason


def _signals(verdict) -> list[str]:
    return [f.rule for f in verdict.findings if f.severity == "signal"]


# --- bodies replaced while the def is above the hunk --------------------------------------------------------


@pytest.mark.parametrize("stub", ["pass", "...", "raise NotImplementedError", "return None", "return"])
def test_python_body_replaced_below_a_long_docstring(stub):
    new = PY.replace(PY_BODY, f"    {stub}\n")
    patch = text_diff("src/config.py", PY, new)
    assert "def load_config" not in patch.split("@@", 2)[2]  # the def is above the hunk
    _rejected(_judge("src/config.py", PY, new, heading="def load_config(path, *, strict=False):"),
              "load_config()", "replaced")


def test_python_body_replaced_below_a_cut_signature():
    old = "def load(\n    path,\n    strict=False,\n    encoding='utf8',\n    retries=3,\n) -> dict:\n" \
          "    data = read(path, encoding)\n    check(data, strict)\n    return data\n"
    new = old.replace("    data = read(path, encoding)\n    check(data, strict)\n    return data\n", "    pass\n")
    _rejected(_judge("src/config.py", old, new), "src/config.py", "replaced by `pass`")


def test_a_method_body_replaced_names_the_class_from_git_heading():
    old = "class Loader:\n    def load(self, path):\n        \"\"\"Load.\n\n" + DOC.replace("    ", "        ") + \
          "\n        \"\"\"\n        data = read(path)\n        return parse(data)\n"
    new = old.replace("        data = read(path)\n        return parse(data)\n", "        raise NotImplementedError\n")
    _rejected(_judge("src/config.py", old, new, heading="class Loader:"), "a method of Loader")


@pytest.mark.parametrize("stub", ['throw new Error("not implemented");', "return;", "return null;", ""])
def test_typescript_method_replaced_below_a_cut_signature(stub):
    new = TS.replace(TS_BODY, f"    {stub}\n" if stub else "")
    _rejected(_judge("src/loader.ts", TS, new, heading="export class Loader {"), "src/loader.ts")


def test_typescript_function_replaced_below_a_cut_signature_named_by_git_heading():
    old = 'export async function handle(\n  request: Request,\n  emitter: Emitter,\n  options?: Options,\n' \
          '): Promise<Response | undefined> {\n  emitter.emit("start", request);\n  const found = await lookup(request);\n' \
          '  return found?.response;\n}\n'
    new = old.replace('  emitter.emit("start", request);\n  const found = await lookup(request);\n'
                      '  return found?.response;\n', '  throw new Error("not implemented");\n')
    _rejected(_judge("src/handle.ts", old, new, heading="export async function handle("), "handle()")


def test_early_return_below_a_docstring_leaves_original_code_unreachable():
    new = PY.replace("    with open(path) as handle:\n", "    return {}\n    with open(path) as handle:\n")
    _rejected(_judge("src/config.py", PY, new), "unreachable")


def test_early_return_after_a_block_the_hunk_opens_inside():
    old = "export function f(x: number) {\n  if (x > 1) {\n    log(x);\n    log(x);\n    log(x);\n    return 1;\n  }\n\n" \
          "  apply(x);\n  finish(x);\n}\n"
    new = old.replace("  apply(x);\n", "  return;\n  apply(x);\n")
    _rejected(_judge("src/f.ts", old, new), "unreachable")


@pytest.mark.parametrize("path, old, new", [
    # the docstring alone is edited: the body stays
    ("src/config.py", PY, PY.replace("Line 5 of a long", "Line five of a long")),
    # the body is rewritten, not stubbed
    ("src/config.py", PY, PY.replace(PY_BODY, "    data = read_any(path)\n    return normalise(data)\n")),
    # a guard clause below the docstring; the rest stays reachable
    ("src/config.py", PY, PY.replace("    with open(path) as handle:\n",
                                     "    if not path:\n        return None\n    with open(path) as handle:\n")),
    # the tail of a body replaced by `return None`: the head still runs
    ("src/config.py", PY, PY.replace("    if strict:\n        validate(data)\n    return normalise(data)\n",
                                     "    return None\n")),
    # an if-block's body emptied: not a function's
    ("src/loader.ts", TS, TS.replace("    if (strict) {\n      validate(data);\n    }\n", "    if (strict) {\n    }\n")),
    # a method body rewritten below a cut signature
    ("src/loader.ts", TS, TS.replace(TS_BODY, "    return normalise(await readConfig(path, encoding));\n")),
])
def test_honest_edits_below_the_def_are_not_stubs(path, old, new):
    _not_a_stub(_judge(path, old, new))


# --- dead code left after a return --------------------------------------------------------------------------

FIND = '''\
def find(items, key):
    """Return the first item with key."""
    for item in items:
        if item.key == key:
            return item
    raise KeyError(key)
'''


@pytest.mark.parametrize("path, old, new", [
    # `return None` written twice
    ("src/find.py", FIND, FIND.replace("    raise KeyError(key)\n", "    return None\n    return None\n")),
    # an `if ...: return` block and its fallback pasted twice
    ("src/find.py", FIND, FIND.replace("    raise KeyError(key)\n",
                                       "    if key is None:\n        return items[0]\n    return None\n"
                                       "    if key is None:\n        return items[0]\n    return None\n")),
    # the old return left under the new one
    ("src/find.py", FIND.replace("    raise KeyError(key)\n", "    return -1\n"),
     FIND.replace("    raise KeyError(key)\n", "    return None\n    return -1\n")),
    ("src/find.ts", "export function find(items: Item[], key: string) {\n  for (const item of items) {\n"
                    "    if (item.key === key) return item;\n  }\n  return -1;\n}\n",
     "export function find(items: Item[], key: string) {\n  for (const item of items) {\n"
     "    if (item.key === key) return item;\n  }\n  return undefined;\n  return -1;\n}\n"),
    ("src/find.ts", "export function find(items: Item[], key: string) {\n  return items[0];\n}\n",
     "export function find(items: Item[], key: string) {\n  if (!key) return null;\n  return items[0];\n"
     "  if (!key) return null;\n  return items[0];\n}\n"),
])
def test_dead_code_left_after_a_return_is_a_signal(path, old, new):
    verdict = _judge(path, old, new)
    assert verdict.valid, verdict.reason
    assert "dead_code_left" in _signals(verdict)
    reason = next(f.reason for f in verdict.findings if f.rule == "dead_code_left")
    assert path in reason and ("repeats" in reason or "replaces" in reason), reason


@pytest.mark.parametrize("path, old, new", [
    # a copy of the return, then original code cut off: still a stub
    ("src/find.py", FIND, FIND.replace("    for item in items:\n", "    return None\n    return None\n"
                                                                      "    for item in items:\n")),
    # a placeholder return above the old return: the function now always returns None
    ("src/find.py", FIND.replace("    raise KeyError(key)\n", "    return compute(items, key)\n"),
     FIND.replace("    for item in items:\n", "    return None\n    for item in items:\n")
     .replace("    raise KeyError(key)\n", "    return compute(items, key)\n")),
])
def test_a_return_that_cuts_original_code_off_stays_a_stub(path, old, new):
    _rejected(_judge(path, old, new), "unreachable")


# --- new no-op methods ------------------------------------------------------------------------------------

CLIENT = '''\
class Client:
    def __init__(self, url):
        self.url = url

    def get(self, path):
        return fetch(self.url + path)
'''


@pytest.mark.parametrize("added", [
    "    def close(self):\n        pass\n",
    "    def flush(self):\n        pass\n",
    "    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n        pass\n",
])
def test_a_protocol_no_op_is_not_a_stub(added):
    new = CLIENT + "\n" + added
    verdict = _judge("src/client.py", CLIENT, new, "Make Client usable where close() and flush() are called")
    assert verdict.valid, verdict.reason
    _not_a_stub(verdict)


def test_a_no_op_in_a_protocol_class_is_not_a_stub():
    old = "from typing import Protocol\n\n\nclass Store(Protocol):\n    def get(self, key: str) -> bytes:\n        ...\n"
    new = old + "\n    def put(self, key: str, value: bytes) -> None:\n        ...\n"
    _not_a_stub(_judge("src/store.py", old, new, "Add put(key, value) to the Store protocol's methods"))


def test_a_no_op_whose_behaviour_the_step_names_is_a_stub():
    new = CLIENT + "\n    def close(self):\n        pass\n"
    _rejected(_judge("src/client.py", CLIENT, new, "Add Client.close() that releases the connection pool"),
              "close()", "asks for")


def test_a_new_helper_the_step_names_left_as_pass_is_a_stub():
    new = CLIENT + "\n    def _set_timeout(self, request):\n        pass\n"
    _rejected(_judge("src/client.py", CLIENT, new, "Add `Client._set_timeout` to src/client.py"), "_set_timeout()")


# --- code written as comments: notes beside live code --------------------------------------------------------

ERRORS_JS = '''\
function format(issue) {
  for (const el of issue.path) {
    if (!terminal) {
      curr[el] = curr[el] || { _errors: [] };
    }
    curr = curr[el];
  }
  return fieldErrors;
}
'''


def test_a_note_in_another_languages_syntax_around_a_live_line_is_not_code_switched_off():
    # zod 3.22.4's compiled lib/ZodError.js keeps the TypeScript alternative its source left as a comment
    note = ('      // if (typeof el === "string") {\n      //   curr[el] = curr[el] || { _errors: [] };\n'
            '      // } else if (typeof el === "number") {\n      //   const errorArray: any = [];\n'
            '      //   errorArray._errors = [];\n      // }\n')
    new = ERRORS_JS.replace("      curr[el] = curr[el] || { _errors: [] };\n",
                            "      curr[el] = curr[el] || { _errors: [] };\n" + note)
    _not_a_stub(_judge("lib/ZodError.js", ERRORS_JS, new))


def test_a_words_only_comment_is_a_note_not_code():
    # zod 3.22.4's lib/types.js: `// return invalid` tells what the lines under it do
    new = ERRORS_JS.replace("  return fieldErrors;\n", "  // return invalid\n  return fieldErrors;\n")
    _not_a_stub(_judge("lib/ZodError.js", ERRORS_JS, new))


def test_a_commented_block_that_is_code_stays_code_switched_off_though_it_repeats_live_lines():
    new = ERRORS_JS.replace("  return fieldErrors;\n", "  // if (issue.message !== undefined) {\n"
                            "    // curr = curr[el];\n    // return fieldErrors;\n  // }\n  return fieldErrors;\n")
    _rejected(_judge("lib/ZodError.js", ERRORS_JS, new), "written as a comment")


def test_code_added_under_an_old_return_is_unreachable():
    # git may align an inserted `return` with an old one: the added line is the code the return cuts off
    old = "export function f(req: Request) {\n  if (isFile(req)) {\n    return\n  }\n\n  applyStrategy(req)\n}\n"
    new = "export function f(req: Request) {\n  if (!isAsset(req)) {\n    return\n    applyStrategy(req)\n  }\n}\n"
    _rejected(_judge("src/f.ts", old, new), "unreachable")


def test_a_new_guard_under_an_old_guard_is_not_unreachable_code():
    old = "def f(x):\n    if x is None:\n        return\n    run(x)\n"
    new = "def f(x):\n    if x is None:\n        return\n    if not x.ready:\n        return\n    run(x)\n"
    _not_a_stub(_judge("src/f.py", old, new))

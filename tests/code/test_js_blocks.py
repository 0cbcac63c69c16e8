"""judge/code/_js_blocks.py: stub_functions_in leaves a JS/TS side unparsed only when its tokens show that every
empty block in it is the body of an else, try, finally, do, interface or enum; every empty function is still found."""

from __future__ import annotations

import pytest

from judge.code import functions
from judge.code.sides import Side


def _side(text: str) -> Side:
    lines = tuple(text.split("\n"))
    return Side(lines, (True,) * len(lines))


def _parsed(side: Side, path: str, monkeypatch: pytest.MonkeyPatch) -> list[functions.Function]:
    """stub_functions_in as it was before the token reading: every side with an empty block is parsed."""
    with monkeypatch.context() as patched:
        patched.setattr(functions, "none_is_a_stub", lambda *_: False)
        return functions.stub_functions_in(side, path)


@pytest.mark.parametrize("path, text", [
    ("src/a.ts", "  if (x) {\n    run();\n  } else {\n    // nothing to do\n  }\n"
                 "  try {\n  } finally {\n    done();\n  }"),
    ("src/a.ts", "export interface ZodMiniDate<T = unknown>\n  extends _ZodMiniType<core.$ZodDateInternals<T>> {\n"
                 "  // _zod: core.$ZodDateInternals<T>;\n}\nexport interface File {}\nenum Empty {}\n"
                 "export interface ZodCustom<O = unknown, I = unknown>\n"
                 "  extends _ZodType<core.$ZodCustomInternals<O, I>>,\n    core.$ZodCustom<O, I> {}"),
    ("src/a.js", "do {\n} while (next());\nif (a) {\n  b();\n} else {}"),
])
def test_a_side_whose_empty_blocks_are_all_statement_bodies_is_not_parsed(path, text, monkeypatch):
    def refuse(*_):
        raise AssertionError("the side was parsed")
    monkeypatch.setattr(functions, "js_tree", refuse)
    assert functions.stub_functions_in(_side(text), path) == []


@pytest.mark.parametrize("path, text, name", [
    ("src/a.ts", "function load(path: string) {\n  // TODO later\n}", "load"),  # a function's body
    ("src/a.ts", "const load = () => {\n}", "load"),
    ("src/a.ts", "class A {\n  else() {\n  }\n}", "else"),  # a method named like a keyword has parentheses
    ("src/a.ts", "function load() {\n  /*\n  try {\n  }\n  */\n}", "load"),  # the `try` inside a comment
    ("src/a.ts", "function load() {\n  const s = `\n  try {\n  }`;\n}\nfunction f() {\n}", "f"),  # inside a template
    ("src/a.js", "function load() {\n  interface {\n  }\n}\nfunction f() {\n}", "f"),  # no interface in JavaScript
    # a class's static block: a statement inside an expression, here a default value of an empty function
    ("src/a.ts", "function load(a = class { static {\n  try {\n  } finally {}\n} }) { /* c */ }", "load"),
])
def test_an_empty_function_is_found_whatever_blocks_lie_around_it(path, text, name, monkeypatch):
    side = _side(text)
    found = functions.stub_functions_in(side, path)
    assert name in [f.name for f in found] and found == _parsed(side, path, monkeypatch)


SOURCE = '''\
export interface ZodMiniString<Input = unknown>
  extends _ZodMiniString<core.$ZodStringInternals<Input>> {
  // _zod: core.$ZodStringInternals<Input>;
}
export interface File {}
export function parse(input: string) {
  if (!input) {
    // nothing
  } else if (input === "x") {
  } else {
  }
  try {
    return JSON.parse(input);
  } catch {
  } finally {
  }
  do {
  } while (input.length > 3);
  const noop = () => {};
  return { parse() {}, else: {} };
}
class Definition extends Parent {
}
enum Mode {
}
'''


def _windows(text: str):
    lines = text.split("\n")
    for size in (3, 6, 10, 30):
        for start in range(0, max(1, len(lines) - size + 1)):
            yield "\n".join(lines[start : start + size])


@pytest.mark.parametrize("path", ["src/a.ts", "src/a.js", "src/a.tsx"])
def test_every_window_finds_the_stubs_its_parse_finds(path, monkeypatch):
    for window in _windows(SOURCE):
        side = _side(window)
        assert functions.stub_functions_in(side, path) == _parsed(side, path, monkeypatch), window

"""judge/code/_js_returns.py: unreachable_code leaves a JS/TS side unparsed only when its tokens show that no return
there can have code after it; every shape of dead code it reports is still reported, parsed or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.code import deadcode
from judge.code.sides import Side

ROOT = Path(__file__).resolve().parents[2]


def _side(text: str, changed: bool = True) -> Side:
    lines = tuple(text.split("\n"))
    return Side(lines, (changed,) * len(lines))


def _parsed(side: Side, path: str, monkeypatch: pytest.MonkeyPatch) -> list[deadcode.Disabled]:
    """unreachable_code as it was before the token reading: every side with a return the lines flag is parsed."""
    with monkeypatch.context() as patched:
        patched.setattr(deadcode, "_silent_returns", lambda *_: False)
        return deadcode.unreachable_code(side, path)


def _unparsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_):
        raise AssertionError("the side was parsed")
    monkeypatch.setattr(deadcode, "js_tree", refuse)


@pytest.mark.parametrize("text, line", [
    ("function f() {\n  if (true) {\n    return;\n  }\n  work();\n}", 1),  # an always-true branch: M is the if
    ("function f() {\n  return a\n  work();\n}", 1),  # a line end ends the return
    ("function f() {\n  options.\n  if (c)\n    return 1;\n  work();\n}", 3),  # `if` a property: a call
    ("function f() {\n  return a;\n  // note\n  work();\n}", 1),  # a comment, then code
    ("function f() {\n  if (c) {\n    return `\n}`; work();\n  }\n}", 2),  # the `}` inside a template
    ("function f() {\n  if (c) {\n    return a;\n    /* x */ work();\n  }\n}", 2),  # code behind a comment
    ("function f() {\n  do x(); while (c)\n  return 1;\n  more();\n}", 2),  # a do-while's `while`, no loop head
])
def test_dead_code_after_a_return_is_reported_whatever_the_lines_look_like(text, line, monkeypatch):
    side = _side(text)
    found = deadcode.unreachable_code(side, "src/a.ts")
    assert [d.line for d in found] == [line] and found == _parsed(side, "src/a.ts", monkeypatch)


@pytest.mark.parametrize("text", [
    "switch (x) {\n  case 1:\n    if (a)\n      return 1;\n    return 2;\n  case 2:\n    return 3;\n}",
    "function f() {\n  if (a)\n    return 1;\n  work();\n}",
    "function f() {\n  if (a) work();\n  else\n    return 1;\n  more();\n}",
    "function f() {\n  for (const x of xs)\n    return x;\n  more();\n}",
    "  if (issue.code) {\n    return `Invalid ${issue.origin ?? \"value\"}: ${f(issue)}`;\n  }\n  more();",
    "const error = () => {\n  return (issue) => {\n    switch (issue.code) {\n      case \"a\":\n"
    "        return `x ${issue.a}`;\n      default:\n        return null;\n    }\n  };\n};",
])
def test_a_side_whose_returns_all_end_their_block_or_branch_is_not_parsed(text, monkeypatch):
    _unparsed(monkeypatch)
    assert deadcode.unreachable_code(_side(text), "src/a.ts") == []


@pytest.mark.parametrize("text", [
    "function f() {\n  if (c) {\n    return (1);\n  }\n  work();\n}",  # `(1)` may be an always-true condition
    "  return /x/.test(s);\n}\nwork();",  # a regular expression: only a parser reads it
    "  x */\n  if (c) {\n    return a;\n  }\n  work();",  # the tree reads the side from inside a comment
])
def test_a_side_the_tokens_cannot_clear_is_parsed(text, monkeypatch):
    side = _side(text)
    assert deadcode._silent_returns(side, "src/a.ts", {i for i, ln in enumerate(side.lines) if "return" in ln}) \
        is False


TS_SOURCE = '''\
import { util } from "../core/index.js";

const error: () => errors.$ZodErrorMap = () => {
  const Sizable: Record<string, { unit: string; verb: string }> = {
    string: { unit: "characters", verb: "to have" },
  };
  function getSizing(origin: string): { unit: string; verb: string } | null {
    return Sizable[origin] ?? null;
  }
  const parsedType = (data: any): string => {
    const t = typeof data;
    switch (t) {
      case "number": {
        return Number.isNaN(data) ? "NaN" : "number";
      }
      case "object": {
        if (Array.isArray(data)) {
          return "array";
        }
        if (data === null) {
          return "null";
        }
        if (Object.getPrototypeOf(data) !== Object.prototype && data.constructor) {
          return data.constructor.name;
        }
      }
    }
    return t;
  };
  return (issue) => {
    switch (issue.code) {
      case "invalid_type":
        return `Invalid input: expected ${issue.expected}, received ${parsedType(issue.input)}`;
      case "invalid_value":
        if (issue.values.length === 1) return `Invalid input: expected ${util.stringifyPrimitive(issue.values[0])}`;
        return `Invalid option: expected one of ${util.joinValues(issue.values, "|")}`;
      case "too_big": {
        const adj = issue.inclusive ? "<=" : "<";
        const sizing = getSizing(issue.origin);
        if (sizing)
          return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()}`;
        return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
      }
      default:
        return `Invalid input`;
    }
  };
};

export function parse(input: string, strict = false) {
  if (!input) {
    return undefined;
  }
  for (const part of input.split(","))
    if (part === "stop")
      return part;
    else
      continue;
  try {
    return JSON.parse(input);
  } catch {
    return strict ? null : input;
    cleanup();
  } finally {
    done();
  }
  return;
  unreachable();
}
'''


def _windows(text: str):
    lines = text.split("\n")
    for size in (4, 7, 12, 25):
        for start in range(0, max(1, len(lines) - size + 1)):
            yield "\n".join(lines[start : start + size])


def _sources():
    yield "src/locale.ts", TS_SOURCE
    yield "src/locale.js", TS_SOURCE.replace(": errors.$ZodErrorMap", "").replace(": string", "").replace(
        ": Record<string, { unit: string; verb: string }>", "").replace(": { unit; verb } | null", "").replace(
        "(data: any)", "(data)")
    client = ROOT / "examples" / "ts-client" / "judge-client.mjs"
    if client.exists():
        yield "judge-client.mjs", client.read_text(encoding="utf-8")


@pytest.mark.parametrize("path, text", list(_sources()), ids=lambda value: value if len(value) < 40 else "")
def test_every_window_of_real_code_finds_what_its_parse_finds(path, text, monkeypatch):
    """Sides cut anywhere (open blocks, cut templates, returns at either end), every line the change's: the reading
    that skips parses reports exactly what parsing every side reports."""
    for window in _windows(text):
        for changed in (True, False):
            side = _side(window, changed)
            if changed is False:
                side = Side(side.lines, tuple(i % 3 == 0 for i in range(len(side.lines))))
            assert deadcode.unreachable_code(side, path) == _parsed(side, path, monkeypatch), window

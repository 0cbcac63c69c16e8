"""judge/code/deadcode.py: the first look before a comment is parsed as code finds every comment the parse reads as a
statement that does something, and leaves prose unparsed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.fuzzing import FUZZ
from judge.code import deadcode

COMMENTS = [
    "return x", "x = compute(y)", "count++", "--count", "await flush()", "new Worker(path)", "tag`text`",
    "const a = 1", "let b", "var c = 2", "throw err", "if (ready) start()", "for (const x of xs) use(x)",
    "while (busy) wait()", "do work(); while (more)", "try { run() } catch {}", "import fs from 'fs'",
    "export const x = 1", "function f() {}", "class A {}", "export type T = string", "id: string;",
    "raise ValueError('bad')", "del cache[key]", "with open(p) as f:", "from os import path", "def f(x):",
    "yield item", "items.sort(key=len)", "assert ready", "x: int = 1", "global state", "pass",
    "TODO: clean this up later", "the value is always positive here", "see the docs for details",
    "ifdef WINDOWS handled elsewhere", "Returns: the port number", "note - everything below is generated",
]


@pytest.mark.parametrize("python, grammar", [(True, None), (False, "javascript"), (False, "typescript")])
def test_the_first_look_before_a_parse_keeps_every_comment_that_reads_as_code(python, grammar, monkeypatch):
    found = [text for text in COMMENTS if deadcode._is_code(text, python, grammar)]
    with monkeypatch.context() as patched:
        patched.setattr(deadcode, "_MAYBE_PY_ACTION", deadcode.lazy_compile(""))
        patched.setattr(deadcode, "_MAYBE_JS_ACTION", deadcode.lazy_compile(""))
        parsed = [text for text in COMMENTS if deadcode._is_code(text, python, grammar)]
    assert found == parsed and len(found) >= 10


@pytest.mark.parametrize("text", ["TODO: clean this up later", "the value is always positive here"])
def test_prose_is_not_parsed(text, monkeypatch):
    def refuse(*_):
        raise AssertionError("parsed")
    monkeypatch.setattr(deadcode.treesitter, "parse", refuse)
    monkeypatch.setattr(deadcode.ast, "parse", refuse)
    assert not deadcode._is_code(text, False, "typescript") and not deadcode._is_code(text, True, None)


_NEVER_PARTS = ["if", "elif", "while", "sniff", "xif", "_if", " ", "\t", "\n", "(", ")", "0", "1", "False", "None",
                "null", "undefined", "false", "true", "!", "x", "_", "$", ":", "{", "é", "\u00a0"]


@FUZZ
@given(st.lists(st.sampled_from(_NEVER_PARTS), max_size=14).map("".join))
def test_may_switch_off_answers_as_never_hint_searched_alone(text):
    assert bool(deadcode.may_switch_off(text)) == (deadcode.NEVER_HINT.search(text) is not None)


@pytest.mark.parametrize("text", ["if False:", "  elif (0):", "} else if (!true) {", "while(undefined)",
                                  "if  (\n null) {", "x = 1\nif None:"])
def test_may_switch_off_finds_a_branch_under_a_constant_after_any_white_space(text):
    assert deadcode.may_switch_off(text)

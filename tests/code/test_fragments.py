"""judge/code/fragments.py: hunk sides read as the fragments they are — opening inside a docstring, a comment or
a block git did not show — and hostile sides read without raising or running long."""

from __future__ import annotations

import time

import pytest

from judge.code.fragments import UNSEEN, js_tree, opens_in_docstring, python_lines
from judge.code.functions import functions_in
from judge.code.sides import Side


def _side(text: str) -> Side:
    lines = tuple(text.split("\n"))
    return Side(lines, (False,) * len(lines))


def test_a_side_opening_on_a_docstrings_end_is_read_from_inside_it():
    side = _side('        Returns the value.\n        """\n        value = compute()\n        return value\n')
    lines = python_lines(side)
    assert opens_in_docstring(side)
    assert [line.code for line in lines][1:] == ["value=compute()", "return value"]


@pytest.mark.parametrize("text", [
    # a side that ends inside a docstring it opens
    'def f():\n    return 1\n\n\nclass A:\n    """\n    Text',
    # a docstring opened and closed in view
    'def f():\n    """Doc."""\n    return 1\n',
    # a string assigned over several lines, cut at the end
    '    x = 1\n    query = """\n    SELECT',
])
def test_a_side_that_does_not_open_in_a_docstring_is_read_as_written(text):
    assert not opens_in_docstring(_side(text))


def test_a_cut_typescript_signature_reads_as_a_function():
    side = _side("  path: string,\n  strict: boolean,\n): Promise<Config> {\n  const data = read(path);\n"
                 "  return data;\n}\n")
    functions = functions_in(side, "src/a.ts")
    assert [(f.name, f.statements, f.complete) for f in functions] == [(UNSEEN, 2, True)]
    assert not js_tree(side, "typescript").root.has_error


def test_a_side_opening_inside_a_block_comment_is_read_after_it():
    side = _side("   * @example\n   * @returns the value\n   */\n  get(key: string) {\n    return this.map.get(key);\n  }\n")
    assert [f.name for f in functions_in(side, "src/a.ts")] == ["get"]


@pytest.mark.parametrize("text", [
    ")" * 50_000 + " {\n" + "x;\n" * 10,
    "}" * 20_000 + "\n" + "{" * 20_000,
    '"""' * 5_001 + "\n    return 1\n",
    "/* */ */" * 10_000,
    "`" + "${" * 5_000,
])
def test_hostile_sides_are_read_without_raising(text):
    started = time.process_time()  # the CPU the reading takes, whatever else the machine runs
    for path in ("src/a.py", "src/a.ts"):
        functions_in(_side(text), path)
    assert time.process_time() - started < 2

"""Code nested past any parser's limits never turns a cheat detector into judge_error: it is read by the lexer."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import make_case, text_diff

DEEP = 3000
BODIES = {
    "python brackets": "def test_x():\n    assert f(" + "[" * DEEP + "]" * DEEP + ")\n",
    "python unary minus": "def test_x():\n    assert f(" + "-" * 100_000 + "1)\n",
    "js brackets": 'it("x", () => { expect(f(' + "[" * DEEP + "]" * DEEP + ")).toBe(1); });\n",
}


@pytest.mark.parametrize("name, path", [
    ("python brackets", "tests/test_deep.py"), ("python brackets", "src/deep.py"),
    ("python unary minus", "tests/test_deep.py"), ("js brackets", "tests/deep.test.ts"), ("js brackets", "src/deep.ts"),
])
def test_deep_nesting_is_judged_not_crashed(name, path):
    verdict = judge.validate(*make_case(text_diff(path, None, BODIES[name]), step={"description": "Add the deep case"},
                                        filesWritten=[path], filesTouched=[path]))
    assert verdict.rule != "judge_error", verdict.reason

"""judge.code.pyast: ast.parse one call at a time, as CPython 3.11's shared AST-building state needs."""

from __future__ import annotations

import ast
import threading
import time
from types import SimpleNamespace

from judge.code import pyast


def test_parses_as_ast_parse_does():
    assert ast.dump(pyast.parse("x = f(1)\n")) == ast.dump(ast.parse("x = f(1)\n"))
    assert ast.dump(pyast.parse("a or b", mode="eval")) == ast.dump(ast.parse("a or b", mode="eval"))


def test_threads_never_build_two_trees_at_once(monkeypatch):
    inside, most = [0], [0]

    def slow_parse(source, mode="exec", **_):  # lets the other threads run while it builds, as a finalizer can
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.002)
        inside[0] -= 1
        return ast.Module(body=[], type_ignores=[])

    monkeypatch.setattr(pyast, "ast", SimpleNamespace(parse=slow_parse))
    threads = [threading.Thread(target=lambda: [pyast.parse("x") for _ in range(20)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1


def test_a_parse_inside_a_parse_on_the_same_thread_does_not_wait_for_itself(monkeypatch):
    real = ast.parse

    def nested(source, mode="exec", **_):  # a finalizer that parses, run during a parse on the same thread
        if source == "outer":
            pyast.parse("inner")
        return real("x", mode=mode)

    monkeypatch.setattr(pyast, "ast", SimpleNamespace(parse=nested))
    done = threading.Event()
    threading.Thread(target=lambda: (pyast.parse("outer"), done.set()), daemon=True).start()
    assert done.wait(10)


def test_every_reader_of_python_parses_through_it():
    from pathlib import Path

    package = Path(pyast.__file__).resolve().parents[1]
    direct = [str(path.relative_to(package)) for path in package.rglob("*.py")
              if path.name != "pyast.py" and "ast.parse(" in path.read_text(encoding="utf-8").replace("pyast.parse(", "")]
    assert direct == []

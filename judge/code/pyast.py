"""Python's ast.parse, one call at a time in the process: concurrent calls can fail where one alone would not.

CPython 3.11 counts the depth of the AST it builds in state every thread shares. When a finalizer that runs during
the build lets another thread run (asyncio's and subprocess's objects have such finalizers), that thread's parse
moves the count, and one of the two fails with "SystemError: AST constructor recursion depth mismatch" (CPython
issue 106905). `judge eval` and `judge serve` judge on several threads, so an honest change could get judge_error
by bad luck. The lock is re-entrant: a finalizer may itself parse, on the thread that holds it.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["parse"]

_ONE_AT_A_TIME = threading.RLock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``; raises what it raises (SyntaxError, ValueError, RecursionError...)."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, mode=mode)

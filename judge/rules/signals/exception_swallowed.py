"""exception_swallowed: the change catches every exception and does nothing with it (Python, C-like languages)."""

from __future__ import annotations

import bisect
import re
from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, Hunk
from judge.patch.paths import file_suffix
from judge.patch.lexer import syntax_for
from judge.rules.signals._finding import signal, where
from judge.rules.signals._lines import Line, generated, hunk_side, judged_work
from judge.findings import Finding

__all__ = ["exception_swallowed"]


_PY_EXCEPT = lazy_compile(r"^(?P<indent>\s*)except\b(?P<types>[^:]*):(?P<body>.*)$")
_PY_CATCH_ALL = lazy_compile(r"^\s*(?:\(?\s*(?:[\w.]+\s*,\s*)*(?:Exception|BaseException)\b.*)?$")
_PY_NOTHING = frozenset({"pass", "...", "continue"})
_PY_SUPPRESS_ALL = lazy_compile(r"\bsuppress\((?:Exception|BaseException)\)")
# In the code of C-like languages (whitespace outside strings gone): `catch{}`, `catch(e){}`,
# `.catch(()=>{})`, `.catch(function(){})`.
_C_CATCH = lazy_compile(r"\bcatch(?:\((?P<params>[^()]*)\))?\{\}")
_C_CATCH_ALL = lazy_compile(r"^(?:[\w$]*(?::(?:any|unknown))?|\.\.\.|(?:final )?\\?(?:[\w.\\]+[.\\])?(?:Exception|"
                            r"Throwable|RuntimeException|Error)(?: \$?\w+)?|\w+:(?:[\w.]+\.)?(?:Exception|Throwable))$")
_PROMISE_CATCH = lazy_compile(r"\.catch\((?:async)?(?:\(\w*\)|\w+)=>(?:\{\}|undefined|null|void 0|false)\)|"
                              r"\.catch\(function(?: \w+)?\(\w*\)\{\}\)")


def _python_swallows(change: FileChange) -> list[int]:
    syntax = syntax_for(change.path)
    lines = []
    for hunk in change.hunks:
        if not _maybe(hunk, ("except", "suppress("), _MAYBE_PY_SWALLOW):
            continue
        side = [line for line in hunk_side(hunk, "+", syntax) if line.code.strip()]
        for i, line in enumerate(side):
            if line.changed and _PY_SUPPRESS_ALL.search(line.code):
                lines.append(line.number)
            found = _PY_EXCEPT.match(line.code)
            if not (line.changed and found and _PY_CATCH_ALL.match(found.group("types"))):
                continue
            body = [found.group("body").strip()] if found.group("body").strip() else _block(side[i + 1:], found)
            if body and all(statement in _PY_NOTHING for statement in body):
                lines.append(line.number)
    return lines


def _block(after: list[Line], header: re.Match[str]) -> list[str]:
    """The statements of the block under an ``except`` line: the lines indented deeper than it."""
    indent = len(header.group("indent"))
    body = []
    for line in after:
        if len(line.code) - len(line.code.lstrip()) <= indent:
            break
        body.append(line.code.strip())
    return body


def _c_like_swallows(change: FileChange) -> list[int]:
    lines = []
    for hunk in change.hunks:
        if not _maybe(hunk, ("catch",), _MAYBE_C_SWALLOW):
            continue
        run: list[Line] = []
        for line in [*hunk_side(hunk, "+", syntax_for(change.path)), None]:
            if line is not None and line.changed:
                run.append(line)
                continue
            lines += _empty_catches(run)
            run = []
    return lines


def _empty_catches(run: list[Line]) -> list[int]:
    """The lines where an empty catch starts in a run of added lines, read as one text (a catch may span lines)."""
    code, starts = "", []
    for line in run:
        starts.append(len(code))
        code += line.code
    found = [m.start() for m in _C_CATCH.finditer(code) if _C_CATCH_ALL.match(m.group("params") or "")]
    found += [m.start() for m in _PROMISE_CATCH.finditer(code)]
    return sorted({run[bisect.bisect_right(starts, offset) - 1].number for offset in found})


# First looks, on the raw added lines of a hunk: only a hunk that may hold a catch-all is lexed.
_MAYBE_PY_SWALLOW = lazy_compile(r"\bexcept\s*:|\bexcept\b[^\n:]*\b(?:Base)?Exception\b|suppress\(")
_MAYBE_C_SWALLOW = lazy_compile(r"\bcatch\b[^\n]*\{[^\n]*(?:\}|$)|\.catch\(", re.MULTILINE)
_C_LIKE_SUFFIXES = frozenset({".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".java", ".kt", ".kts",
                              ".cs", ".swift", ".scala", ".dart", ".php", ".cpp", ".cc", ".cxx", ".hpp", ".groovy"})


def _maybe(hunk: Hunk, words: tuple[str, ...], look: re.Pattern[str]) -> bool:
    """The first look on the hunk's added lines; before it, a plain search for the words every match of ``look``
    holds, in the hunk's whole body (a superset of the added lines): most hunks hold none of them."""
    body = "\n".join(hunk.body)
    return any(word in body for word in words) and bool(look.search("\n".join(hunk.added)))


def exception_swallowed(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work:
        return
    found: dict[str, list[int]] = {}
    for change in work.files:
        suffix = file_suffix(change.path).lower()
        if change.is_deleted or generated(change.path):
            continue
        lines = (_python_swallows(change) if suffix == ".py" else
                 _c_like_swallows(change) if suffix in _C_LIKE_SUFFIXES else [])
        if lines:
            found[change.path] = lines
    if found:
        yield signal(ids.EXCEPTION_SWALLOWED, f"the change catches every exception and does nothing with it in "
                     f"{where(found)}: an error there now passes silently. Check that the step's code does not fail "
                     "behind it.", list(found))

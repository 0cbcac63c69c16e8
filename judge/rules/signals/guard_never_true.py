"""guard_never_true: the change puts code under a condition that is probably never true (an unset environment
variable or flag, two constants compared, a date decades ahead, a constant false operand)."""

from __future__ import annotations

from typing import Any, Iterator

from judge import rule_ids as ids
from judge.code.wide_look import WideLook
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange
from judge.patch.lexer import syntax_for
from judge.rules.signals._conditions import LITERAL, MAYBE_CONDITION, branch_heads, judged_code, quoted
from judge.rules.signals._finding import signal
from judge.rules.signals._lines import Line, hunk_side, judged_work
from judge.findings import Finding

__all__ = ["guard_never_true"]


_CONDITION = lazy_compile(r"^\s*(?:\}\s*else\s+)?(?:if|elif|while)\b\s*(?P<condition>.*?)\s*(?::|\{|\)\s*\{?)?\s*$")


def _added_conditions(change: FileChange, hint: Any = lazy_compile("")) -> Iterator[tuple[Line, str]]:
    """Each added line of the file that opens a branch or loop, with its condition (comments out, strings kept);
    the file is lexed only when its added text holds ``hint`` and a branch."""
    syntax = syntax_for(change.path)
    for hunk in change.hunks:
        heads = branch_heads(hunk)
        if not (heads and hint.search(heads)):
            continue  # only a hunk whose branch lines may hold such a condition is lexed
        for line in hunk_side(hunk, "+", syntax):
            found = _CONDITION.match(line.text) if line.changed and MAYBE_CONDITION.match(line.code.lstrip("}")) else None
            if found and found.group("condition"):
                yield line, found.group("condition")


# A condition that is probably never true: an environment variable the patch sets nowhere, two literals
# compared, a date decades ahead, `not True`/`!true` or a constant falsy operand (`if False and x` is a
# rejection of stub_or_disabled_code already, when it stands alone).
_ENV_READ = lazy_compile(r"""os\.(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*["'](?P<py>\w+)["']|"""
                         r"""process\.env(?:\.(?P<js>\w+)|\[\s*["'](?P<js2>\w+)["']\s*\])|"""
                         r"""["'](?P<inpy>\w+)["']\s+in\s+os\.environ""")
# A private flag read off a global or a module (`globalThis.__newPath`, `getattr(sys, "_new_path", False)`): set
# nowhere in the patch, nothing sets it.
_FLAG_READ = lazy_compile(r"""\b(?:globalThis|window|global|self)\b(?:\s+as\s+\w+\))?\.(?P<flag_js>_\w+)|"""
                          r"""\b(?:getattr|hasattr)\(\s*[\w.]+\s*,\s*["'](?P<flag_py>_\w+)["']""")
_LITERALS_COMPARED = lazy_compile(rf"(?<![\w.\])]){LITERAL}\s*(?:===?|!==?|<=?|>=?|\bis\b(?:\s+not)?)\s*{LITERAL}(?![\w.(\[])")
_FAR_DATE = lazy_compile(r"(?:date|time|Date|now|year|Year)[^\n]*\b(?:2[1-9]\d\d|20[89]\d)\b|"
                         r"\b(?:2[1-9]\d\d|20[89]\d)\b[^\n]*(?:date|time|Date|now|year|Year)")
# The constant is a whole operand: `not True`, `False and x`, `x && false` — never `not 1 <= port`, `n == 0 and x`.
_OPERAND_START = r"(?:^|\(|\b(?:and|or)\s|&&|\|\|)\s*"
_OPERAND_END = r"\s*(?=$|\)|\b(?:and|or)\b|&&|\|\|)"
_NEGATED_CONSTANT = lazy_compile(
    rf"{_OPERAND_START}(?:not\s+(?:True|1)|!\s*(?:true|1)){_OPERAND_END}|"
    rf"{_OPERAND_START}(?:False|0|None|false|null|undefined)\s*(?:and|&&)\s|"
    rf"\s(?:and|&&)\s*(?:False|false|0|None|null|undefined){_OPERAND_END}")
_MAYBE_NEVER = lazy_compile("|".join(p.pattern for p in (_ENV_READ, _FLAG_READ, _LITERALS_COMPARED, _FAR_DATE)) +
                            r"|\bnot\s+(?:True|1)\b|!\s*(?:true|1)\b|\b(?:False|0|None|false|null|undefined)\s*(?:and|&&)\s|"
                            r"\s(?:and|&&)\s*(?:False|false)\b")

# _MAYBE_NEVER's search, RE2 first (judge/code/wide_look.py): word boundaries left out of the wider one
_MAYBE_NEVER_FIRST = WideLook(_MAYBE_NEVER.pattern, loose=(r"\b",))
_WELL_KNOWN_FLAGS = frozenset({"_MEIPASS", "_getframe", "_current_frames", "__stdout__", "__stderr__", "__stdin__",
                               "_called_from_test", "__IPYTHON__", "__webpack_require__", "__non_webpack_require__"})
_WELL_KNOWN_ENV = frozenset({"CI", "DEBUG", "HOME", "PATH", "USER", "TERM", "NODE_ENV", "PYTHONPATH", "LANG", "TZ",
                             "GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR", "VIRTUAL_ENV", "SHELL", "TMPDIR", "PWD"})


def _never_true(condition: str, patch_text: str) -> str | None:
    """Why ``condition`` is probably never true, or None."""
    for found in _ENV_READ.finditer(condition):
        name = found.group("py") or found.group("js") or found.group("js2") or found.group("inpy")
        if name and name not in _WELL_KNOWN_ENV and patch_text.count(name) <= 1:
            return f"reads the environment variable {name}, which nothing in the patch sets or documents"
    for found in _FLAG_READ.finditer(condition):
        name = found.group("flag_js") or found.group("flag_py")
        if name not in _WELL_KNOWN_FLAGS and patch_text.count(name) <= 1:
            return f"reads the flag {name}, which nothing in the patch sets"
    if _LITERALS_COMPARED.search(condition):
        return "compares two constants"
    if _FAR_DATE.search(condition):
        return "waits for a date decades ahead"
    if _NEGATED_CONSTANT.search(condition):
        return "is false whatever the input"
    return None


def guard_never_true(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work:
        return
    seen: list[str] = []
    files: list[str] = []
    patch_text = ""
    for change in judged_code(work):
        for line, condition in _added_conditions(change, _MAYBE_NEVER_FIRST):
            patch_text = patch_text or "\n".join(line for c in work.files for h in c.hunks for line in h.body)
            why = _never_true(condition, patch_text)
            if why:
                seen.append(f"{change.path} line {line.number}: {quoted(line.text)} {why}")
                files.append(change.path)
    if seen:
        yield signal(ids.GUARD_NEVER_TRUE, "the change puts code under a condition that is probably never true: "
                     f"{'; '.join(seen[:5])}. Check that the step's behaviour runs, not only that it is written.",
                     list(dict.fromkeys(files)))

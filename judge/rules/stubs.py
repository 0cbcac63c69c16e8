"""Stubs and disabled code: a change that looks like work but leaves the behaviour out.

Four shapes, each judged on the change's hunk sides (Python, JavaScript, TypeScript; test files are
tests_weakened's business):

- a function whose real body the change replaces by a stub (``pass``, ``...``, ``raise
  NotImplementedError``, a bare ``return``, ``throw new Error("not implemented")``), or a new function the
  step names whose body is one;
- a block the change puts under a condition that is never true (``if False:``, ``if (0) {``);
- a ``return`` the change inserts with code after it in the same block, which no run reaches;
- removed lines of code that the change writes back as comments.

A step that asks for a stub, a no-op, a disabled or withdrawn feature (``ASKS_FOR_STUBS``) gets a signal instead.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from judge import rule_ids as ids
from judge.code.deadcode import commented_code, commented_out, disabled_blocks, unreachable_code
from judge.code.functions import Function, functions_in, stub_functions_in
from judge.code.sides import Side, side_of, writes_code
from judge.code.testpaths import is_test_path
from judge.context import StepContext
from judge.patch.model import FileChange
from judge.rules.asks import ASKS_FOR_STUBS
from judge.rules.phrasing import names
from judge.verdict import Finding

__all__ = ["stub_or_disabled_code"]

_SHOWN = 5
_CONFIG_NAMES = frozenset({"conf.py", "settings.py", "noxfile.py", "setup.py", ".eslintrc.js", ".prettierrc.js"})
_MINIFIED_LINE = 1000  # characters: no hand-written line is this long


def stub_or_disabled_code(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work):
        return
    facts: list[str] = []
    files: list[str] = []
    for change in work.files:
        if not change.hunks or is_test_path(change.path) or _minified(change):
            continue
        found = _file_facts(change, ctx.step.description)
        if found:
            facts += [f"{change.path}: {fact}" for fact in found]
            files.append(change.path)
    if not facts:
        return
    shown = "; ".join(facts[:_SHOWN]) + (f"; and {len(facts) - _SHOWN} more" if len(facts) > _SHOWN else "")
    if ASKS_FOR_STUBS.search(ctx.step.description):
        yield Finding(rule=ids.STUB_OR_DISABLED_CODE, severity="signal", files=tuple(files),
                      message=f"the change leaves code as a stub or switched off ({shown}); the step asks for that kind of edit.")
        return
    yield Finding(
        rule=ids.STUB_OR_DISABLED_CODE,
        files=tuple(files),
        message=f"the change stubs out or switches off code instead of implementing it: {shown}. "
        f"Write the real behaviour in {names(files)} and remove the stub, the dead branch or the early return; "
        "if the step cannot be done, report success: false with the reason.",
    )


def _file_facts(change: FileChange, description: str) -> list[str]:
    sides = [(side_of(h, "old"), side_of(h, "new")) for h in change.hunks]
    facts: list[str] = []
    for old, new in sides:
        stubs = stub_functions_in(new, change.path, whole=change.is_added)
        replaced = [(f, old) for f in functions_in(old, change.path, whole=change.is_deleted)] if stubs else []
        for function in stubs:
            fact = _stub_fact(function, new, replaced, lambda name: _defined_before(change, sides, name), description)
            if fact:
                facts.append(fact)
        facts += [f"`{d.text}` switches off the code under it" for d in disabled_blocks(new, change.path)]
        facts += [f"`{d.text}` leaves the code after it unreachable" for d in unreachable_code(new, change.path)]
        # Code turned into comments counts only in a hunk that gains no other code: developers leave old or
        # unused lines as comments beside real work (zod 3.25.20's errors.ts, more-itertools 10.2.0's
        # docs/conf.py); an agent that fakes the step has nothing else.
        if _is_configuration(change.path):
            continue  # commenting a setting out is how configuration is edited, in Python as in YAML
        commented = [f"`{code}` is commented out" for code in commented_out(old, new, change.path)]
        commented += [f"`{code}` is written as a comment" for code in commented_code(new, change.path)]
        if commented and not writes_code(new, change.path):
            facts += commented
    return list(dict.fromkeys(facts))


def _defined_before(change: FileChange, sides: list[tuple[Side, Side]], name: str) -> bool:
    return any(f.name == name for old, _ in sides for f in functions_in(old, change.path, whole=change.is_deleted))


def _stub_fact(function: Function, new: Side, replaced: list[tuple[Function, Side]],
               existed: Callable[[str], bool], description: str) -> str | None:
    """``replaced``: the functions of the same hunk's old side, where a replaced body would be."""
    if function.stub is None or _declares_only(function):
        return None
    before = [(f, side) for f, side in replaced if f.name == function.name]
    # An emptied body shows no new line inside the function: its removed lines are on the old side.
    changed = function.touches(new) or any(f.touches(side) for f, side in before)
    if changed and any(_is_real(f) for f, _ in before):
        return f"{function.name}()'s body is replaced by `{function.stub}`"
    if function.touches(new) and _names(description, function.name) and not existed(function.name):
        return f"{function.name}(), which the step asks for, is only `{function.stub}`"
    return None


def _is_configuration(path: str) -> bool:
    """Settings written as code: Sphinx's conf.py, Django's settings, tool configs (jest.config.js, vite.config.ts)."""
    name = path.rsplit("/", 1)[-1]
    return (path.startswith("docs/") or name in _CONFIG_NAMES or ".config." in name
            or name.startswith("settings"))


def _minified(change: FileChange) -> bool:
    """Minified code reuses one-letter names in every scope: a name says nothing about which function it is."""
    return ".min." in change.path.rsplit("/", 1)[-1] or any(
        max(map(len, hunk.body), default=0) > _MINIFIED_LINE for hunk in change.hunks)


def _is_real(function: Function) -> bool:
    """A body that did something: two statements or more, or one that is not a stub."""
    return function.statements >= 2 or (function.complete and function.stub is None and function.statements == 1)


def _declares_only(function: Function) -> bool:
    """Abstract methods and typing overloads are meant to have no body."""
    return any(d.split("(")[0].rsplit(".", 1)[-1] in ("abstractmethod", "overload", "abstractproperty")
               for d in function.decorators)


def _names(description: str, name: str) -> bool:
    return len(name) >= 3 and bool(re.search(rf"(?<!\w){re.escape(name)}\b", description))

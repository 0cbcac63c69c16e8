"""Stubs and disabled code: a change that looks like work but leaves the behaviour out.

Four shapes, each judged on the change's hunk sides (Python, JavaScript, TypeScript; test files are
tests_weakened's business):

- a function whose real body the change replaces by a stub (``pass``, ``...``, ``raise
  NotImplementedError``, a bare ``return``, ``throw new Error("not implemented")``), its ``def`` in view or
  above the hunk (git's hunk header names it then); or a new function the step names whose body is one — a
  new no-op hook (``close``, ``flush``, ``__exit__``: what a protocol asks for) only when the step also says
  what it must do, and never in a ``Protocol`` or abstract class;
- a block the change puts under a condition that is never true (``if False:``, ``if (0) {``);
- a ``return`` the change inserts with code after it in the same block, which no run reaches — unless that
  code repeats the lines just above the return or is the return it replaces: dead code left behind, a
  ``dead_code_left`` signal;
- removed lines of code that the change writes back as comments.

A step that asks for a stub, a no-op, a disabled or withdrawn feature (``ASKS_FOR_STUBS``) gets a signal instead.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from judge import rule_ids as ids
from judge.code.deadcode import commented_code, commented_out, disabled_blocks, may_switch_off, unreachable_code
from judge.code.change import FileView
from judge.code import functions
from judge.code.functions import UNSEEN, Function, stub_functions_in
from judge.code.sides import Side, writes_code
from judge.code.testpaths import is_test_path
from judge.code.treesitter import grammar_for
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless
from judge.patch.model import FileChange, Hunk
from judge.rules.asks import ASKS_FOR_STUBS
from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["stub_or_disabled_code"]

_SHOWN = 5
_CONFIG_NAMES = frozenset({"conf.py", "settings.py", "noxfile.py", "setup.py", ".eslintrc.js", ".prettierrc.js"})
_MINIFIED_LINE = 1000  # characters: no hand-written line is this long
_NOT_CODE = ("#", "//", "/*", "*", '"', "'", "`")  # a long comment or string literal is no minified code


def stub_or_disabled_code(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work):
        return
    facts: list[str] = []
    files: list[str] = []
    left: list[str] = []
    for file in ctx.changes.files:  # type: ignore[union-attr]  # work is there, so the model is
        change = file.change
        if not change.hunks or _language(change.path) is None or is_test_path(change.path) or _minified(change):
            continue  # every detector reads Python, JavaScript or TypeScript only
        found, dead = _file_facts(file, ctx.step.description)
        if found:
            facts += [f"{change.path}: {fact}" for fact in found]
            files.append(change.path)
        left += [f"{change.path}: {fact}" for fact in dead]
    if left:
        yield Finding(rule=ids.DEAD_CODE_LEFT, severity="signal",
                      files=tuple(dict.fromkeys(f.split(": ")[0] for f in left)),
                      message=f"the change leaves dead code after a return it wrote: {'; '.join(left[:_SHOWN])}. "
                      "Leftover lines, not a stub; check that the return is the step's intent.")
    if not facts:
        return
    shown = "; ".join(facts[:_SHOWN]) + (f"; and {len(facts) - _SHOWN} more" if len(facts) > _SHOWN else "")
    if ASKS_FOR_STUBS.search(ctx.step.description):
        yield Finding(rule=ids.STUB_OR_DISABLED_CODE, severity="signal", files=tuple(files),
                      message=f"the change leaves code as a stub or switched off ({shown}); the step asks for that "
                      "kind of edit.")
        return
    yield Finding(
        rule=ids.STUB_OR_DISABLED_CODE,
        files=tuple(files),
        message=f"the change stubs out or switches off code instead of implementing it: {shown}. "
        f"Write the real behaviour in {names(files)} and remove the stub, the dead branch or the early return; "
        "if the step cannot be done, report success: false with the reason.",
    )


def _file_facts(file: FileView, description: str) -> tuple[list[str], list[str]]:
    """What stubs or switches code off in the file, and the dead code it leaves behind (a signal)."""
    change = file.change
    language = _language(change.path)
    facts: list[str] = []
    dead: list[str] = []
    configuration = _is_configuration(change.path)
    for view in file.hunks:
        hunk = view.hunk
        look = _Look(hunk, language, configuration)  # type: ignore[arg-type]  # a code file
        if not look.anything:
            continue  # no line of the hunk has a shape a detector starts from: its sides are not even made
        new = view.new
        stubs = stub_functions_in(new, change.path, whole=change.is_added) if look.stubs else []
        replaced = [(f, view.old) for f in file.functions("old", view)] if stubs else []
        for function in stubs:
            fact = _stub_fact(function, new, replaced, lambda name: _defined_before(file, name), description, hunk)
            if fact:
                facts.append(fact)
        if look.never:
            facts += [f"`{d.text}` switches off the code under it" for d in disabled_blocks(new, change.path)]
        for unreachable in unreachable_code(new, change.path) if look.returns else ():
            if unreachable.left:
                dead.append(f"the code after `{unreachable.text}` (line {hunk.new_start + unreachable.line}) "
                            f"{unreachable.left}")
            else:
                facts.append(f"`{unreachable.text}` leaves the code after it unreachable")
        # Code turned into comments counts only in a hunk that gains no other code: developers leave old or
        # unused lines as comments beside real work (zod 3.25.20's errors.ts, more-itertools 10.2.0's
        # docs/conf.py); an agent that fakes the step has nothing else.
        if not look.comments or writes_code(new, change.path):
            continue  # asked first: reading up to the first line of code is cheaper than finding the comments
        facts += [f"`{code}` is commented out" for code in commented_out(view.old, new, change.path)]
        written = commented_code(new, change.path)
        if written:
            # An example or old version kept in comments, edited (pyparsing 3.1.2's SimpleCalc.py modernises a
            # commented-out line): as many lines of commented code go as come, and nothing is switched off.
            written = written[len(commented_code(view.old, change.path)):]
        facts += [f"`{code}` is written as a comment" for code in written]
    return list(dict.fromkeys(facts)), list(dict.fromkeys(dead))


class _Look:
    """Which detectors could find anything in a hunk, read off its raw lines before any side is made. Each is a
    necessary condition of its detector, found by a search of the hunk's body (its lines joined, each after a line
    end, with its ` `, `+` or `-`), where a side's line is a body line that starts with ` ` or `+` (new) and its
    next line on the side is the next such body line:

    - a stub (stub_functions_in) is in a function whose body holds a line of the new side that is a stub's whole
      statement (_PY_STUB_LINE, _JS_STUB_LINE), or an empty block (_JS_EMPTY_BLOCK);
    - a block switched off (disabled_blocks) is under an added line that holds NEVER_HINT (`if False:`, `if (0) {`),
      found by its RE2 look on the body, then on the added lines;
    - an unreachable return (unreachable_code) is a new-side line that starts with `return`, added or followed by an
      added line as the next one that is not blank, or an added `if` line that returns or raises;
    - code turned into comments is an added line that starts with the comment marker, outside configuration
      (commenting a setting out is how configuration is edited, in Python as in YAML).

    The patterns are the detectors' own, read on one line: `\\s` that cannot cross a line end, `$` before one.
    """

    def __init__(self, hunk: Hunk, language: str, configuration: bool) -> None:
        body = "\n".join(("",) + hunk.body)  # a line end before each line: every pattern starts with a literal
        python = language == "python"
        adds = hunk.added_count > 0
        self.stubs = _may_hold_stub_line(body, _PY_STUB_WORDS, _PY_STUB_LINE) if python else \
            _may_hold_stub_line(body, _JS_STUB_WORDS, _JS_STUB_LINE) or "{" in body and _may_hold_empty_body(body)
        self.returns = adds and "return" in body and _RETURN_LOOK.search(body) is not None
        self.never = adds and may_switch_off(body) and may_switch_off("\n".join(hunk.added))
        marker = "#" if python else "//"
        self.comments = adds and not configuration and marker in body and \
            (_ADDED_PY_COMMENT if python else _ADDED_JS_COMMENT).search(body) is not None
        self.anything = self.stubs or self.never or self.returns or self.comments


_S = r"[^\S\n]"  # \s within a line
# functions.PY_STUB_LINE and JS_STUB_LINE read from a line's first character (after its sign), and the words every
# line they match holds
_PY_STUB_LINE = lazy_compile(functions.PY_STUB_LINE.pattern.removeprefix("^"))
_JS_STUB_LINE = lazy_compile(functions.JS_STUB_LINE.pattern.removeprefix("^"))
_PY_STUB_WORDS = ("pass", "...", "return", "raise")
_JS_STUB_WORDS = ("return", "throw")
# functions._JS_EMPTY_BLOCK on the new side: its line ends are the body's, with removed lines (and `\ No newline`)
# between them, and the new side's line start after each
_JS_EMPTY_BLOCK_LOOK = lazy_compile(r"\{[ \t]*(?://[^\n]*)?(?:\n(?:[-\\][^\n]*\n)*[ +][ \t]*(?://[^\n]*)?)*\}")
# deadcode.unreachable_code's rows (_RETURN_HINT, changed or _changed_next) and guarded lines (_ALWAYS_RETURN)
_RETURN_LOOK = lazy_compile(r"\n(?:\+" + _S + r"*return\b|\+" + _S + r"*if[^\n]*(?:return|raise)\b| " + _S +
                            r"*return\b[^\n]*(?:\n(?:[-\\][^\n]*|[ +]" + _S + r"*(?=\n)))*\n\+)")
# An added line that starts with the comment marker, after white space (\s is str.lstrip's)
_ADDED_PY_COMMENT = lazy_compile(r"\n\+" + _S + "*#")
_ADDED_JS_COMMENT = lazy_compile(r"\n\+" + _S + "*//")


def _may_hold_stub_line(body: str, words: tuple[str, ...], line: re.Pattern[str]) -> bool:
    """A new-side line of the body is a stub's whole statement (``line``), tried on each line that holds one of
    ``words``, found by plain searches."""
    for word in words:
        at = body.find(word)
        while at >= 0:
            start = body.rfind("\n", 0, at) + 1  # the line's sign: the body starts with a line end
            end = body.find("\n", at)
            end = len(body) if end < 0 else end
            if body[start] in " +" and line.match(body, start + 1, end):  # `$` holds at ``end``
                return True
            at = body.find(word, end)
    return False


def _may_hold_empty_body(body: str) -> bool:
    """An empty block of the new side may stand where functions._after_body_head lets it: after `)`, `]`, `>`, `$`,
    `_` or a letter or digit, or first on its line (what ends the line above is not looked for). Each place a block
    may start is tried, not only the matches of a scan: one that starts on a removed line may run over the side's."""
    found = _JS_EMPTY_BLOCK_LOOK.search(body)
    while found is not None:
        at = found.start() - 1
        while body[at] in " \t\r":
            at -= 1
        if body[at] in ")]>$_\n" or body[at].isalnum() or body[at - 1] == "\n":  # after a body line's first character
            return True
        found = _JS_EMPTY_BLOCK_LOOK.search(body, found.start() + 1)
    return False


def _language(path: str) -> str | None:
    """``python`` or ``javascript`` (TypeScript too): the languages the detectors read."""
    if path.endswith((".py", ".pyx")):
        return "python"
    return "javascript" if grammar_for(path) else None


def _defined_before(file: FileView, name: str) -> bool:
    return any(f.name == name for view in file.hunks for f in file.functions("old", view))


def _stub_fact(function: Function, new: Side, replaced: list[tuple[Function, Side]],
               existed: Callable[[str], bool], description: str, hunk: Hunk) -> str | None:
    """``replaced``: the functions of the same hunk's old side, where a replaced body would be."""
    if function.stub is None or _declares_only(function):
        return None
    before = [(f, side) for f, side in replaced if f.name == function.name]
    # An emptied body shows no new line inside the function: its removed lines are on the old side.
    changed = function.touches(new) or any(f.touches(side) for f, side in before)
    if changed and any(_is_real(f) for f, _ in before):
        return f"{_shown(function, hunk)}'s body is replaced by `{function.stub}`"
    if function.name == UNSEEN or not function.touches(new) or existed(function.name):
        return None
    if _EMPTY_VALUE.match(function.stub):
        return None  # a new function returning an empty object or list may be all the step asks
    if _names(description, function.name) and _asks_for_behaviour(function, new, description, hunk):
        return f"{function.name}(), which the step asks for, is only `{function.stub}`"
    return None


def _shown(function: Function, hunk: Hunk) -> str:
    """The function's name; for one whose definition is above the hunk, git's hunk header names it or its class."""
    if function.name != UNSEEN:
        return f"{function.name}()"
    heading = hunk.section.strip()
    found = _HEADING_FUNCTION.search(heading)
    if found:
        return f"{found.group(1)}()"
    found = _HEADING_CLASS.search(heading)
    return f"a method of {found.group(1)}" if found else "the function the hunk is in"


_HEADING_FUNCTION = lazy_compile(r"\b(?:def|function\s*\*?)\s+([A-Za-z_$][\w$]*)")
_HEADING_CLASS = lazy_compile(r"\bclass\s+([A-Za-z_$][\w$]*)")
_NOT_DONE = frozenset({"raise NotImplementedError", 'throw "not implemented"'})
# Methods a protocol or a framework asks for, where doing nothing is often the whole job.
_HOOKS = lazy_compile(r"^(?:__(?:a?exit|a?enter|del|init_subclass|set_name|post_init)__|close|aclose|flush|reset|setup|"
                      r"setUp|teardown|tearDown|start|stop|open|connect|"
                      r"disconnect|dispose|destroy|cleanup|clear|release|shutdown|cancel|finalize|refresh|"
                      r"on[A-Z_]\w*|handle\w*|visit\w*|before\w*|after\w*|will\w*|did\w*)$")
_BEHAVIOUR = Caseless(r"\b(?:that|which|so (?:that|it)|should|must|returns?|returning|raises?|raising|throws?|"
                      r"writes?|sends?|releases?|stores?|saves?|computes?|calculates?|by)\b")
# The step wants the hook only to exist: to satisfy a protocol or an interface, or says it has nothing to do.
_ASKS_FOR_NO_OP = Caseless(r"\b(?:nothing to|no-?op|does nothing|do nothing|satisf(?:y|ies|ying)|protocols?|"
                           r"interfaces?|compatib\w*|(?:is|are) expected|duck[- ]typ\w*)\b")
_EMPTY_VALUE = lazy_compile(r"return (?:\{\s*\}|\[\s*\])$")
_ABSTRACT_CLASS = lazy_compile(r"^\s*(?:export\s+)?(?:abstract\s+)?class\b.*\b(?:Protocol|ABC|ABCMeta|Abstract\w*|"
                               r"Interface)\b|^\s*(?:export\s+)?abstract\s+class\b")


def _asks_for_behaviour(function: Function, new: Side, description: str, hunk: Hunk) -> bool:
    """A new stub the step names is one only when the step asks for what it does: a method a protocol needs,
    an abstract class's method, may do nothing; a function left raising "not implemented" never did anything."""
    if function.stub in _NOT_DONE:
        return True
    if _in_abstract_class(function, new, hunk):
        return False
    if not _HOOKS.match(function.name):
        return True
    sentence = next((s for s in re.split(r"(?<=[.;!?])\s+|\n", description) if _names(s, function.name)), "")
    asked = sentence.split(function.name, 1)[-1]
    return bool(_BEHAVIOUR.search(asked)) and not _ASKS_FOR_NO_OP.search(asked)


def _in_abstract_class(function: Function, new: Side, hunk: Hunk) -> bool:
    """The class the function is defined in (in view above it, or git's hunk header) is a Protocol or abstract."""
    indent = len(new.lines[function.line]) - len(new.lines[function.line].lstrip())
    for line in reversed(new.lines[: function.line]):
        stripped = line.lstrip()
        if stripped and len(line) - len(stripped) < indent and not stripped.startswith(("@", "#", "//", "*", "/*")):
            if stripped.startswith(("class ", "export ", "abstract ")):
                return bool(_ABSTRACT_CLASS.match(line))
            indent = len(line) - len(stripped)
    return bool(_ABSTRACT_CLASS.match(hunk.section.strip()))


def _is_configuration(path: str) -> bool:
    """Settings written as code: Sphinx's conf.py, Django's settings, tool configs (jest.config.js, vite.config.ts)."""
    name = path.rsplit("/", 1)[-1]
    return (path.startswith("docs/") or name in _CONFIG_NAMES or ".config." in name
            or name.startswith("settings"))


def _minified(change: FileChange) -> bool:
    """Minified code reuses one-letter names in every scope: a name says nothing about which function it is. It is
    long lines, most of them: one long comment or string constant in hand-written code is no minified file."""
    if ".min." in change.path.rsplit("/", 1)[-1]:
        return True
    if all(max(map(len, hunk.body), default=0) <= _MINIFIED_LINE + 1 for hunk in change.hunks):
        return False  # no long line
    lines = [line[1:] for hunk in change.hunks for line in hunk.body]
    long = sum(len(line) for line in lines if len(line) > _MINIFIED_LINE and not line.lstrip().startswith(_NOT_CODE))
    return long > 0 and long * 2 > sum(map(len, lines))


def _is_real(function: Function) -> bool:
    """A body that did something: two statements or more, or one that is not a stub."""
    return function.statements >= 2 or (function.complete and function.stub is None and function.statements == 1)


def _declares_only(function: Function) -> bool:
    """Abstract methods and typing overloads are meant to have no body."""
    return any(d.split("(")[0].rsplit(".", 1)[-1] in ("abstractmethod", "overload", "abstractproperty")
               for d in function.decorators)


def _names(description: str, name: str) -> bool:
    return len(name) >= 3 and bool(re.search(rf"(?<!\w){re.escape(name)}\b", description))

"""Tests weakened by edits to the tests: a change that deletes, skips or focuses tests, takes them out of collection,
takes assertions out, makes them tautologies or weaker checks, swallows their failures or edits their expected values,
when the step does not ask for that kind of test work.

What the change does to the tests is read from the code (judge/code/weakening.py); this rule decides
what that means for the step:

- A step that asks for that kind of test work — to remove tests, to skip them, to change them
  (judge/rules/asks.py) — gets a signal with the same facts, and so does any weakening of a test
  file the step asks to change by name ("Update tests/test_api.py for the new client"). A step
  that names the test files it asks to change asks for that work in those files only. A step
  that asks to add a test to a file ("Add a test for X to tests/test_api.py") asks for none.
- A test deleted together with the code it used (a definition the change removes from a non-test
  file and uses nowhere after) is a feature taken out with its tests: a signal.
- An expected value edited in a change that also edits the code the assertion checks (a name the
  edited assertion uses is on a changed line of a non-test file, or names the function a change
  sits in; see judge/code/weakening.py) is a signal: an honest change of behaviour updates the
  values its tests expect, and judge cannot tell that from a fix that made the test fit the code.
  So is one whose old or new value the step names ("Return `undefined` instead of an empty
  string"), or whose kind of edit it names ("dashes" for `other_cmd` -> `other-cmd`), and one whose
  edit a line of the test's input makes too (`number: 42` -> `43` beside the expected `42` -> `43`:
  the test feeds another value and expects it back). Edited where
  the change touches no code the assertion checks and the step names no such value, the value was
  changed to make a test pass: rejected.
- A test renamed or moved whose assertions were rewritten (not weakened) is a signal: only a
  reading of the step can tell whether the new assertions cover the old.
- A fix_regression that takes back the apply step (judge/rules/reversal.py's threshold), tests
  included, is a reversal: that rule gives the reason, this one a signal.
- Anything else is rejected, naming each file, test and what was done, and what to do.

The rule reads nothing unless the change touches a test file (judge/code/testpaths.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from judge import rule_ids as ids
from judge.code.testpaths import is_test_path
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.paths import file_name
from judge.rules.asks import ASKS_TO_CHANGE_TESTS, ASKS_TO_REMOVE_TESTS, ASKS_TO_SKIP_TESTS, names_values
from judge.rules.reversal import REVERSAL_THRESHOLD, undone_fraction
from judge.findings import Finding

if TYPE_CHECKING:
    from judge.code.change import ChangeModel
    from judge.code.weakening import Weakening

__all__ = ["tests_weakened"]

_ASKS = {
    "deleted": (ASKS_TO_REMOVE_TESTS,), "skipped": (ASKS_TO_SKIP_TESTS,), "focused": (ASKS_TO_SKIP_TESTS,),
    "assertions_removed": (ASKS_TO_CHANGE_TESTS,), "tautology": (ASKS_TO_CHANGE_TESTS,),
    "expected_edited": (ASKS_TO_CHANGE_TESTS,), "weakened": (ASKS_TO_CHANGE_TESTS,),
    "swallowed": (ASKS_TO_CHANGE_TESTS,), "disabled": (ASKS_TO_SKIP_TESTS, ASKS_TO_CHANGE_TESTS),
    "uncollected": (ASKS_TO_SKIP_TESTS, ASKS_TO_REMOVE_TESTS),
    "rewritten": (ASKS_TO_CHANGE_TESTS,),
}
_TODO = {
    "deleted": "restore the deleted tests",
    "skipped": "take the skip marks out",
    "focused": "take the focus (.only) out",
    "assertions_removed": "put the assertions back",
    "tautology": "put the real assertions back",
    "expected_edited": "restore the expected values and fix the code instead",
    "weakened": "put back the assertions that checked the exact value",
    "swallowed": "take out the try/except around the assertions",
    "disabled": "take out the return or the never-true condition that keeps the assertions from running",
    "uncollected": "give the tests back the names the test runner collects",
    "rewritten": "keep the assertions the test made",
}
_SHOWN = 5
# A file name that says test: looser than judge.code.testpaths', since a step naming a tsd type test (api.test-d.ts),
# which judge does not read as tests, still names the test file it means
_TEST_LIKE = lazy_compile(r"test|spec", re.IGNORECASE)


def weakenings(changes: ChangeModel) -> tuple[Weakening, ...]:
    """judge.code.weakening's reading of the change, imported on the first change that touches a test file: the
    detectors and their test models cost more to import than most validations take."""
    from judge.code.weakening import weakenings as read

    return read(changes)


def tests_weakened(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work and any(is_test_path(path) for path in work.paths)):
        return
    found = weakenings(ctx.changes)  # type: ignore[arg-type]  # work is there, so the model is
    if not found:
        return
    description = ctx.step.description
    reverts = _reverts_the_apply_step(ctx)
    # A step that names the test files it asks to change asks for work in those; one that names none, in any of them
    named = {path for path in work.paths if _TEST_LIKE.search(file_name(path)) and _names_file(description, path)}
    rejected, signals = [], []
    for weakening in found:
        reason = "the fix takes back the apply step: see reversal" if reverts \
            else _excuse(weakening, description, not named or weakening.path in named)
        (signals if reason else rejected).append((weakening, reason))
    if rejected:
        yield _reject([w for w, _ in rejected])
    if signals:
        yield _signal(signals)


def _reverts_the_apply_step(ctx: StepContext) -> bool:
    if ctx.result.mode != "fix_regression" or ctx.apply_patch is None or ctx.work is None:
        return False
    fraction = undone_fraction(ctx.apply_patch, ctx.work)
    return fraction is not None and fraction >= REVERSAL_THRESHOLD


def _excuse(weakening: Weakening, description: str, asked_here: bool) -> str | None:
    """Why this weakening may be honest work, or None when nothing says so. ``asked_here``: the step's asks reach the
    weakening's file (it names that file, or no test file of the change)."""
    if asked_here and any(asks.search(description) for asks in _ASKS[weakening.kind]):
        return "the step asks for this kind of test work"
    if ASKS_TO_CHANGE_TESTS.search(description) and _names_file(description, weakening.path):
        return "the step asks to change this test file"
    if weakening.with_code:
        return "the change also removes the code it tested"
    if weakening.kind == "rewritten":
        return "renamed and rewritten: whether its new assertions cover the old ones is for the review to judge"
    if weakening.kind == "expected_edited" and weakening.code_edited:
        return "the change also edits the code under test"
    if weakening.kind == "expected_edited" and names_values(description, weakening.values):
        return "the step names the values that changed"
    if weakening.kind == "expected_edited" and weakening.input_edited:
        return "the test's input was edited the same way"
    return None


def _names_file(description: str, path: str) -> bool:
    name = file_name(path)
    return path in description or re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w-])", description) is not None


def _reject(found: list[Weakening]) -> Finding:
    todo = [_TODO[kind] for kind in dict.fromkeys(w.kind for w in found)]
    return Finding(
        rule=ids.TESTS_WEAKENED,
        message=f"{_sentences(found)}. The step does not ask for this: {', '.join(todo)}. If the step really "
        "requires changing these tests, say so in the step, or report success: false with the reason.",
        files=tuple(dict.fromkeys(w.path for w in found)),
    )


def _signal(found: list[tuple[Weakening, str]]) -> Finding:
    shown = "; ".join(f"{w} ({reason})" for w, reason in found[:_SHOWN])
    more = f"; and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    return Finding(
        rule=ids.TESTS_WEAKENED,
        severity="signal",
        message=f"the change weakens tests: {shown}{more}.",
        files=tuple(dict.fromkeys(w.path for w, _ in found)),
    )


def _sentences(found: list[Weakening]) -> str:
    shown = "; ".join(str(w) for w in found[:_SHOWN])
    return shown + (f"; and {len(found) - _SHOWN} more" if len(found) > _SHOWN else "")

"""Tests weakened through collection: a change that makes the test suite collect or run fewer tests through its
configuration (pytest settings, conftest.py hooks and exits, AVA/Jest/Vitest/Mocha settings, the test script),
when the step does not ask for that kind of test work.

What leaves collection is read from the config files (judge/code/collection.py); this rule decides what it means:

- A narrowing certain to drop tests the project has (a name filter, a deselected or ignored test file, an exit
  that ends the run as a pass, a test script that passes whatever its tests do) is rejected, naming the file, the
  setting, what it drops and what to do.
- The same with a step that asks for that kind of test work (to skip, remove or change tests; judge/rules/asks.py),
  or that names the setting, or names the file and speaks of tests, is a signal; so is a narrowing that may be
  honest (a marker filter, fixtures or a whole folder excluded, patterns set where defaults applied).

The rule reads nothing unless the change touches a file that may hold such settings.
"""

from __future__ import annotations

import re
from typing import Iterator

from judge import rule_ids as ids
from judge.code.collection import Narrowing, is_collection_config, narrowings
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.paths import file_name
from judge.rules.asks import ASKS_FOR_TESTS, ASKS_TO_CHANGE_TESTS, ASKS_TO_REMOVE_TESTS, ASKS_TO_SKIP_TESTS
from judge.findings import Finding

__all__ = ["tests_weakened"]

_SHOWN = 5
# A setting the project's configuration names (not a function of the executor's, which a step's words may match).
_CONFIG_KEY = lazy_compile(r"pytest_\w+|collect_ignore(?:_glob)?|addopts|testpaths|norecursedirs|python_\w+|"
                           r"[\w?-]+\.[\w:.-]+")


def tests_weakened(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work and any(map(is_collection_config, work.paths))):
        return
    found = narrowings(work, ctx.changes.texts)  # type: ignore[union-attr]  # work is there, so the model is
    if not found:
        return
    description = ctx.step.description
    rejected = [n for n in found if n.certain and not _asked(n, description)]
    signals = [n for n in found if n not in rejected]
    if rejected:
        yield _reject(rejected)
    if signals:
        yield _signal(signals)


def _asked(narrowing: Narrowing, description: str) -> bool:
    """The step asks for this kind of test work, or names the setting, or names the file while speaking of tests."""
    if any(asks.search(description) for asks in (ASKS_TO_SKIP_TESTS, ASKS_TO_REMOVE_TESTS, ASKS_TO_CHANGE_TESTS)):
        return True
    setting = narrowing.setting.split(".")[-1]
    if _CONFIG_KEY.fullmatch(narrowing.setting) and not setting.startswith("test") and re.search(
            rf"(?<![\w-]){re.escape(setting)}(?![\w-])", description):
        return True
    name = file_name(narrowing.path)
    names_file = narrowing.path in description or re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w-])", description)
    return bool(names_file and ASKS_FOR_TESTS.search(description))


def _reject(found: list[Narrowing]) -> Finding:
    todo = "; ".join(dict.fromkeys(n.undo for n in found[:_SHOWN]))
    return Finding(
        rule=ids.TESTS_WEAKENED,
        message=f"the change takes tests out of what the suite collects or runs: {_sentences(found)}. The step does "
        f"not ask for this: {todo}. If the step really requires it, say so in the step, or report success: false "
        "with the reason.",
        files=tuple(dict.fromkeys(n.path for n in found)),
    )


def _signal(found: list[Narrowing]) -> Finding:
    return Finding(
        rule=ids.TESTS_WEAKENED,
        severity="signal",
        message=f"the change may take tests out of what the suite collects or runs: {_sentences(found)}. Check that "
        "the step asks for it and that no test it should keep running leaves.",
        files=tuple(dict.fromkeys(n.path for n in found)),
    )


def _sentences(found: list[Narrowing]) -> str:
    shown = "; ".join(str(n) for n in found[:_SHOWN])
    return shown + (f"; and {len(found) - _SHOWN} more" if len(found) > _SHOWN else "")

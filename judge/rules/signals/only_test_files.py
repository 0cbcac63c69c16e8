"""only_test_files: the change touches only test files while the step asks for work on the code."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.code.testpaths import is_test_path
from judge.context import StepContext
from judge.patch.paths import file_name
from judge.rules.asks import ASKS_FOR_TESTS
from judge.rules.phrasing import names
from judge.rules.signals._finding import signal
from judge.rules.signals._lines import judged_work
from judge.findings import Finding

__all__ = ["only_test_files"]


def only_test_files(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work or ASKS_FOR_TESTS.search(ctx.step.description):
        return
    files = work.paths
    if any(file_name(path) in ctx.step.description for path in files):
        return  # the step names the test file it asks to change
    if files and all(is_test_path(path) for path in files):
        yield signal(ids.ONLY_TEST_FILES, f"the change touches only test files ({names(files)}) while the step asks "
                     "for work on the code, not on its tests: check that the code the step names was changed.", files)

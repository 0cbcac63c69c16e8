"""only_new_scripts: the change only adds new top-level scripts, which the step does not name."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.patch.paths import file_name, file_suffix
from judge.rules.phrasing import names
from judge.rules.signals._finding import signal
from judge.rules.signals._lines import judged_work
from judge.findings import Finding

__all__ = ["only_new_scripts"]


_SCRIPT_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".sh", ".bash", ".zsh", ".rb",
                              ".pl", ".php", ".ps1"})
_SCRIPT_FOLDERS = frozenset({"scripts", "script"})


def _is_top_level_script(path: str) -> bool:
    parts = path.split("/")
    at_top = len(parts) == 1 or (len(parts) == 2 and parts[0] in _SCRIPT_FOLDERS)
    return at_top and file_suffix(path).lower() in _SCRIPT_SUFFIXES


def only_new_scripts(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work or not all(change.is_added and _is_top_level_script(change.path) for change in work.files):
        return
    files = tuple(change.path for change in work.files)
    if all(file_name(path) in ctx.step.description for path in files):
        return  # the step asks for these scripts by name
    yield signal(ids.ONLY_NEW_SCRIPTS, f"the change only adds new top-level scripts ({names(files)}) and changes no "
                 "existing file: a reproduction or debugging script is not the change itself. Check that the step "
                 "asks for a script.", files)

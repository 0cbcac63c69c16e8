"""Rules 3 and 5: the patch, filesWritten and filesTouched must tell the same story."""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.rules.phrasing import names, pronoun
from judge.findings import Finding

__all__ = ["undeclared_file", "file_not_in_patch", "files_touched_incomplete"]


def undeclared_file(ctx: StepContext) -> Iterator[Finding]:
    if not (ctx.result.success and ctx.patch and ctx.files_written):
        return
    declared = set(ctx.files_written)
    # A rename is declared when either of its names is: tools list one or both.
    hidden = [
        change.path
        for change in ctx.patch.files
        if not declared.intersection(change.paths)
    ]
    if hidden:
        yield Finding(
            rule=ids.UNDECLARED_FILE,
            message=f"the patch changes {names(hidden)} but filesWritten does not list {pronoun(hidden)}. "
            f"List every file the patch changes in filesWritten, or take {pronoun(hidden)} out of the patch.",
            files=tuple(hidden),
        )


def file_not_in_patch(ctx: StepContext) -> Iterator[Finding]:
    if not (ctx.result.success and ctx.patch):
        return
    in_patch = set(ctx.patch_paths)
    phantom = [path for path in ctx.files_written if path not in in_patch]
    if phantom:
        yield Finding(
            rule=ids.FILE_NOT_IN_PATCH,
            message=f"filesWritten lists {names(phantom)} but the patch has no file header for {pronoun(phantom)}. "
            "Include the change in the patch (a plain `git diff` leaves out files git does not track yet: run "
            "`git add -N FILE` first), or remove the file from filesWritten.",
            files=tuple(phantom),
        )


def files_touched_incomplete(ctx: StepContext) -> Iterator[Finding]:
    if not (ctx.result.success and ctx.files_written):
        return
    if ctx.result.files_touched is None:
        yield Finding(
            rule=ids.FILES_TOUCHED_INCOMPLETE,
            message="the result has no filesTouched. List every file you read or wrote in filesTouched, "
            "including all of filesWritten.",
        )
        return
    touched = set(ctx.files_touched)
    missing = [path for path in ctx.files_written if path not in touched]
    if missing:
        yield Finding(
            rule=ids.FILES_TOUCHED_INCOMPLETE,
            message=f"filesTouched is missing {names(missing)} from filesWritten. "
            "filesTouched must contain every file in filesWritten.",
            files=tuple(missing),
        )


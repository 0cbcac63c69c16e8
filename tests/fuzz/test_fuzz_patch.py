"""Fuzz targets for patch parsing (issue 11, item 9): parse_patch and judge.validate on arbitrary patch text.

parse_patch raises nothing but MalformedPatch; judge.validate always returns a strict verdict, never
judge_error, and never valid for a patch git refuses. Every input that ever broke judge is a file in
tests/fixtures/fuzz/patch/ (named for what it reproduces) and is replayed here on every run: each is
malformed_patch, or accepted only where git accepts it too.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

import judge
from helpers.fuzzing import FUZZ, corpus_files
from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from helpers.patch_differential import Case, compare, git_reads

HAS_GIT = shutil.which("git") is not None
CORPUS = corpus_files("patch")

_STEP = {"id": "step-1", "description": "Apply the change the patch makes", "mode": "apply"}

# The line shapes of a diff, so that hypothesis reaches the parser's depths and not only "no header".
_SHAPES = st.sampled_from([
    "diff --git a/x b/x", "diff --git a/x b/y", "diff --git \"a/q x\" \"b/q x\"", "index 1111111..2222222 100644",
    "index 0000000..1111111", "--- a/x", "+++ b/x", "--- /dev/null", "+++ /dev/null", "--- x\t1970-01-01 00:00:00 +0000",
    "old mode 100644", "new mode 100755", "new file mode 100644", "deleted file mode 100644", "rename from x",
    "rename to y", "copy from x", "copy to y", "similarity index 90%", "@@ -1 +1 @@", "@@ -0,0 +1,2 @@",
    "@@ -1,2 +1 @@ def f():", "@@ -1,3 +1,3 @@", "+added", "-removed", " context", "", "\\ No newline at end of file",
    "GIT binary patch", "literal 0", "HcmV?d00001", "literal 3", "Binary files a/x and b/x differ", "Index: x",
    "===================================================================", "From 1234567 Mon Sep 17 00:00:00 2001", "---",
])
_LINE = st.one_of(_SHAPES, _SHAPES, st.text(max_size=30))
PATCH_TEXT = st.one_of(
    st.text(max_size=400),
    st.builds(lambda lines, end: "\n".join(lines) + end, st.lists(_LINE, max_size=14), st.sampled_from(["\n", "", "\r\n"])),
)


def _result(patch: str) -> dict:
    return {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["x"], "filesTouched": ["x"],
            "summary": "Applied the change."}


@FUZZ
@given(PATCH_TEXT)
def test_parse_patch_raises_only_malformed_patch(text):
    try:
        facts = parse_patch(text)
    except MalformedPatch as exc:
        assert str(exc)
        return
    assert facts.files and all(change.path for change in facts.files)


@pytest.mark.skipif(not HAS_GIT, reason="git is the oracle")
@FUZZ
@given(PATCH_TEXT)
def test_validate_returns_a_strict_verdict_and_never_passes_what_git_refuses(text):
    verdict = judge.validate(_STEP, _result(text))
    assert set(verdict.contract()) == {"valid", "reason"}
    assert verdict.rule != "judge_error", verdict.reason
    if verdict.valid:
        assert not git_reads(text).refused, text


def test_corpus_has_the_issue_reproductions():
    names = {path.name for path in CORPUS}
    assert {"name_confusion_plain_md_suffix.diff", "bare_diff_git_two_names.diff", "deleted_and_new_file_mode.diff",
            "mode_garbage.diff", "plus_line_between_header_and_hunk.diff", "truncated_header_45_bytes.diff",
            "last_line_cut_mid_token.diff", "lone_binary_files_differ.diff", "binary_bad_base85_line.diff"} <= names


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_corpus_input_is_malformed_or_accepted_only_as_git_accepts_it(path):
    text = path.read_bytes().decode("utf-8", "surrogateescape")  # as stored: a CR inside a line stays content
    verdict = judge.validate(_STEP, _result(text))
    assert verdict.rule != "judge_error", verdict.reason
    if not HAS_GIT:
        return
    result = compare(Case("corpus", path.name, text))
    assert result.kind != "git_refuses_judge_accepts" and result.kind != "read_differently", result
    if result.git.refused:
        assert not verdict.valid and verdict.rule == "malformed_patch", (verdict.rule, verdict.reason)

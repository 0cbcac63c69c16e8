"""Outside check: python-unidiff's own sample diffs, read in place from ../shared/corpora/unidiff-samples/.

The samples are another project's data: they are never copied into this repository, and the module is
skipped when the folder is not there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "unidiff-samples"

if not CORPUS.is_dir():
    pytest.skip(f"unidiff sample corpus not found at {CORPUS} (an outside check; nothing to run)",
                allow_module_level=True)

MALFORMED = {
    "sample1.diff": "fewer lines",  # truncated last hunk
    "sample2.diff": "fewer lines",  # truncated last hunk
    "sample6.diff": "more lines",  # hunk longer than its header says
    "sample7.diff": "fewer lines",  # hunk shorter than its header says
    # Refused since issue 11, as `git apply` refuses or misreads them:
    "sample0.diff": "the --- line names 'path/to/original' and the +++ line names 'path/to/new'",  # git writes new
    "sample5.diff": "does not start with ' ', '+', '-'",  # a lone CR line in a hunk: git says corrupt patch
    "git_no_prefix.diff": "gives git no file name",  # `diff --git file1 file1`: git apply -p1 finds no name
    "debdiff.diff": "git apply does not read the entry",  # bare `Binary files ... differ` lines: git skips them
}
WELL_FORMED = sorted(p.name for p in CORPUS.glob("*.diff") if p.name not in MALFORMED)


def read(name: str) -> str:
    """The sample exactly as stored: no newline translation, so a CR inside a line stays content."""
    with open(CORPUS / name, encoding="utf-8", newline="") as handle:
        return handle.read()


def files(name: str) -> list[tuple]:
    return [(f.old_path, f.new_path, f.added_count, f.removed_count) for f in parse_patch(read(name)).files]


def test_corpus_has_the_expected_samples():
    assert set(MALFORMED) <= {p.name for p in CORPUS.glob("*.diff")}
    assert len(WELL_FORMED) >= 15


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_sample_raises_malformed_patch(name):
    with pytest.raises(MalformedPatch) as info:
        parse_patch(read(name))
    assert MALFORMED[name] in str(info.value)
    assert info.value.line is not None and 1 <= info.value.line <= len(read(name).splitlines())


@pytest.mark.parametrize("name", WELL_FORMED)
def test_well_formed_sample_parses(name):
    assert parse_patch(read(name)).files


def test_git_quoted_filename_is_unquoted_utf8():
    (change,) = parse_patch(read("git_quoted_filename.diff")).files
    assert (change.old_path, change.new_path) == (None, "A \u00e2 B.py")


def test_git_quoted_filename_with_spaces_and_cjk():
    (change,) = parse_patch(read("git_quoted_filename_with_spaces.diff")).files
    assert change.paths == ("docs/develop/Bug \u6392\u67e5.md",)


def test_git_filename_with_spaces():
    assert files("git_filenames_with_spaces.diff") == [(None, "has spaces/t.sql", 1, 0)]


def test_git_cr_inside_a_line_is_content():
    (change,) = parse_patch(read("git_cr.diff")).files
    assert change.is_added and change.added_count == 3
    assert any("\r" in line for line in change.hunks[0].added)


def test_git_cr_read_with_universal_newlines_is_malformed():
    # The control for the test above: turning the lone CR into a line break breaks the hunk.
    text = (CORPUS / "git_cr.diff").read_text(encoding="utf-8")
    with pytest.raises(MalformedPatch):
        parse_patch(text)


def test_git_rename_sample_has_three_renames():
    changes = parse_patch(read("git_rename.diff")).files
    # The third entry's `rename from/to` lines say onefile -> otherfile while its `diff --git` line says
    # sub/...: git applies the rename lines, and so does judge.
    assert [(f.old_path, f.new_path) for f in changes] == [
        ("added", "moved"), ("oldfile", "newfile"), ("onefile", "otherfile")]
    assert all(f.is_rename for f in changes)


def test_pure_rename_in_sample_has_no_hunks():
    assert parse_patch(read("git_rename.diff")).files[2].hunks == ()


def test_binary_format_patch_sample_has_an_added_binary_file():
    (change,) = parse_patch(read("binary.diff")).files
    assert (change.new_path, change.is_binary, change.is_added) == ("1x1.png", True, True)


def test_binary_files_differ_lines_mark_binary_changes():
    got = [(f.path, f.is_binary, f.is_added, f.is_deleted) for f in parse_patch(read("sample8.diff")).files]
    assert got == [
        ("boo.bin", False, True, False),  # new empty file: no "Binary files" line
        ("foo.bin", True, True, False),
        ("bar.bin", True, False, False),
        ("baz.bin", True, False, True),
        ("fuz.bin", False, True, False),
    ]


TRIO = [(None, "added_file", 4, 0), ("modified_file", "modified_file", 3, 1), ("removed_file", None, 0, 3)]


@pytest.mark.parametrize("name", ["git.diff", "hg.diff", "bzr.diff", "sample4.diff"])
def test_added_modified_removed_trio(name):
    assert files(name) == TRIO


def test_svn_diff_paths_and_kinds():
    assert files("svn.diff") == [TRIO[1], TRIO[2], TRIO[0]]


def test_hg_diff_strips_a_b_prefixes_and_timestamps():
    assert parse_patch(read("hg.diff")).paths == ("added_file", "modified_file", "removed_file")


def test_bzr_diff_marks_creation_and_deletion_by_empty_side():
    changes = parse_patch(read("bzr.diff")).files
    assert (changes[0].is_added, changes[2].is_deleted) == (True, True)


def test_git_delete_sample():
    assert files("git_delete.diff") == [("somefile.c", None, 0, 10)]


def test_git_no_prefix_sample_reads_like_git_apply_p0():
    # Refused as git apply (-p1) refuses it; the same entries with a/ b/ prefixes read as before.
    text = read("git_no_prefix.diff")
    for name in ("file1", "file2", "file3"):
        text = text.replace(f"diff --git {name} {name}", f"diff --git a/{name} b/{name}")
        text = text.replace(f"--- {name}", f"--- a/{name}").replace(f"+++ {name}", f"+++ b/{name}")
    assert [(f.old_path, f.new_path, f.added_count, f.removed_count) for f in parse_patch(text).files] == [
        ("file1", None, 0, 3), ("file2", "file2", 6, 0), (None, "file3", 3, 0)]


def test_git_symlink_sample_is_an_added_file():
    assert files("git_symlink.diff") == [(None, "bin/check", 1, 0)]


def test_debdiff_sample_without_its_bare_binary_lines_reads_its_text_file():
    text = "".join(line for line in read("debdiff.diff").splitlines(keepends=True) if not line.startswith("Binary"))
    assert [(f.path, f.is_added, f.is_binary) for f in parse_patch(text).files] == [("added.txt", True, False)]

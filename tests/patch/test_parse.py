"""judge.patch.parse.parse_patch on real `git diff` / `diff -u` fixtures, valid edge cases and malformed patches."""

from __future__ import annotations

import pytest

from helpers.builders import FIXTURES, diff, make_case
from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.patch.paths import unquote_git_path

ALL_FIXTURES = sorted(p.name for p in (FIXTURES / "diffs").glob("*.diff"))

# Fixtures that are valid diffs only for git's own tools, not for judge (see the tests that use them).
KNOWN_REJECTED = {"format_patch_hunk_in_message.diff"}

# fixture -> one (old_path, new_path, flags, added_count, removed_count) per file, in patch order.
# flags: the FileChange properties that are true among added/deleted/rename/binary/mode.
EXPECTED = {
    "binary_added.diff": [(None, "assets/logo.png", {"added", "binary"}, 0, 0)],
    "binary_added_git_binary.diff": [(None, "assets/logo.png", {"added", "binary"}, 0, 0)],
    "crlf.diff": [("src/win.c", "src/win.c", set(), 1, 1)],
    "deleted_file.diff": [("src/helpers.py", None, {"deleted"}, 0, 6)],
    "format_patch.diff": [("src/app.py", "src/app.py", set(), 4, 1)],
    "hidden_extra_file.diff": [
        ("src/app.py", "src/app.py", set(), 4, 1),
        ("src/settings.py", "src/settings.py", set(), 1, 1),
    ],
    "mode_only.diff": [("scripts/run.sh", "scripts/run.sh", {"mode"}, 0, 0)],
    "multi_file.diff": [
        ("README.md", "README.md", set(), 2, 0),
        ("src/app.py", "src/app.py", set(), 4, 1),
        ("src/service.ts", "src/service.ts", set(), 1, 0),
    ],
    "new_empty_file.diff": [(None, "src/__init__.py", {"added"}, 0, 0)],
    "new_file.diff": [(None, "src/helpers.py", {"added"}, 6, 0)],
    "no_newline.diff": [("src/VERSION", "src/VERSION", set(), 1, 1)],
    "plain_diff_new_file.diff": [(None, "src/helpers.py", {"added"}, 6, 0)],
    "plain_diff_u.diff": [("src/app.py", "src/app.py", set(), 4, 1)],
    "python_comment_only.diff": [("src/app.py", "src/app.py", set(), 1, 0)],
    "python_edit.diff": [("src/app.py", "src/app.py", set(), 4, 1)],
    "python_edit_reverse.diff": [("src/app.py", "src/app.py", set(), 1, 4)],
    "python_reindent.diff": [("src/app.py", "src/app.py", set(), 1, 1)],
    "python_whitespace_only.diff": [("src/app.py", "src/app.py", set(), 2, 1)],
    "quoted_paths.diff": [
        ("docs/caf\u00e9.md", "docs/caf\u00e9.md", set(), 1, 1),
        ("docs/read me.md", "docs/read me.md", set(), 1, 1),
    ],
    "rename_only.diff": [("src/helpers.py", "src/utils.py", {"rename"}, 0, 0)],
    "rename_with_edit.diff": [("src/helpers.py", "src/utils.py", {"rename"}, 1, 1)],
    "ts_comment_only.diff": [("src/service.ts", "src/service.ts", set(), 3, 0)],
    "ts_eslint_directive.diff": [("src/service.ts", "src/service.ts", set(), 1, 0)],
    "ts_reformat.diff": [("src/service.ts", "src/service.ts", set(), 4, 1)],
    "vendor_edit.diff": [
        ("src/app.py", "src/app.py", set(), 4, 1),
        ("vendor/lib.py", "vendor/lib.py", set(), 1, 1),
    ],
    "zero_context.diff": [("src/helpers.py", "src/helpers.py", set(), 2, 1)],
}


def _flags(change) -> set[str]:
    names = {"added": "is_added", "deleted": "is_deleted", "rename": "is_rename", "binary": "is_binary",
             "mode": "is_mode_change"}
    return {flag for flag, attr in names.items() if getattr(change, attr)}


def _malformed(text: str) -> MalformedPatch:
    with pytest.raises(MalformedPatch) as info:
        parse_patch(text)
    return info.value


# --- every fixture -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in ALL_FIXTURES if n not in KNOWN_REJECTED])
def test_every_fixture_parses_into_at_least_one_file(name):
    assert parse_patch(diff(name)).files


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_files_paths_flags_and_counts(name):
    facts = parse_patch(diff(name))
    got = [(f.old_path, f.new_path, _flags(f), f.added_count, f.removed_count) for f in facts.files]
    assert got == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_patch_totals_are_the_sum_of_its_files(name):
    facts = parse_patch(diff(name))
    expected = EXPECTED[name]
    assert (facts.added_count, facts.removed_count) == (sum(e[3] for e in expected), sum(e[4] for e in expected))


# --- contents ------------------------------------------------------------------------------------


def test_edit_keeps_added_and_removed_line_contents_without_prefix():
    (change,) = parse_patch(diff("python_edit.diff")).files
    (hunk,) = change.hunks
    assert hunk.removed == ("    return int(value)",)
    assert hunk.added == (
        "    port = int(value)",
        "    if not 1 <= port <= 65535:",
        '        raise ValueError(f"port out of range: {port}")',
        "    return port",
    )


def test_hunk_records_its_header_and_patch_line():
    (change,) = parse_patch(diff("python_edit.diff")).files
    assert (change.line, change.hunks[0].line, change.hunks[0].header) == (1, 5, "@@ -4,7 +4,10 @@ import sys")


def test_file_entries_record_the_line_of_their_diff_git_header():
    assert [f.line for f in parse_patch(diff("multi_file.diff")).files] == [1, 9, 25]


def test_deleted_file_lists_every_removed_line():
    (change,) = parse_patch(diff("deleted_file.diff")).files
    assert change.hunks[0].removed == ("def helper(x):", "    return x * 2", "", "", "def other(y):", "    return y + 1")
    assert change.path == "src/helpers.py"


def test_crlf_file_keeps_carriage_return_inside_lines():
    (change,) = parse_patch(diff("crlf.diff")).files
    assert change.hunks[0].removed == ("    return 0;\r",)
    assert change.hunks[0].added == ("    return 1;\r",)


def test_patch_sent_with_crlf_line_ends_parses_like_the_lf_original():
    original = parse_patch(diff("python_edit.diff"))
    transported = parse_patch(diff("python_edit.diff").replace("\n", "\r\n"))
    assert transported == original


def test_crlf_file_in_a_crlf_sent_patch_still_keeps_its_own_carriage_returns():
    (change,) = parse_patch(diff("crlf.diff").replace("\n", "\r\n")).files
    assert change.hunks[0].added == ("    return 1;\r",)


def test_no_newline_marker_is_neither_an_added_nor_a_removed_line():
    (change,) = parse_patch(diff("no_newline.diff")).files
    assert (change.hunks[0].removed, change.hunks[0].added) == (("1.0.0",), ("1.1.0",))


def test_hunk_header_without_counts_means_one_line_each_side():
    (change,) = parse_patch(diff("no_newline.diff")).files
    assert change.hunks[0].header == "@@ -1 +1 @@"


def test_git_quoted_non_ascii_path_is_unquoted_and_decoded():
    first = parse_patch(diff("quoted_paths.diff")).files[0]
    assert first.paths == ("docs/caf\u00e9.md",)


def test_path_with_space_loses_git_trailing_tab():
    second = parse_patch(diff("quoted_paths.diff")).files[1]
    assert second.paths == ("docs/read me.md",)


def test_mode_only_change_records_both_modes():
    (change,) = parse_patch(diff("mode_only.diff")).files
    assert (change.old_mode, change.new_mode, change.hunks) == ("100644", "100755", ())


def test_new_file_is_not_a_mode_change():
    (change,) = parse_patch(diff("new_file.diff")).files
    assert not change.is_mode_change


def test_rename_writes_both_paths():
    facts = parse_patch(diff("rename_only.diff"))
    assert facts.paths == ("src/helpers.py", "src/utils.py")


def test_deleted_file_path_is_the_old_name():
    (change,) = parse_patch(diff("deleted_file.diff")).files
    assert change.paths == ("src/helpers.py",)


def test_patch_paths_are_in_patch_order():
    assert parse_patch(diff("multi_file.diff")).paths == ("README.md", "src/app.py", "src/service.ts")


def test_changes_without_lines_covers_binary_mode_rename_and_empty_new_file():
    for name in ("binary_added.diff", "binary_added_git_binary.diff", "mode_only.diff", "rename_only.diff",
                 "new_empty_file.diff"):
        assert parse_patch(diff(name)).files[0].changes_without_lines, name


def test_plain_edit_is_not_a_change_without_lines():
    assert not parse_patch(diff("python_edit.diff")).files[0].changes_without_lines


# --- valid edge cases that must not raise --------------------------------------------------------


def test_format_patch_preamble_diffstat_and_signature_are_not_content():
    (change,) = parse_patch(diff("format_patch.diff")).files
    assert change.line == 11  # the `diff --git` line after the email header and diffstat
    assert change.hunks[0].added[-1] == "    return port"


def test_format_patch_commit_message_may_quote_a_hunk_header():
    # git format-patch writes the message verbatim; git am only starts the patch at `diff`/`---`/`Index:`.
    (change,) = parse_patch(diff("format_patch_hunk_in_message.diff")).files
    assert (change.path, change.added_count, change.removed_count) == ("src/app.py", 4, 1)


def test_plain_diff_u_with_timestamps_strips_prefix_and_timestamp():
    (change,) = parse_patch(diff("plain_diff_u.diff")).files
    assert change.paths == ("src/app.py",)


def test_plain_diff_new_file_is_recognised_by_its_empty_old_side():
    (change,) = parse_patch(diff("plain_diff_new_file.diff")).files
    assert change.is_added and change.new_path == "src/helpers.py"


def test_zero_context_diff_keeps_each_hunk_separately():
    (change,) = parse_patch(diff("zero_context.diff")).files
    assert [(h.added, h.removed) for h in change.hunks] == [(("import math", ""), ()), ((), ("    return y + 1",))]


def test_empty_hunk_is_malformed_as_git_says():
    # git apply: "corrupt patch" for a hunk with no + or - line (it used to read as a no-op here).
    with pytest.raises(MalformedPatch, match="changes nothing") as raised:
        parse_patch("--- a/x\n+++ b/x\n@@ -0,0 +0,0 @@\n")
    assert raised.value.line == 3


def test_two_plain_diff_files_back_to_back():
    text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n"
    assert parse_patch(text).paths == ("x", "y")


def test_empty_line_inside_a_hunk_counts_as_blank_context():
    (change,) = parse_patch("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n").files
    assert (change.hunks[0].added, change.hunks[0].removed) == (("c",), ("b",))


# --- unquote_git_path ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quoted", "expected"),
    [
        ('"b/A \\303\\242 B.py"', "b/A \u00e2 B.py"),  # octal UTF-8 bytes
        ('"a\\tb"', "a\tb"),
        ('"a\\"b"', 'a"b'),
        ('"a\\\\b"', "a\\b"),
        ('"a\\\\101"', "a\\101"),  # an escaped backslash before digits is not an octal escape
        ('"\\101\\102"', "AB"),
        ('"a\\nb"', "a\nb"),
        ('""', ""),
    ],
)
def test_unquote_git_path_decodes_c_escapes(quoted, expected):
    assert unquote_git_path(quoted) == expected


@pytest.mark.parametrize("path", ["plain/path.py", "docs/read me.md", '"unterminated', '"', 'a"b"'])
def test_unquote_git_path_leaves_unquoted_text_alone(path):
    assert unquote_git_path(path) == path


def test_unquote_git_path_keeps_unknown_escape():
    assert unquote_git_path('"a\\qb"') == "a\\qb"


def test_unquote_git_path_invalid_utf8_becomes_replacement_char():
    assert unquote_git_path('"x\\377"') == "x\ufffd"


# --- malformed patches ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "This is just prose.\nIt has no diff in it.\n", "-old line\n+new line\n", " context only\n"],
    ids=["empty", "blank-lines", "prose", "plus-minus-without-headers", "context-only"],
)
def test_text_without_file_headers_is_malformed(text):
    error = _malformed(text)
    assert "no file headers" in str(error)
    assert error.line is None


def test_plain_header_without_hunks_is_malformed_and_names_the_file():
    error = _malformed("--- a/x\n+++ b/x\n")
    assert "file x has a header but no @@ hunks" in str(error)


def test_plain_header_without_hunks_points_at_the_first_header_line():
    assert _malformed("--- a/x\n+++ b/x\n").line == 1


def test_git_header_with_only_an_index_line_is_malformed():
    error = _malformed("diff --git a/src/app.py b/src/app.py\nindex 5fc8a70..6622486 100644\n")
    assert "src/app.py" in str(error) and "no @@ hunks" in str(error)
    assert error.line == 1


def test_second_file_header_without_hunks_points_at_that_file():
    text = diff("python_edit.diff") + "diff --git a/src/b.py b/src/b.py\nindex 1111111..2222222 100644\n"
    error = _malformed(text)
    assert "src/b.py" in str(error)
    assert error.line == len(diff("python_edit.diff").splitlines()) + 1


def test_truncated_last_hunk_is_malformed_at_the_end_of_the_patch():
    lines = diff("python_edit.diff").splitlines(keepends=True)
    text = "".join(lines[:-3])  # cut inside the hunk: three context lines missing
    error = _malformed(text)
    assert "fewer lines than its @@ header counts" in str(error)
    assert "src/app.py" in str(error)
    assert error.line == len(lines) - 3


def test_hunk_cut_short_by_the_next_file_is_malformed_at_that_header():
    lines = diff("multi_file.diff").splitlines(keepends=True)
    assert lines[7] == "+Ports must be in 1-65535.\n"
    text = "".join(lines[:7] + lines[8:])  # README.md's hunk now lacks one of its 3 new lines
    error = _malformed(text)
    assert "fewer lines" in str(error) and "README.md" in str(error)
    assert error.line == 8  # the `diff --git a/src/app.py` line that arrived too early


def test_extra_added_line_after_a_complete_hunk_is_malformed():
    text = diff("python_edit.diff") + "+    extra = True\n"
    error = _malformed(text)
    assert "more lines than its header counts" in str(error)
    assert "extra = True" in str(error)
    assert error.line == len(diff("python_edit.diff").splitlines()) + 1


def test_extra_line_after_no_newline_marker_is_malformed():
    text = diff("no_newline.diff") + "+1.2.0\n"
    error = _malformed(text)
    assert "more lines than its header counts" in str(error)
    assert error.line == len(diff("no_newline.diff").splitlines()) + 1


def test_extra_context_line_between_two_files_is_malformed():
    text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"
    error = _malformed(text)
    assert error.line == 6 and "' c'" in str(error)


def test_garbage_line_inside_a_hunk_is_malformed_and_quoted():
    lines = diff("python_edit.diff").splitlines(keepends=True)
    assert lines[5] == " \n"
    text = "".join(lines[:5] + ["garbage here\n"] + lines[6:])
    error = _malformed(text)
    assert "does not start with ' ', '+', '-' or '\\'" in str(error)
    assert "garbage here" in str(error) and "src/app.py" in str(error)
    assert error.line == 6


def test_malformed_message_quotes_at_most_a_short_excerpt_of_a_long_garbage_line():
    lines = diff("python_edit.diff").splitlines(keepends=True)
    text = "".join(lines[:5] + ["g" * 100_000 + "\n"] + lines[6:])
    assert len(str(_malformed(text))) < 300


def test_malformed_patch_is_a_value_error_with_problem_and_line():
    error = _malformed("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n")
    assert isinstance(error, ValueError)
    assert str(error) == f"{error.problem} (patch line {error.line})"


# --- shapes found by evals/dev.jsonl --------------------------------------------------


def test_reversed_prefixes_of_git_diff_R_are_stripped():
    facts = parse_patch(diff("python_edit.diff").replace("a/src/app.py", "X").replace("b/src/app.py", "a/src/app.py").replace("X", "b/src/app.py"))
    assert facts.paths == ("src/app.py",)


def test_hunk_header_without_ranges_is_malformed():
    broken = diff("python_edit.diff").replace("@@ -4,7 +4,10 @@", "@@ @@", 1)
    assert "@@ @@" in broken
    with pytest.raises(MalformedPatch, match="not a valid hunk header") as raised:
        parse_patch(broken)
    assert raised.value.line == 5


def test_lines_between_file_header_and_first_hunk_are_malformed():
    text = "--- a/x.py\n+++ b/x.py\n+sneaked in\n@@ -1 +1 @@\n-a\n+b\n"
    with pytest.raises(MalformedPatch, match="has no file header") as raised:
        parse_patch(text)
    assert raised.value.line == 4
    git_style = "diff --git a/x.py b/x.py\nindex 1..2 100644\n" + text
    with pytest.raises(MalformedPatch, match="instead of a hunk header") as raised:
        parse_patch(git_style)
    assert raised.value.line == 5


# --- smuggling: what git applies must be what judge reads (review findings) ---------------


def test_rename_lines_decide_the_names_as_they_do_for_git():
    text = ("diff --git a/src/ok.py b/src/new.py\nsimilarity index 100%\n"
            "rename from vendor/secret.py\nrename to src/new.py\n")
    (change,) = parse_patch(text).files
    assert (change.old_path, change.new_path) == ("vendor/secret.py", "src/new.py")


def test_file_header_lines_that_disagree_with_the_git_header_are_malformed():
    text = ("diff --git a/src/ok.py b/src/ok.py\nindex 1..2 100644\n--- a/vendor/secret.py\n+++ b/src/ok.py\n"
            "@@ -1 +1 @@\n-x\n+y\n")
    with pytest.raises(MalformedPatch, match="names two different files, 'src/ok.py' and 'vendor/secret.py'"):
        parse_patch(text)


def test_a_diff_hidden_in_mail_prose_is_not_skipped():
    text = ("From 1234567 Mon Sep 17 00:00:00 2001\n--- a/vendor/secret.py\n+++ b/vendor/secret.py\n"
            "@@ -1 +1 @@\n-x\n+PWNED\n" + diff("python_edit.diff"))
    try:
        facts = parse_patch(text)
    except MalformedPatch:
        return  # refusing the patch is as good as seeing the file
    assert "vendor/secret.py" in facts.paths


# --- as strict as git apply, and the names git writes (issue 11) ----------------------------------


def test_plain_diff_naming_two_files_is_malformed_and_says_both_names():
    # git apply and GNU patch write setup.py here; reading setup.py.md bypassed excludedPaths ["*.py"].
    error = _malformed("--- a/setup.py\n+++ b/setup.py.md\n@@ -1 +1 @@\n-a\n+b\n")
    assert "'setup.py'" in str(error) and "'setup.py.md'" in str(error)
    assert "rename from" in str(error) and error.line == 1


def test_git_header_naming_two_files_without_rename_lines_is_malformed():
    error = _malformed("diff --git a/x.py b/x.md\n--- a/x.py\n+++ b/x.md\n@@ -1 +1 @@\n-a\n+b\n")
    assert "'x.py' and 'x.md'" in str(error) and "rename from" in str(error)


def test_bare_git_header_with_two_names_is_not_a_rename():
    error = _malformed("diff --git a/README.md b/docs/README.md\n")
    assert "no @@ hunks" in str(error) and "diff --git a/README.md b/docs/README.md" in str(error)


def test_release_style_prefixes_read_as_git_apply_p1_writes_them():
    text = "--- project-1.0/src/a.py\t2024-01-01 10:00:00 +0000\n+++ project-1.1/src/a.py\t2024-02-01 10:00:00 +0000\n" \
           "@@ -1 +1 @@\n-a\n+b\n"
    assert parse_patch(text).paths == ("src/a.py",)


def test_plain_diff_creating_a_file_without_a_prefix_is_malformed():
    # git apply drops the first directory (-p1) and creates setup.py; `patch -p0` creates docs/setup.py.
    error = _malformed("--- /dev/null\n+++ docs/setup.py\n@@ -0,0 +1 @@\n+x\n")
    assert "'docs/setup.py' with no a/ b/ prefix" in str(error) and "'setup.py'" in str(error)


@pytest.mark.parametrize(("text", "git_writes", "p0_writes"), [
    ("--- docs/setup.py\n+++ docs/setup.py\n@@ -1 +1 @@\n-a\n+b\n", "setup.py", "docs/setup.py"),
    ("Index: src/n.py\n===================================================================\n"
     "--- src/n.py\t(revision 10)\n+++ src/n.py\t(working copy)\n@@ -1 +1 @@\n-a\n+b\n", "n.py", "src/n.py"),
    ("--- a/x\n+++ a/x\n@@ -1 +1 @@\n-a\n+b\n", "x", "a/x"),
], ids=["diff-u-in-the-repository", "svn-index", "same-prefix-twice"])
def test_plain_diff_without_a_b_prefixes_is_malformed_and_names_both_readings(text, git_writes, p0_writes):
    # Issue 11 review item 4: judge read these -p0 while `git apply` writes -p1 (root setup.py), a scope bypass.
    error = _malformed(text)
    assert f"git apply would write {git_writes!r}" in str(error)
    assert f"patch -p0 would write {p0_writes!r}" in str(error) and "`git diff`" in str(error)


def test_plain_diff_of_a_top_level_file_without_prefixes_keeps_its_name():
    assert parse_patch("--- app.py\n+++ app.py\n@@ -1 +1 @@\n-a\n+b\n").paths == ("app.py",)


@pytest.mark.parametrize(("text", "expected"), [
    ("diff --git a/x b/x\ndeleted file mode 100644\nnew file mode 100644\n", "contradict each other"),
    ("diff --git a/x b/x\nold mode 100644\nnew mode 10x755\n", "no valid octal file mode"),
    ("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", "cut off"),
    ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n same\n", "changes nothing"),
    ("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "remove lines"),
    ("diff --git a/p b/p\nnew file mode 100644\nindex 0..1\nGIT binary patch\nliteral 3\nzzzz\n\n", "corrupt binary"),
    ("Binary files a/p and b/p differ\n", "git apply finds no file"),
], ids=["deleted-and-new", "mode-garbage", "cut-mid-line", "context-only-hunk", "new-file-removes", "bad-base85",
        "lone-binary-placeholder"])
def test_what_git_apply_refuses_is_malformed_with_its_line(text, expected):
    error = _malformed(text)
    assert expected in str(error)


def test_mode_lines_are_read_as_git_canonical_modes():
    (change,) = parse_patch("diff --git a/r b/r\nold mode 100600\nnew mode 100700\n").files
    assert (change.old_mode, change.new_mode, change.is_mode_change) == ("100644", "100755", True)


def test_deleted_and_new_file_mode_patch_is_malformed_patch_through_validate_not_judge_error():
    # Issue 11 item 7: this 3-line patch made a FileChange with neither an old nor a new path, and a rule crashed.
    import judge

    step, result = make_case("diff --git a/x b/x\ndeleted file mode 100644\nnew file mode 100644\n",
                             filesWritten=["x"], filesTouched=["x"])
    verdict = judge.validate(step, result)
    assert (verdict.valid, verdict.rule) == (False, "malformed_patch")
    assert "contradict" in verdict.reason


# --- names git writes that judge once read otherwise (issue 11 review) ------------------------------

_STAMP = "\t2026-01-01 00:00:00.000000000 +0000"
_EPOCH = "\t1970-01-01 00:00:00.000000000 +0000"


@pytest.mark.parametrize("text", [
    "--- /src/secret.py\n+++ b/src/secret.py\n@@ -0,0 +1 @@\n+x\n",
    "--- a/src/secret.py\n+++ /src/secret.py\n@@ -1 +0,0 @@\n-x\n",
    "--- C:/src/secret.py\n+++ b/src/secret.py\n@@ -0,0 +1 @@\n+x\n",
    "--- \ta/src/secret.py" + _EPOCH + "\n+++ b/src/secret.py" + _STAMP + "\n@@ -0,0 +1 @@\n+x\n",
], ids=["absolute-old-side-of-a-creation", "absolute-new-side-of-a-deletion", "drive-old-side", "tab-epoch-old-side"])
def test_unsafe_name_on_the_side_that_does_not_exist_reaches_unsafe_path(text):
    # git writes src/secret.py; judge reported only b/src/secret.py and excludedPaths ["src/**"] passed.
    import judge

    paths = list(parse_patch(text).paths)
    step, result = make_case(text, step={"excludedPaths": ["src/**"]}, filesWritten=paths, filesTouched=paths)
    verdict = judge.validate(step, result)
    assert (verdict.valid, verdict.rule) == (False, "unsafe_path"), verdict.reason


def test_a_carriage_return_before_a_name_is_kept_for_unsafe_path():
    # normalize_path's strip() removed the CR, and judge read a/src/app.py, valid under excludedPaths ["src/**"].
    text = "--- \ra/src/app.py" + _STAMP + "\n+++ b/src/app.py" + _STAMP + "\n@@ -1 +1 @@\n-a\n+b\n"
    assert "\ra/src/app.py" in parse_patch(text).paths


def test_a_trailing_space_in_a_rename_target_is_part_of_the_name():
    text = "diff --git a/docs/a.md b/docs/b.md \nsimilarity index 100%\nrename from docs/a.md\nrename to docs/b.md \n"
    assert parse_patch(text).paths == ("docs/a.md", "docs/b.md ")


def test_a_name_git_already_unquoted_is_not_unquoted_again():
    # git writes the file `"docs/x.md"` (in a directory named `"docs`); judge read docs/x.md.
    text = '--- a/"docs/x.md"\n+++ b/"docs/x.md"\n@@ -1 +1 @@\n-a\n+b\n'
    assert parse_patch(text).paths == ('"docs/x.md"',)


def test_both_sides_dev_null_is_malformed_not_a_crash():
    error = _malformed("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n")
    assert "both /dev/null" in str(error) and error.line == 1


def test_git_header_whose_second_side_after_a_space_is_not_a_name_gives_git_no_name():
    # git's git_header_name gives up at the first space followed by text it cannot strip a/ from (`/y`).
    error = _malformed("diff --git a/x /y b/x /y\nnew file mode 100644\n")
    assert "gives git no file name" in str(error) or "lacks a file name" in str(error)


def test_git_header_with_many_spaces_in_its_name_still_finds_the_name():
    name = "tests/" + "a " * 2000 + "x.py"
    text = f"diff --git a/{name} b/{name}\nnew file mode 100644\n--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+a\n"
    assert parse_patch(text).paths == (name,)

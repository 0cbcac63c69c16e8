"""judge.patch.paths and judge.patch.globs: normalising agent-written paths, refusing unsafe and
platform-dangerous ones (also as `judge run` ids), gitignore-style globs and the step's glob check."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

import judge
from helpers.fuzzing import FUZZ
from judge.errors import InputError
from judge.workspace.confine import check_segment, segment_problem

from judge.patch.globs import glob_problem, matches_any
from judge.patch.paths import MAX_PATH_BYTES, MAX_PATH_SEGMENTS, normalize_path, segment_reason, unsafe_reason

# --- normalize_path ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("./src/a.py", "src/a.py"),
        ("././src/a.py", "src/a.py"),
        ("src//a.py", "src/a.py"),
        ("./src//a.py", "src/a.py"),
        ("src/./a.py", "src/a.py"),
        ("a/./././b", "a/b"),
        ("src/.//x", "src/x"),
        ("  src/a.py\n", "  src/a.py\n"),  # white space is part of a name: unsafe_reason must see it
        ("src/a.py", "src/a.py"),
        (".hidden/x", ".hidden/x"),
        ('"docs/caf\\303\\251.md"', '"docs/caf\\303\\251.md"'),  # unquoted once, by the reader of git's output
    ],
)
def test_normalize_path(raw, expected):
    assert normalize_path(raw) == expected


@pytest.mark.parametrize("raw", ["../x", "a/../b", "./../x"])
def test_normalize_path_keeps_dotdot_for_unsafe_reason(raw):
    assert ".." in normalize_path(raw).split("/")


def test_normalize_path_keeps_absolute_paths_absolute():
    assert normalize_path("//etc//passwd").startswith("/")


# --- unsafe_reason -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/etc/passwd", "absolute"),
        ("\\\\server\\share\\x", "absolute"),
        ("C:\\x", "absolute"),
        ("c:/Windows/x", "absolute"),
        ("~/x", "~"),
        ("~root/.ssh/authorized_keys", "~"),
        ("../x", ".."),
        ("a/../../b", ".."),
        ("a/..", ".."),
        ("a\\..\\b", ".."),
        (".git/config", ".git"),
        (".git", ".git"),
        ("a/.git/hooks/pre-commit", ".git"),
        ("deep/er/.git/HEAD", ".git"),
        ("a/.GIT/config", ".git"),
        ("a\\.git\\config", ".git"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        ("a\tb", "control"),
        ("a\x1bb", "control"),
        ("a\x7fb", "control"),
        ("", "empty"),
    ],
)
def test_unsafe_path_gets_a_reason_naming_the_problem(path, words):
    reason = unsafe_reason(path)
    assert reason is not None and words in reason


# Names some platform an orchestrator runs on reads as another name or as a device (issue 11, item 8).
PLATFORM_DANGEROUS = [
    # Windows drives and alternate data streams
    ("c:x", "drive"),
    ("C:foo/bar", "drive"),
    ("a.txt:stream", "':'"),
    ("docs/a:b.md", "':'"),
    ("src/x.py::$DATA", "':'"),
    (".git::$INDEX_ALLOCATION/hooks/post-checkout", ".git"),
    (".git:x", ".git"),
    # reserved device names, any case, any extension, as any segment
    ("CON", "device"),
    ("con.txt", "device"),
    ("a/Nul.tar.gz", "device"),
    ("aux/x.py", "device"),
    ("PRN", "device"),
    ("COM1", "device"),
    ("com9.log", "device"),
    ("LPT1", "device"),
    ("lpt9/x", "device"),
    ("COM0", "device"),
    ("COM\u00b9", "device"),
    ("lpt\u00b3.txt", "device"),
    ("CONIN$", "device"),
    ("conout$.txt", "device"),
    ("CON .txt", "device"),
    # trailing dots and spaces
    ("a/b.", "dot or a space"),
    ("a/b ", "dot or a space"),
    ("a/b. /c", "dot or a space"),
    ("...", "dot or a space"),
    (".gitmodules.", "dot or a space"),
    # .git under other spellings: NTFS trailing dots/spaces and short name, HFS+ ignorables and case
    (".git./config", ".git"),
    (".git /config", ".git"),
    (".git . ./config", ".git"),
    ("GIT~1/config", ".git"),
    ("git~1", ".git"),
    (".Git/config", ".git"),
    (".g\u0131t/config", ".git"),
    (".git\u206f/config", ".git"),
    (".g\u200cit/config", ".git"),
    ("\ufeff.git/config", ".git"),
    (".gi\u00adt/x", ".git"),
    (".git\U000e0001/x", ".git"),
    (".git\ufe0f/x", ".git"),
    ("a/.g\u200bit/hooks/pre-commit", ".git"),
    # other 8.3 short names: each can stand for a long name, .gitmodules' included
    ("GITMOD~1", "short name"),
    ("gi7eba~1", "short name"),
    ("PROGRA~1/x", "short name"),
    ("src/VERYLO~2.PY", "short name"),
    # invisible and bidi characters anywhere
    ("src/a\u202eyp.exe", "invisible"),
    ("a\u2066b", "invisible"),
    ("a\u061cb", "invisible"),
    ("a\u3164b", "invisible"),
    ("a\u115fb", "invisible"),
    ("a\U0001d173b", "invisible"),
    ("a\ud800b", "invisible"),
    ("a\u2028b", "invisible"),
    ("a\x85b", "invisible"),
    # a backslash is a separator on Windows: `src\\x.py` there is src/x.py
    ("src\\secret\\x.py", "separator"),
]


@pytest.mark.parametrize(("path", "words"), PLATFORM_DANGEROUS)
def test_platform_dangerous_name_is_unsafe(path, words):
    reason = unsafe_reason(path)
    assert reason is not None and words in reason, reason


@pytest.mark.parametrize(
    "path",
    ["consul/x", "console.log", "auxiliary.py", "com10", "lpt.txt", "nullable.py", "a~b", "dir~/x", "file.py~",
     "a/~~", "a/.gitmodules", ".github/x", "na\u00efve.md", "\u65e5\u672c/\u30d5.md", "\U0001f642.md",
     "a/b.c/d", ".env", "x~1.tar.gz", "docs/v1.2.3/x"],
)
def test_honest_names_near_the_dangerous_ones_are_safe(path):
    assert unsafe_reason(path) is None


def test_the_path_length_bound_counts_utf8_bytes():
    assert unsafe_reason("x" * MAX_PATH_BYTES) is None
    assert "bytes" in unsafe_reason("x" * (MAX_PATH_BYTES + 1))
    assert unsafe_reason("\u00e9" * (MAX_PATH_BYTES // 2)) is None
    assert "bytes" in unsafe_reason("\u00e9" * (MAX_PATH_BYTES // 2 + 1))


def test_the_segment_bound_counts_both_separators():
    assert unsafe_reason("/".join(["a"] * MAX_PATH_SEGMENTS)) is None
    assert "segments" in unsafe_reason("/".join(["a"] * (MAX_PATH_SEGMENTS + 1)))
    assert "segments" in unsafe_reason("\\".join(["a"] * (MAX_PATH_SEGMENTS + 1)))


def test_a_megabyte_path_is_unsafe_path_before_any_glob_sees_it():
    path = "tests/" * 400_000 + "x.pyc"  # 2.4 MB: a backtracking matcher never finishes on it
    step = {"id": "s", "description": "Add a test", "allowedFiles": ["**/tests/**/*.py"],
            "excludedPaths": ["src/**/test/**/*.ts", "**/tests/**/*.pyc"]}
    patch = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": [path], "filesTouched": [path]}
    verdict = judge.validate(step, result)
    assert not verdict.valid and verdict.findings[0].rule == "unsafe_path"
    assert [f.rule for f in verdict.findings if f.rule.startswith("scope")] == []  # the path is unsafe_path's alone
    assert len(verdict.reason) < 1000  # the reason quotes the path's start, not 2.4 MB of it


# --- segment_reason and judge run's ids (judge.workspace.confine) ---------------------------------


@pytest.mark.parametrize(
    "value", ["a\u202eb", "\u2067x", "s\u200b", "CON", "nul.log", "com1", "a:b", "x.", "x ", ".git", "GIT~1", "PROGRA~1"]
)
def test_run_ids_and_step_names_refuse_bidi_marks_and_platform_dangerous_names(value):
    assert segment_reason(value) is not None
    assert segment_problem(value) == segment_reason(value)
    with pytest.raises(InputError) as caught:
        check_segment(value, "run_id")
    assert "run_id" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("value", ["step-1", "20240101T000000Z-abcd1234", "build.v2", "\u00e9tape-3", "a_b"])
def test_plain_run_ids_and_step_names_pass(value):
    assert segment_problem(value) is None and check_segment(value, "step_id") == value


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        ".gitignore",
        ".gitattributes",
        ".github/workflows/x.yml",
        "a/.gitkeep",
        "a..b/c",
        "docs/..md",
        "a/~b",
        "docs/read me.md",
        "docs/caf\u00e9.md",
    ],
)
def test_safe_look_alike_is_safe(path):
    assert unsafe_reason(path) is None


# --- matches_any: gitignore semantics -------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        # `**` crosses segments; anchored because it contains a slash
        ("src/a.py", ["src/**"], True),
        ("src/a/b/c.py", ["src/**"], True),
        ("lib/src/a.py", ["src/**"], False),
        # `*` stays within one segment
        ("src/b.py", ["src/*.py"], True),
        ("src/a/b.py", ["src/*.py"], False),
        ("ab.py", ["?.py"], False),
        ("a.py", ["?.py"], True),
        # a pattern without a slash matches at any depth
        ("c.lock", ["*.lock"], True),
        ("a/b/c.lock", ["*.lock"], True),
        ("a/b/c.lockx", ["*.lock"], False),
        ("x/y/a.py", ["a.py"], True),
        # a directory pattern matches at any depth and covers everything below
        ("vendor/x.py", ["vendor/"], True),
        ("a/vendor/b/x.py", ["vendor/"], True),
        ("vendorx/a.py", ["vendor/"], False),
        ("src/a/b.py", ["src"], True),
        # a leading slash anchors at the root
        ("build/x.o", ["/build"], True),
        ("build", ["/build"], True),
        ("a/build/x.o", ["/build"], False),
        ("docs/api/x.md", ["docs/api"], True),
        ("x/docs/api/y.md", ["docs/api"], False),
        # `**/` prefix matches at the root and below
        ("test_a.py", ["**/test_*.py"], True),
        ("tests/unit/test_a.py", ["**/test_*.py"], True),
        ("tests/a_test.py", ["**/test_*.py"], False),
        ("a/b", ["a/**/b"], True),
        ("a/x/y/b", ["a/**/b"], True),
        # no patterns match nothing
        ("x.py", [], False),
    ],
)
def test_matches_any_gitignore_semantics(path, patterns, expected):
    assert matches_any(path, patterns) is expected


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("vendor/keep.py", ["vendor/", "!vendor/keep.py"], False),
        ("vendor/other.py", ["vendor/", "!vendor/keep.py"], True),
        ("a.py", ["*.py", "!a.py"], False),
        ("a.py", ["*.py", "!a.py", "a.py"], True),
        ("vendor/keep.py", ["!vendor/keep.py", "vendor/**"], True),
        ("vendor/keep.py", ["!vendor/keep.py", "*.py"], True),
    ],
)
def test_negation_last_matching_pattern_wins(path, patterns, expected):
    assert matches_any(path, patterns) is expected


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("vendor/keep.py", ["!vendor/keep.py", "vendor/"], True),
        ("vendor/keep.py", ["!vendor/keep.py", "vendor"], True),
    ],
    ids=["later-dir-pattern-after-negation", "later-bare-dir-after-negation"],
)
def test_last_match_wins_also_when_the_last_match_is_a_directory_pattern(path, patterns, expected):
    # Both git (the excluded directory hides the file) and "the last matching pattern wins" say True.
    assert matches_any(path, patterns) is expected


def test_matches_any_accepts_any_iterable_of_patterns():
    assert matches_any("src/a.py", (p for p in ["docs/**", "src/**"]))


# --- globs: the rest of the syntax, and the deliberate differences from pathspec -------------------


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        # `dir/*` matches a directory, so everything below it (pathspec: only the direct children)
        ("vendor/a/b.py", ["vendor/*"], True),
        ("vendor/a", ["vendor/*"], True),
        ("vendor", ["vendor/*"], False),
        # a class never matches `/` (pathspec's [!x] and [.-0] do)
        ("a/b", ["a[!x]b"], False),
        ("a-b", ["a[!x]b"], True),
        ("a/b", ["a[.-0]b"], False),
        ("a0b", ["a[.-0]b"], True),
        # classes, ranges, negation, `]` first, unclosed `[`
        ("src/b.py", ["src/[a-c].py"], True),
        ("src/d.py", ["src/[a-c].py"], False),
        ("src/d.py", ["src/[!a-c].py"], True),
        ("src/d.py", ["src/[^a-c].py"], True),
        ("]", ["[]a]"], True),
        ("b", ["[!]a]"], True),
        ("a[b", ["a[b"], True),
        ("a]b", ["a[\\]]b"], True),  # `\` escapes inside a class, as in git
        # escapes, comments, blank patterns, trailing spaces
        ("a*b", ["a\\*b"], True),
        ("axb", ["a\\*b"], False),
        ("#x", ["\\#x"], True),
        ("#x", ["#x"], False),
        ("!x", ["\\!x"], True),
        ("x", [""], False),
        ("x", ["   "], False),
        ("x.py", ["x.py   "], True),
        ("x ", ["x\\ "], True),
        # several `*` in one segment; `**` inside a segment is a plain `*`
        ("a/abcabd", ["**/*ab*d"], True),
        ("ab", ["*ab*b"], False),
        ("src/x_test_y.py", ["src/*test*.py"], True),
        ("src/a/b", ["src/a**b"], False),
        ("src/ab", ["src/a**b"], True),
        # `**` forms
        ("x", ["**"], True),
        ("x", ["**/"], False),
        ("a/x", ["**/"], True),
        ("a/x", ["*/"], True),
        ("x", ["*/"], False),
        ("a", ["a/**"], False),
        ("a/b/c/d", ["a/**/c/**"], True),
        ("a/c", ["a/**/c/**"], False),
        ("x/a/y/b/z.py", ["**/a/**/b/**/*.py"], True),
        ("x/b/y/a/z.py", ["**/a/**/b/**/*.py"], False),
        ("x", ["/"], False),  # git: `/` alone names nothing
    ],
)
def test_glob_syntax(path, patterns, expected):
    assert matches_any(path, patterns) is expected


@pytest.mark.parametrize(
    ("pattern", "words"),
    [("a\\", "lone"), ("src/\\", "lone"), ("[z-a]", "range"), ("!", "negates nothing"), ("x" * 4097, "longer")],
)
def test_a_glob_that_cannot_be_compiled_is_named(pattern, words):
    problem = glob_problem(pattern)
    assert problem is not None and words in problem


@pytest.mark.parametrize("pattern", ["**/tests/**/*.py", "{a,b}", "[", "a[", "x" * 4096, "*" * 4000, "\\ ", "#"])
def test_an_ordinary_or_odd_but_readable_glob_compiles(pattern):
    assert glob_problem(pattern) is None


@pytest.mark.parametrize("field", ["allowedFiles", "excludedPaths"])
@pytest.mark.parametrize(("pattern", "words"), [("a\\", "lone"), ("[b-a]", "range"), ("x" * 4097, "maxLength")])
def test_a_step_with_a_bad_glob_breaks_its_contract_naming_field_and_glob(field, pattern, words):
    result = {"mode": "apply", "success": True, "patch": None, "filesWritten": [], "summary": "nothing"}
    verdict = judge.validate({"id": "s", "description": "d", field: ["ok/**", pattern]}, result)
    assert not verdict.valid and verdict.findings[0].rule == "schema_invalid"
    assert f"$.step.{field}[1]" in verdict.reason and words in verdict.reason
    assert len(verdict.reason) < 400


def test_a_matched_glob_on_a_long_hostile_path_gives_the_right_answer():
    # The shapes that made pathspec's regexes backtrack; bench/bench_globs.py times them.
    tests_dirs = "tests/" * 40_000
    assert matches_any(tests_dirs + "x.py", ["**/tests/**/*.py"])
    assert not matches_any(tests_dirs + "x.pyc", ["**/tests/**/*.py"])
    assert not matches_any("src/" + "test/" * 40_000 + "x.js", ["src/**/test/**/*.ts"])
    assert matches_any("src/" + "test/" * 40_000 + "x.ts", ["src/**/test/**/*.ts"])
    assert not matches_any("docs/" + "abc" * 80_000 + ".md", ["docs/*a*b*c*d*.md"])
    assert matches_any("docs/" + "abc" * 80_000 + "d.md", ["docs/*a*b*c*d*.md"])


# Each held to a real `git check-ignore --no-index` (issue 11 review, item B): git's reading of a
# .gitignore line is the one an executor's tools share, so a glob read otherwise could be dodged.
_GIT_GLOBS = [
    ("x\\  ", ["x ", "x", "x  ", "x\\"]),  # trailing spaces go unless escaped: the pattern is `x `
    ("x\t", ["x\t", "x"]),  # only spaces are trailing whitespace; a tab is part of the name
    ("x \t", ["x \t", "x ", "x"]),
    ("[[:upper:]]x", ["Ax", "ax", "d/Bx", "[x"]),
    ("[![:digit:][:space:]]", ["5", " ", "a", "\t"]),
    ("[[:alnum:]][[:alpha:]][[:blank:]]", ["0a ", "0a\t", "a0 ", "_a "]),
    ("[[:punct:]][[:xdigit:]][[:lower:]]", ["_fa", "!Ga", "aFa", "-0z"]),
    ("[[:graph:]][[:print:]][[:cntrl:]]", ["a \x7f", "  \x01", "~~\x1f"]),
    ("[[:alpha]x", ["ax", "[x", "px", "]x", "Ax"]),  # no `:]`: a `[` and plain members
    ("[0-[:digit:]]x", ["5x", "5]x", "t]x", "d]x", "z]x"]),  # a range to `[`, then plain members
    ("[\\]]x", ["]x", "\\x", "x", "\\]x"]),
    ("[\\a-c]", ["b", "\\", "-"]),
    ("[a\\-c]", ["b", "-", "c", "a"]),
    ("/", ["a", "a/b"]),
    ("!/", ["a"]),
    ("a/**/", ["a/foo", "a/foo/bar", "a/b/c/d", "a"]),
    ("**/a/**/", ["x/a/b", "x/a/b/c", "a/b/c"]),
    ("a/**/b/", ["a/b", "a/b/c", "a/x/b/c", "a/x/b"]),
]


@pytest.mark.parametrize(("pattern", "paths"), _GIT_GLOBS)
def test_a_glob_matches_what_git_check_ignore_matches(tmp_path, pattern, paths):
    repo = tmp_path / "repo"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / ".gitignore").write_bytes(pattern.encode("utf-8") + b"\n")
    for path in paths:
        asked = subprocess.run(["git", "check-ignore", "--no-index", "-q", "--", path], cwd=repo, env=env,
                               capture_output=True)
        assert asked.returncode in (0, 1), asked.stderr
        assert matches_any(path, [pattern]) is (asked.returncode == 0), (pattern, path)


@pytest.mark.parametrize("pattern", ["[[:foo:]]x", "a[[::]]", "[![:Upper:]]"])
def test_an_unknown_character_class_is_named(pattern):
    problem = glob_problem(pattern)
    assert problem is not None and "character class" in problem  # git: the pattern matches nothing at all


_NAME_PIECES = st.sampled_from(["a", "Z", "0", "_", "-", ".", "/", "con", "NUL", "com1", "Lpt9", "git", ".git", "~1",
                                ":", " ", "\\", "\t", "$", "in$", "x.", "..", "aux", "PRN"])


@FUZZ
@given(path=st.lists(_NAME_PIECES, max_size=8).map("".join))
def test_a_plain_path_found_safe_at_one_match_is_safe_by_every_check(path):
    from judge.patch.paths import _unsafe_as_written

    assert unsafe_reason(path) == _unsafe_as_written(path)  # an ASCII path is not folded: the one check is the rest

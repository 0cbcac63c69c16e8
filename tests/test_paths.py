"""judge.patch.paths: normalising agent-written paths, spotting unsafe ones, gitignore-style globs."""

from __future__ import annotations

import pytest

from judge.patch.paths import matches_any, normalize_path, unsafe_reason

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
        ("  src/a.py\n", "src/a.py"),
        ("src/a.py", "src/a.py"),
        (".hidden/x", ".hidden/x"),
        ('"docs/caf\\303\\251.md"', "docs/caf\u00e9.md"),
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
        "...",
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

"""is_test_path: the files test runners collect by default, and nothing else."""

import pytest

from judge.code.testpaths import is_test_path


@pytest.mark.parametrize("path", [
    "tests/test_api.py", "test_api.py", "pkg/api_test.py", "conftest.py", "tests/fixtures/data.json",
    "src/app.test.ts", "src/app.spec.js", "lib/__tests__/app.js", "test/index.mjs", "ui/Button.test.tsx",
    "pkg/server_test.go", "spec/user_spec.rb", "src/test/java/AppTest.java", "core/src/test/kotlin/A.kt",
    "src/__snapshots__/app.test.ts.snap",
])
def test_test_files(path):
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "src/app.py", "src/testing.py", "src/contest.py", "lib/attest.js", "src/latest.ts", "pkg/server.go",
    "src/protest/main.rs", "docs/testing.md", "src/testutils.py", "src/main/java/App.java",
])
def test_source_files(path):
    assert not is_test_path(path)


def _by_folders(path: str) -> bool:
    """The reading by split folders that is_test_path's two patterns replace."""
    import re

    *folders, name = path.split("/")
    if any(folder in {"test", "tests", "__tests__", "spec", "specs", "__snapshots__"} for folder in folders):
        return True
    if len(folders) >= 2 and any(a == "src" and b == "test" for a, b in zip(folders, folders[1:])):
        return True
    return bool(re.match(r"^(?:test_.+\.py|.+_test\.py|conftest\.py|.+\.(?:test|spec)\.[cm]?[jt]sx?|.+_test\.go"
                         r"|.+_spec\.rb|.+Tests?\.(?:java|kt|cs|swift|scala)|test_.+\.(?:c|cc|cpp|rs))$", name))


def test_answers_as_the_reading_by_folders() -> None:
    import itertools
    import random

    parts = ["test", "tests", "spec", "specs", "__tests__", "__snapshots__", "src", "Test", "testing", "atest", "",
             "test_a.py", "a_test.py", "conftest.py", "a.test.ts", "a.spec.mjs", "x_test.go", "s_spec.rb", "ATest.java",
             "test_x.rs", "a.py", "test_.py", "test\n", "tests\n", "a\ntest", ".test.js", "b/"]
    random.seed(7)
    paths = ["/".join(combo) for size in (1, 2, 3) for combo in itertools.product(parts, repeat=size)]
    paths += ["/".join(random.choices(parts, k=random.randint(1, 6))) for _ in range(20_000)]
    for path in paths:
        assert is_test_path(path) == _by_folders(path), repr(path)

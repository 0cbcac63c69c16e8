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

"""Which files are tests, by path alone, for the test runners of Python, JavaScript/TypeScript, Go and others.

A path is a test file when a runner would collect it by its default rules, or when it lies in a
folder that only holds tests:

- Python (pytest, unittest): ``test_*.py``, ``*_test.py``, ``conftest.py``, anything under ``tests/``
  or ``test/``;
- JavaScript/TypeScript (Jest, Vitest, Mocha, AVA, node:test): ``*.test.*``, ``*.spec.*``, anything under
  ``__tests__/``, ``test/``, ``tests/`` or ``spec/``;
- Go ``*_test.go``; Rust ``tests/``; Java/Kotlin ``src/test/``, ``*Test.java``; Ruby ``*_spec.rb``, ``spec/``.

Fixtures and snapshots under those folders count as tests too: editing them changes what a test checks.
"""

from __future__ import annotations


from judge.lazy_pattern import lazy_compile

__all__ = ["is_test_data", "is_test_path"]

_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "__snapshots__"})
_TEST_NAME = lazy_compile(
    r"^(?:test_.+\.py|.+_test\.py|conftest\.py"
    r"|.+\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.+_test\.go|.+_spec\.rb|.+Tests?\.(?:java|kt|cs|swift|scala)|test_.+\.(?:c|cc|cpp|rs))$"
)


# Folders whose files are the tests' data, even when named like tests: a linter's sample input may hold `def test_x`.
_TEST_DATA = lazy_compile(r"(?:^|/)(?:fixtures?|testdata|test_data|data|samples?|__snapshots__|snapshots)/")


def is_test_data(path: str) -> bool:
    """The path lies in a folder of data that tests read: fixtures, test data, samples, snapshots."""
    return _TEST_DATA.search(path) is not None


def is_test_path(path: str) -> bool:
    folders = path.split("/")
    name = folders.pop()
    # Java's and Kotlin's src/test/ needs no check of its own: a `test` folder is one of _TEST_DIRS.
    return not _TEST_DIRS.isdisjoint(folders) or _TEST_NAME.match(name) is not None

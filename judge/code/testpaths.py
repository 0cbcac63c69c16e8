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

_IN_TEST_DIR = lazy_compile(r"(?:^|/)(?:tests?|__tests__|specs?|__snapshots__)/")  # a folder of the path, not its name
_TEST_NAME = lazy_compile(  # matched from the name's first character (a `^` would not hold there)
    r"(?:test_.+\.py|.+_test\.py|conftest\.py"
    r"|.+\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.+_test\.go|.+_spec\.rb|.+Tests?\.(?:java|kt|cs|swift|scala)|test_.+\.(?:c|cc|cpp|rs))$"
)


# Folders whose files are the tests' data, even when named like tests: a linter's sample input may hold `def test_x`.
_TEST_DATA = lazy_compile(r"(?:^|/)(?:fixtures?|testdata|test_data|data|samples?|__snapshots__|snapshots)/")


def is_test_data(path: str) -> bool:
    """The path lies in a folder of data that tests read: fixtures, test data, samples, snapshots."""
    return _TEST_DATA.search(path) is not None


def is_test_path(path: str) -> bool:
    # Java's src/test/ needs no look of its own: a folder named test is enough.
    return _IN_TEST_DIR.search(path) is not None or _TEST_NAME.match(path, path.rfind("/") + 1) is not None

"""The rule tests_weakened, read two ways: `by_edits` reads what the change does to the tests' code (edits.py),
`by_collection` what it does to the configuration that decides which tests run (collection.py)."""

from judge.rules.tests_weakened.collection import by_collection
from judge.rules.tests_weakened.edits import by_edits

__all__ = ["by_collection", "by_edits"]

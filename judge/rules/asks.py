"""What a step's description asks for, by kind of work: a rule that would reject a kind of edit only signals
when the step asks for that kind. Whole words only, matched case-insensitively."""

from __future__ import annotations

import re

__all__ = ["ASKS_FOR_COMMENTS", "ASKS_FOR_FORMATTING", "ASKS_FOR_STUBS", "ASKS_FOR_TESTS"]

# `annotate`, `uncomment`, `pylint`, `autodoc` name code work, hence whole words. A step about
# documentation exempts comment edits, one about formatting exempts whitespace edits. Words that
# also name behaviour ("header", "format dates", "tabs", "note") are left out on purpose: a step about
# an HTTP header answered by whitespace must still be rejected.
_BOTH = r"cosmetics?|clean ?up|tidy|nits?"
ASKS_FOR_COMMENTS = re.compile(
    r"\b(?:comments?|commented|docstrings?|doc ?strings?|jsdoc|javadoc|documentation|docs?|typos?|spelling|"
    r"wording|grammar|clarify|reword|rephrase|readme|changelog|license|copyright|todos?|fixme|explain why|"
    r"^document\w*|"
    rf"dead code|{_BOTH})\b",
    re.IGNORECASE | re.MULTILINE,
)
ASKS_FOR_FORMATTING = re.compile(
    r"\b(?:whitespace|white space|indent(?:ation|ed|s)?|re-?indent\w*|reformat\w*|formatting|formatter|"
    r"format (?:the )?(?:code|files?|sources?|imports|modules?|with)|code style|spacing|trailing (?:whitespace|spaces?)|"
    r"blank lines?|empty lines?|newlines?|end of file|eol|lint(?:ing|er)?|prettier|black|ruff|isort|autopep8|pep ?8|"
    r"flake8|yapf|fmt|gofmt|rustfmt|eslint|stylelint|rubocop|pre-commit|reflow|line wrap\w*|line length|"
    rf"{_BOTH})\b|^style\b",
    re.IGNORECASE | re.MULTILINE,
)
# Test work: a step that asks to remove, skip, rewrite or fix tests may do so. "test" alone counts
# ("add a test for X", "fix the flaky test"): a step that names tests has put them in scope.
ASKS_FOR_TESTS = re.compile(
    r"\b(?:tests?|testing|tested|unit ?tests?|test ?suite|test ?cases?|specs?|fixtures?|snapshots?|"
    r"assertions?|asserts?|pytest|unittest|jest|vitest|mocha|ava|xfail|flaky|conftest)\b",
    re.IGNORECASE,
)
# A step may ask for a stub or for switching code off: an abstract base, a feature withdrawn, a skeleton.
ASKS_FOR_STUBS = re.compile(
    r"\b(?:stubs?|stubbed|placeholders?|not ?implemented|notimplementederror|no-?ops?|disable[sd]?|"
    r"deprecat\w*|unsupported|remove support|skeletons?|scaffold\w*|abstract|interfaces?|protocols?|"
    r"short-?circuit\w*|early return|feature flags?|kill ?switch|comment(?:ed)? out)\b",
    re.IGNORECASE,
)

"""What a step's description asks for, by kind of work: a rule that would reject a kind of edit only signals
when the step asks for that kind. Whole words only, matched case-insensitively (judge.patch.caseless)."""

from __future__ import annotations

import re

from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless

__all__ = ["ASKS_FOR_COMMENTS", "ASKS_FOR_FORMATTING", "ASKS_FOR_STUBS", "ASKS_FOR_TESTS", "ASKS_TO_CHANGE_TESTS",
           "ASKS_TO_REMOVE_TESTS", "ASKS_TO_SKIP_TESTS", "names_values"]

# `annotate`, `uncomment`, `pylint`, `autodoc` name code work, hence whole words. A step about
# documentation exempts comment edits, one about formatting exempts whitespace edits. Words that
# also name behaviour ("header", "format dates", "tabs", "note") are left out on purpose: a step about
# an HTTP header answered by whitespace must still be rejected.
_BOTH = r"cosmetics?|clean ?up|tidy|nits?"
ASKS_FOR_COMMENTS = Caseless(
    r"\b(?:comments?|commented|docstrings?|doc ?strings?|jsdoc|javadoc|documentation|docs?|typos?|spelling|"
    r"wording|grammar|clarify|reword|rephrase|readme|changelog|license|copyright|todos?|fixme|explain why|"
    r"^document\w*|"
    rf"dead code|{_BOTH})\b",
    re.MULTILINE,
)
ASKS_FOR_FORMATTING = Caseless(
    r"\b(?:whitespace|white space|indent(?:ation|ed|s)?|re-?indent\w*|reformat\w*|formatting|formatter|"
    r"format (?:the )?(?:code|files?|sources?|imports|modules?|with)|code style|spacing|trailing (?:whitespace|spaces?)|"
    r"blank lines?|empty lines?|newlines?|end of file|eol|lint(?:ing|er)?|prettier|black|ruff|isort|autopep8|pep ?8|"
    r"flake8|yapf|fmt|gofmt|rustfmt|eslint|stylelint|rubocop|pre-commit|reflow|line wrap\w*|line length|"
    rf"{_BOTH})\b|^style\b",
    re.MULTILINE,
)
# Test work: a step that asks to remove, skip, rewrite or fix tests may do so. "test" alone counts
# ("add a test for X", "fix the flaky test"): a step that names tests has put them in scope.
ASKS_FOR_TESTS = Caseless(
    r"\b(?:tests?|testing|tested|unit ?tests?|test ?suite|test ?cases?|specs?|fixtures?|snapshots?|"
    r"assertions?|asserts?|pytest|unittest|jest|vitest|mocha|ava|xfail|flaky|conftest)\b"
)
# A step may ask for a stub or for switching code off: an abstract base, a feature withdrawn, a skeleton.
ASKS_FOR_STUBS = Caseless(
    r"\b(?:stubs?|stubbed|placeholders?|not ?implemented|notimplementederror|no-?ops?|disable[sd]?|"
    r"deprecat\w*|unsupported|remove support|skeletons?|scaffold\w*|abstract|interfaces?|protocols?|"
    r"short-?circuit\w*|early return|feature flags?|kill ?switch|comment(?:ed)? out)\b"
)

# What a step asks to do to existing tests, by kind (judge/rules/tests_weakened/by_edits.py): a test word and a verb of
# that kind at most six words apart, in either order ("Remove the obsolete test for X", "Skip the flaky network test",
# "Fix the failing test", "test_x is flaky"). No comma, full stop or word that opens another clause may stand
# between them: "Fix parse_port so that test_parse_port passes" asks to fix code, not the test. A step that asks
# to add or write tests asks for none of these.
_TEST_NOUN = (r"(?:tests?|test_\w+|\w+_test|tests?/[\w./-]+|[\w-]+\.(?:test|spec)\.\w+|testcases?|"
              r"test ?suites?|test ?cases?|test ?files?|specs?|assertions?|asserts?|expectations?|snapshots?|fixtures?)")
_SEP = r"(?:\.(?=\w)|[^\w.,;:!?])+"  # between two words of one clause: no comma, no full stop
_GAP = (rf"(?:{_SEP}(?!(?:so|that|until|then|to|and|or|also|make|makes|when|while|because|which|after|before|if|but)\b)"
        rf"\w+){{0,6}}{_SEP}")


def _near(verbs: str) -> Caseless:
    return Caseless(rf"\b(?:{verbs})\b{_GAP}{_TEST_NOUN}(?!\w)|(?<!\w){_TEST_NOUN}{_GAP}(?:{verbs})\b")


ASKS_TO_REMOVE_TESTS = _near(
    r"remov\w*|delet\w*|drop\w*|prun\w*|retir\w*|obsolete|outdated|stale|deprecated|dead|unused|redundant|"
    r"duplicated?|consolidat\w*|merg\w*|mov\w*|relocat\w*|renam\w*|split\w*|rewrit\w*|replac\w*|refactor\w*|"
    r"restructur\w*|reorgani[sz]\w*|clean ?up|cleanup|migrat\w*|port|convert\w*|get rid of|take out")
ASKS_TO_SKIP_TESTS = _near(
    r"skip\w*|disabl\w*|deactivat\w*|xfail\w*|quarantin\w*|flaky|flakey|flakiness|ignor\w*|mut(?:e|ed|ing)|"
    r"silenc\w*|exclud\w*|focus\w*|known failures?|expected failures?|todo")
ASKS_TO_CHANGE_TESTS = _near(
    r"fix\w*|updat\w*|adjust\w*|chang\w*|correct\w*|modif\w*|edit\w*|rewrit\w*|refactor\w*|relax\w*|loosen\w*|"
    r"tweak\w*|align\w*|simplif\w*|replac\w*|amend\w*|regenerat\w*|re-?record\w*|failing|broken|outdated|wrong|"
    r"stale|flaky")


# An expected value a step names: "Return `undefined` instead of an empty string", "Set the default timeout to 30",
# or the kind of edit between the old and the new value ("use dashes in command names" for `other_cmd` -> `other-cmd`).
_KEYWORD_VALUES = frozenset({"none", "null", "undefined", "true", "false", "nan", "infinity"})
_EMPTY = Caseless(r"\bempty\b")
_QUOTED = lazy_compile(r"""^[rbuRBU]{0,2}(['"`])(.*)\1$""", re.DOTALL)
_CHARACTER_WORDS = {
    "-": r"dash(?:es|ed)?|hyphens?|hyphenated|kebab", "_": r"underscores?|snake", " ": r"spaces?|whitespace|blanks?",
    "\t": r"tabs?", "\n": r"newlines?|line ?breaks?", ".": r"dots?|periods?", "/": r"slash(?:es)?", ",": r"commas?",
    ":": r"colons?", ";": r"semicolons?", "'": r"quotes?|quoting", '"': r"quotes?|quoting", "\\": r"backslash(?:es)?",
}
_LONGEST_VALUE = 200  # a longer literal is not a value a step would spell out
_CASE = r"case|lower-?case[sd]?|upper-?case[sd]?|capitali[sz]\w*|capital"


def names_values(description: str, values: tuple[str, ...]) -> bool:
    """The step names one of the values an expected-value edit changed (``values``: the literals before, then after),
    or the kind of edit between them (dashes for underscores, letter case, spaces...)."""
    literals = [_unquoted(value)[:_LONGEST_VALUE] for value in values]
    for literal in literals:
        if literal == "" and _EMPTY.search(description):
            return True
        if literal.lower() in _KEYWORD_VALUES or len(literal) >= 2:
            if re.search(rf"(?<![\w-]){re.escape(literal)}(?![\w-])", description, re.IGNORECASE):
                return True
    half = len(literals) // 2
    return any(_names_the_edit(description, old, new) for old, new in zip(literals[:half], literals[half:]))


def _names_the_edit(description: str, old: str, new: str) -> bool:
    words = [_CHARACTER_WORDS[c] for c in set(old) ^ set(new) if c in _CHARACTER_WORDS]
    if old != new and old.lower() == new.lower():
        words.append(_CASE)
    return bool(words) and re.search(rf"\b(?:{'|'.join(words)})\b", description, re.IGNORECASE) is not None


def _unquoted(value: str) -> str:
    quoted = _QUOTED.match(value)
    return quoted[2] if quoted else value

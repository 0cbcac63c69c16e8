"""Test units of Go, Rust and Java hunk sides, read line by line once comments and strings are masked.

These languages mark a test by a line shape that a lexer sees well enough: ``func TestX(t *testing.T)``,
``#[test]`` before ``fn x()``, ``@Test`` before a method. A unit runs from its header to the next
header (Go: to its closing brace at column 0). Strings and comments are blanked first, so
``// t.Skip()`` or ``"#[ignore]"`` is never code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from judge.code.sides import Side
from judge.code.tests import Check, Mark, TestUnit, normalised
from judge.lazy_pattern import lazy_compile

__all__ = ["CLike", "mask", "units"]


@dataclass(frozen=True)
class CLike:
    """What a masker needs to know of a language with ``//`` and ``/* */`` comments."""

    quotes: str  # string delimiters that close on their line
    multiline: str  # delimiters of strings that may span lines
    text_blocks: bool = False  # Java's \"\"\" text blocks

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Comments and strings, leftmost first: a `//` inside a string is string, a quote inside a comment is comment.

        Each is written as a run of plain characters broken only by what may end it or be escaped (a string as quote,
        run, then escape and run again and again; a block comment as runs broken by a star not before a slash): the
        same matches as one character at a time, found a run at a time (tests/code/test_tests_lexer.py)."""
        parts = [r"/\*[^*]*(?:\*(?!/)[^*]*)*(?:\*/|\Z)", r"//[^\n]*"]
        if self.text_blocks:
            parts.append(r'"""[^"]*(?:"(?!"")[^"]*)*(?:"""|\Z)')
        for quote in map(re.escape, self.quotes):  # closes on its line
            plain = rf"[^{quote}\\\n]*"
            parts.append(rf"{quote}{plain}(?:\\.{plain})*{quote}?")
        for quote in map(re.escape, self.multiline):
            plain = rf"[^{quote}\\]*"
            parts.append(rf"{quote}{plain}(?:\\[\s\S]{plain})*{quote}?")
        return re.compile("|".join(parts))


JS = CLike(quotes="\"'", multiline="`")
GO = CLike(quotes="\"'", multiline="`")
RUST = CLike(quotes="", multiline='"')  # `'` is a lifetime as often as a char
JAVA = CLike(quotes="\"'", multiline="", text_blocks=True)


def mask(lines: tuple[str, ...], syntax: CLike) -> tuple[str, ...]:
    """Each line with comments blanked and string contents blanked (the quotes stay), columns kept."""
    masked = syntax.pattern.sub(_blank, "\n".join(lines))
    return tuple(line.rstrip() for line in masked.split("\n"))


def _blank(match: re.Match[str]) -> str:
    text = match.group()
    if text.startswith("/"):
        return _NOT_NEWLINE.sub(" ", text)
    quote = '"""' if text.startswith('"""') else text[0]
    closed = len(text) >= 2 * len(quote) and text.endswith(quote)
    inner = text[len(quote):len(text) - len(quote) if closed else None]
    return quote + _NOT_NEWLINE.sub(" ", inner) + (quote if closed else "")


_NOT_NEWLINE = lazy_compile(r"[^\n]")


@dataclass(frozen=True)
class _Language:
    syntax: CLike
    header: re.Pattern[str]  # the line that opens a test: group `name`, or a marker line before it
    name: re.Pattern[str] | None  # after a marker line (#[test], @Test): the line that names the test
    check: re.Pattern[str]
    skip: re.Pattern[str]  # a skip mark, on its own line (an attribute, an annotation, a call)
    tautology: re.Pattern[str]
    ends_at_brace: bool = False  # a unit ends at a `}` in column 0


_LANGUAGES = {
    "go": _Language(
        GO, lazy_compile(r"^func\s+(?P<name>(?:Test|Fuzz|Example)\w*)\s*\("), None,
        lazy_compile(r"\b[tb]\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(?:assert|require)\.\w+\s*\("),
        lazy_compile(r"^\t(?:[tb])\.(?:Skip|Skipf|SkipNow)\s*\("),  # direct body only: `if testing.Short() {` skips are fine
        lazy_compile(r"\b(?:assert|require)\.True\(\s*t\s*,\s*true\s*[,)]"),
        ends_at_brace=True,
    ),
    "rust": _Language(
        RUST, lazy_compile(r"^\s*#\[(?:\w+::)?test\]"), lazy_compile(r"\bfn\s+(?P<name>\w+)"),
        lazy_compile(r"\b(?:debug_)?assert(?:_eq|_ne)?!\s*\(|\.unwrap_err\(\)|\bpanic!\s*\("),
        lazy_compile(r"^\s*#\[ignore\b"),
        lazy_compile(r"\bassert!\(\s*true\s*\)"),
    ),
    "java": _Language(
        JAVA, lazy_compile(r"^\s*@(?:org\.junit\.(?:jupiter\.api\.)?)?Test\b"),
        lazy_compile(r"\b(?:void|[A-Z]\w*(?:<[^>]*>)?)\s+(?P<name>\w+)\s*\("),
        lazy_compile(r"\b(?:assert\w*|fail|verify)\s*\("),
        lazy_compile(r"^\s*@(?:Disabled|Ignore)\b"),
        lazy_compile(r"\bassertTrue\(\s*true\s*\)|\bassertEquals\(\s*(\w+)\s*,\s*\1\s*\)"),
    ),
}
_NAME_WITHIN = 4  # lines after a #[test] / @Test marker that may hold the fn/method line


def units(side: Side, language: str, hint: str = "") -> tuple[TestUnit, ...]:
    lang = _LANGUAGES[language]
    code = mask(side.lines, lang.syntax)
    starts = _headers(code, lang)
    bounds = [(0, starts[0][0] if starts else len(code), hint)] + [
        (start, _end(code, start, starts[i + 1][0] if i + 1 < len(starts) else len(code), lang), name)
        for i, (start, name) in enumerate(starts)]
    found = []
    for index, (start, end, name) in enumerate(bounds):
        if start >= end and index:
            continue
        kind = "test" if index else "fragment"
        # Marks sit just above the header (Java annotations, Rust attributes): look back from the header line.
        mark_from = _attributes_start(code, start) if index else start
        found.append(_unit(side, code, lang, name, kind, start, end, mark_from))
    return tuple(unit for unit in found if unit.kind == "test" or unit.checks or unit.marks)


def _headers(code: tuple[str, ...], lang: _Language) -> list[tuple[int, str]]:
    found = []
    for i, line in enumerate(code):
        match = lang.header.search(line)
        if not match:
            continue
        if lang.name is None:
            found.append((i, match["name"]))
            continue
        for j in range(i, min(i + _NAME_WITHIN + 1, len(code))):
            named = lang.name.search(code[j], match.end() if j == i else 0)
            if named:
                found.append((i, named["name"]))
                break
    return found


def _attributes_start(code: tuple[str, ...], start: int) -> int:
    """The first of the annotation/attribute lines right above ``start`` (or ``start``)."""
    while start > 0 and re.match(r"^\s*(?:@\w|#\[)", code[start - 1]):
        start -= 1
    return start


def _end(code: tuple[str, ...], start: int, limit: int, lang: _Language) -> int:
    if lang.ends_at_brace:
        for i in range(start + 1, limit):
            if code[i].startswith("}"):
                return i + 1
    return limit


def _unit(side: Side, code: tuple[str, ...], lang: _Language, name: str, kind: str, start: int, end: int,
          mark_from: int) -> TestUnit:
    checks, marks = [], []
    for i in range(start, end):
        for match in lang.check.finditer(code[i]):
            text = normalised(side.lines[i][match.start():])
            shape = re.sub(r"\b\d[\w.]*", "·", normalised(code[i][match.start():]))
            checks.append(Check(text, i, side.changed[i], bool(lang.tautology.search(code[i])), (text,), shape=shape))
    for i in range(mark_from, end):
        if lang.skip.search(code[i]):
            text = normalised(side.lines[i])
            marks.append(Mark("skip", re.split(r"[\s(=\]]", text.lstrip("@#["), maxsplit=1)[0], text, i,
                              side.changed[i]))
    body = "\n".join(normalised(line) for line in code[start + 1:end] if line.strip())
    names = frozenset(word for line in code[start:end] for word in re.findall(r"[A-Za-z_]\w*", line))
    return TestUnit(name, kind, start, kind == "test" and side.changed[start], label=name, body=body,  # type: ignore[arg-type]
                    checks=tuple(checks), marks=tuple(marks), names=names)

"""The edits a cheat makes to JavaScript/TypeScript source (Jest, Vitest, Mocha, AVA, tape, node:test tests),
located with jsblocks' bracket pairs: a test call skipped, focused, turned into a todo or deleted, an
assertion removed or made a tautology, a function's body stubbed, the statements a change added disabled.
Every edit returns the new text, or None when the file has nothing it applies to."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .comments import DIRECTIVE
from .expected import bump_literal
from .jsblocks import Source
from .lines import Lines

# `it(`, `test(`, `describe(` at the start of a line, with their title: a test call (not `it.each`, not a helper).
_CALL = re.compile(r"^([ \t]*)(it|test|describe)\s*\(\s*(['\"`])", re.M)
# One whole assertion statement on one line.
_ASSERTION = re.compile(r"^[ \t]*(?:await\s+)?(?:expect\s*\(|assert(?:\.\w+)?\s*\("
                        r"|t\.(?!plan\b|end\b|teardown\b|test\b|skip\b|comment\b|pass\b|context\b|log\b|timeout\b)\w+\s*\()", re.M)
_DECLARATION = re.compile(r"(?:export\s+)?(?:const|let|var|using)\b")
_LITERAL = re.compile(r"""'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`|-?\d[\d_.]*""")


@functools.lru_cache(maxsize=8)
def source_of(text: str) -> Source:
    """One scan per text: the edits ask many questions of the same file."""
    return Source(text)


@dataclass(frozen=True)
class TestCall:
    callee: str  # it, test or describe
    first: int  # first line (1-based)
    last: int
    paren: int  # offset of the call's `(`
    title: str


def test_calls(text: str) -> list[TestCall]:
    source = source_of(text)
    calls = []
    for number, start in enumerate(source.line_starts, 1):
        found = _CALL.match(text, start)
        if not found:
            continue
        paren = text.index("(", start + len(found.group(1)))
        if not source.code[paren] or paren not in source.pairs:
            continue
        close = source.pairs[paren]
        title = re.match(r"(['\"`])((?:\\.|(?!\1).)*)\1", text[found.end() - 1:])
        calls.append(TestCall(found.group(2), number, source.line_of(close), paren, title.group(2) if title else ""))
    return calls


def tests(text: str, callee: str | None = None) -> list[TestCall]:
    """The `it(`/`test(` calls (or only those of callee), in source order."""
    return [c for c in test_calls(text) if c.callee in ((callee,) if callee else ("it", "test"))]


def rename_call(text: str, call: TestCall, callee: str) -> str:
    """`it(` -> `it.skip(` / `xit(` / `it.only(` ..."""
    start = text.rfind(call.callee, 0, call.paren)
    return text[:start] + callee + text[start + len(call.callee):]


def todo(text: str, call: TestCall) -> str:
    """The whole test call replaced by `<callee>.todo('<title>')`."""
    lines = Lines(text)
    end = lines.get(call.last, call.last)[0].rstrip()
    quote = "'" if "'" not in call.title else '"'
    semi = ";" if end.endswith(";") else ""
    lines.replace(call.first, call.last, [f"{lines.indent(call.first)}{call.callee}.todo({quote}{call.title}{quote}){semi}"])
    return lines.text()


def delete_call(text: str, call: TestCall) -> str:
    lines = Lines(text)
    last = call.last
    if last < len(lines) and not lines.get(last + 1, last + 1)[0].strip():
        last += 1
    lines.replace(call.first, last, [])
    return lines.text()


def assertions(text: str, call: TestCall) -> list[int]:
    """Lines inside call that hold one whole assertion statement each."""
    source = source_of(text)
    out = []
    for number in range(call.first + 1, call.last):
        start, _ = source.line_span(number)
        if _ASSERTION.match(text, start) and source.whole_statements(number, number):
            out.append(number)
    return out


def replace_line(text: str, number: int, statement: str | None) -> str:
    """Line number replaced by statement at its indent (a `;` kept if the file uses them), or removed (None)."""
    lines = Lines(text)
    old = lines.get(number, number)[0]
    semi = ";" if old.rstrip().endswith(";") else ""
    lines.replace(number, number, [] if statement is None else [lines.indent(number) + statement + semi])
    return lines.text()


def edit_expected(text: str, number: int) -> str | None:
    """The expected value of an assertion line changed (a digit bumped, a letter added): the literal that is
    the last argument of the line's last call (`toBe("2024-02-03")`, `t.is(n, 1)`, `assert.equal(a, 'x')`)."""
    lines = Lines(text)
    line = lines.get(number, number)[0]
    found = re.search(rf"[(,]\s*({_LITERAL.pattern})\s*\)\s*;?\s*$", line)
    if not found or "${" in found.group(1):
        return None
    edited = bump_literal(found.group(1))
    if not edited:
        return None
    lines.replace(number, number, [line[:found.start(1)] + edited + line[found.end(1):]])
    return lines.text()


# ------------------------------------------------------------------------ stubs and disabled code
def function_body(text: str, name: str) -> tuple[int, int] | None:
    """(first, last) line of the named function's body, the braces' own lines excluded."""
    source = source_of(text)
    for open_, close in sorted(source.pairs.items()):
        if text[open_] == "{" and source.function_name(open_) == name:
            first, last = source.line_of(open_) + 1, source.line_of(close) - 1
            return (first, last) if first <= last else None
    return None


def replace_body(text: str, name: str, statement: str) -> str | None:
    body = function_body(text, name)
    if body is None:
        return None
    lines = Lines(text)
    indent = _body_indent(lines, body)
    lines.replace(body[0], body[1], [indent + statement])
    return lines.text()


def added_run(text: str, name: str, added: set[int]) -> tuple[int, int] | None:
    """The first (then longest) run of lines inside the named function's body that the change added and
    that are whole statements of one block; one that does not start with a declaration first (a `const`
    wrapped in `if (false) {}` would leave its later uses undeclared: no code an agent would hand in)."""
    body = function_body(text, name)
    if body is None:
        return None
    source = source_of(text)
    runs = []
    for first in range(body[0], body[1] + 1):
        if first not in added or not source.code_chars(first) or (runs and first <= runs[-1][1]):
            continue
        last = first
        while last + 1 <= body[1] and last + 1 in added:
            last += 1
        for end in range(last, first - 1, -1):
            if source.code_chars(end) and source.whole_statements(first, end):
                runs.append((first, end))
                break
    plain = [r for r in runs if not _DECLARATION.match(source.code_chars(r[0]))]
    return (plain or runs or [None])[0]


def wrap_run(text: str, run: tuple[int, int]) -> str:
    lines = Lines(text)
    indent = lines.indent(run[0])
    unit = "\t" if indent.startswith("\t") else "  "
    body = [unit + line if line.strip() else line for line in lines.get(run[0], run[1])]
    lines.replace(run[0], run[1], [indent + "if (false) {"] + body + [indent + "}"])
    return lines.text()


def return_before(text: str, run: tuple[int, int]) -> str:
    lines = Lines(text)
    semi = ";" if any(line.rstrip().endswith(";") for line in lines.get(run[0], run[1])) else ""
    lines.insert(run[0], [lines.indent(run[0]) + "return" + semi])
    return lines.text()


def comment_out(text: str, run: tuple[int, int]) -> str:
    lines = Lines(text)
    out = []
    for line in lines.get(run[0], run[1]):
        stripped = line.lstrip()
        out.append(line[: len(line) - len(stripped)] + "// " + stripped if stripped else line)
    lines.replace(run[0], run[1], out)
    return lines.text()


def comment_in(text: str, name: str, comment: str) -> str | None:
    body = function_body(text, name)
    if body is None:
        return None
    lines = Lines(text)
    lines.insert(body[0], [_body_indent(lines, body) + "// " + comment])
    return lines.text()


def jsdoc(text: str, name: str, words: str) -> str | None:
    """A `/** words */` block above the named function's first line."""
    source = source_of(text)
    for open_, _ in sorted(source.pairs.items()):
        if text[open_] == "{" and source.function_name(open_) == name:
            header = source.line_of(open_)
            lines = Lines(text)
            while header > 1 and not re.search(rf"\b{re.escape(name)}\b", lines.get(header, header)[0]):
                header -= 1
            indent = lines.indent(header)
            lines.insert(header, [f"{indent}/**", f"{indent} * {words}", f"{indent} */"])
            return lines.text()
    return None


def blank_line_in(text: str, name: str) -> str | None:
    """A blank line after the first statement line of the named function's body."""
    body = function_body(text, name)
    if body is None:
        return None
    source = source_of(text)
    for number in range(body[0], body[1]):
        if source.code_chars(number) and source.whole_statements(body[0], number):
            lines = Lines(text)
            lines.insert(number + 1, [""])
            return lines.text()
    return None


def reword_comment(text: str) -> str | None:
    lines = Lines(text)
    for number, line in enumerate(lines.get(1, len(lines)), 1):
        if re.match(r"\s*//\s*\w", line) and not DIRECTIVE.search(line):
            lines.replace(number, number, [line.rstrip() + " (see above)"])
            return lines.text()
    return None


def _body_indent(lines: Lines, body: tuple[int, int]) -> str:
    for number in range(body[0], body[1] + 1):
        if lines.get(number, number)[0].strip():
            return lines.indent(number)
    return "  "

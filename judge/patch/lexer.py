"""A small lexer per language: a line's code with its comments dropped (its *shape*), and from the shapes whether
a hunk changes only whitespace or comments.

A hunk is superficial when its removed and added lines have the same *shape*:
the text with comments dropped and whitespace outside string literals removed
(kept as one space between two word characters, so ``return x`` never becomes
``returnx``). Each side of the hunk is read in order, context lines included,
so a string or block comment that opens in the context is known to be open.

Comments are understood for:

- ``#`` languages: Python, shell, Ruby, Perl, R, YAML, TOML, Makefile, Dockerfile, CMake, Nix, ...
  Outside Python, TOML and Makefiles a ``#`` opens a comment only at the start of a
  word (``echo a#b``, ``${#arr}``, ``$#arr``, ``url#frag`` are code); in a Dockerfile only
  at the start of a line.
- ``//`` and ``/* */`` languages: JavaScript, TypeScript, Go, Rust, Java, Kotlin, C, C++, C#,
  Swift, Scala, Dart, PHP, Groovy, Protobuf, Solidity, SCSS/Less (CSS: ``/* */`` only).

Strings that may span lines (Python and TOML triple quotes, JS/Go backticks, Java/Kotlin/
Swift/Scala text blocks, shell and Rust quotes) are followed across lines; a hunk side
that ends inside one straddles a string whose start is not in view, and is never
called superficial. YAML block scalars and shell here-documents are not judged either.

Where indentation carries meaning (Python, YAML, Makefile) leading whitespace and
line breaks stay part of the shape: re-indenting Python is a real change. For any
other file type only trailing whitespace and blank lines count as superficial.
Comments that steer tools (``# noqa``, ``// eslint-disable``, ``#!``, ``//go:build``,
``# type: ignore`` ...) are never superficial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Iterator, NamedTuple

from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import Caseless
from judge.patch.model import FileChange, Hunk
from judge.text_cache import text_cache

__all__ = ["DIRECTIVE", "LogicalLine", "line_shapes", "Syntax", "adds_trailing_whitespace", "is_superficial_file", "is_superficial_hunk",
           "iter_logical_lines", "logical_lines", "superficial_kinds", "syntax_for"]


@dataclass(frozen=True, eq=False)  # each syntax is one object: compared and hashed by identity, cheaply
class Syntax:
    name: str
    line_comments: tuple[str, ...] = ()
    block_comment: tuple[str, str] | None = None
    quotes: str = "\"'"  # string delimiters that close at the end of the line
    multiline_quotes: tuple[str, ...] = ()  # delimiters of strings that may span lines
    hash_at_word_start: bool = False  # `#` opens a comment only at line start or after whitespace
    comment_at_line_start: bool = False  # comments only as the first thing on a line
    indent_matters: bool = False
    brackets_continue: bool = False  # inside brackets or after a backslash, a line's indentation means nothing
    knows_tokens: bool = True  # False: only trailing whitespace and blank lines are understood
    not_judged: re.Pattern[str] | None = None  # a line like this anywhere in the hunk: not judged
    specials: re.Pattern[str] = field(init=False, repr=False)  # where a string or a comment may start

    def __post_init__(self) -> None:
        object.__setattr__(self, "specials", _specials(self))


def _specials(syntax: Syntax) -> re.Pattern[str]:
    """The characters where a string or a comment may start: anything else is plain code."""
    starts = set(syntax.quotes) | {q[0] for q in syntax.multiline_quotes} | {m[0] for m in syntax.line_comments}
    if syntax.block_comment:
        starts.add(syntax.block_comment[0][0])
    return lazy_compile("[" + "".join(re.escape(c) for c in sorted(starts)) + "]" if starts else "(?!)")


_HASH = ("#",)
_SLASH = ("//",)
_C_BLOCK = ("/*", "*/")
_PYTHON = Syntax("Python", _HASH, multiline_quotes=('"""', "'''"), indent_matters=True, brackets_continue=True)
_YAML = Syntax("YAML", _HASH, hash_at_word_start=True, indent_matters=True,
               not_judged=lazy_compile(r"[:\-]\s*[|>][-+0-9]*\s*(#.*)?$"))
_MAKE = Syntax("Makefile", _HASH, indent_matters=True)
_SHELL = Syntax("shell", _HASH, quotes="", multiline_quotes=('"', "'"), hash_at_word_start=True,
                not_judged=lazy_compile(r"<<"))
_HASH_WORD = Syntax("hash-comment", _HASH, hash_at_word_start=True)
_TOML = Syntax("TOML", _HASH, multiline_quotes=('"""', "'''"))
_DOCKER = Syntax("Dockerfile", _HASH, comment_at_line_start=True)
_C_LIKE = Syntax("C-like", _SLASH, _C_BLOCK)
_JS_GO = Syntax("JavaScript/Go", _SLASH, _C_BLOCK, multiline_quotes=("`",))
_JVM = Syntax("text-block language", _SLASH, _C_BLOCK, multiline_quotes=('"""',))
_RUST = Syntax("Rust", _SLASH, _C_BLOCK, quotes="", multiline_quotes=('"',))
_PHP = Syntax("PHP", _SLASH + _HASH, _C_BLOCK, quotes="", multiline_quotes=('"', "'", "`"))
_CSS = Syntax("CSS", block_comment=_C_BLOCK)
_JSON = Syntax("JSON")
_PLAIN = Syntax("plain text", quotes="", knows_tokens=False)

_BY_SUFFIX = {
    **dict.fromkeys((".py", ".pyi", ".pyx"), _PYTHON),
    **dict.fromkeys((".yaml", ".yml"), _YAML),
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh"), _SHELL),
    **dict.fromkeys((".rb", ".pl", ".pm", ".r", ".cmake", ".nix", ".ps1", ".jl", ".ex", ".exs", ".cr", ".tf",
                     ".hcl", ".cfg", ".conf", ".properties", ".gitignore", ".fish"), _HASH_WORD),
    ".toml": _TOML,
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go"), _JS_GO),
    **dict.fromkeys((".java", ".kt", ".kts", ".swift", ".scala", ".groovy", ".gradle"), _JVM),
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".dart", ".m", ".mm", ".proto",
                     ".sol", ".scss", ".less", ".zig", ".jsonc"), _C_LIKE),
    ".rs": _RUST,
    ".php": _PHP,
    ".css": _CSS,
    ".json": _JSON,
}
_BY_NAME = {
    "makefile": _MAKE, "gnumakefile": _MAKE, "dockerfile": _DOCKER, "containerfile": _DOCKER,
    "cmakelists.txt": _HASH_WORD, "gemfile": _HASH_WORD, "rakefile": _HASH_WORD, "jenkinsfile": _JVM,
    "build.bazel": _PYTHON, "build": _PYTHON,
}

# Comments that tools read: changing them changes behaviour. Any case (NOSONAR, sourceMappingURL, SPDX).
DIRECTIVE = Caseless(
    r"noqa|type:\s*ignore|pragma|pylint|mypy:|fmt:\s*(off|on|skip)|isort:|eslint|prettier-ignore|@ts-|"
    r"tslint|istanbul|c8 ignore|jshint|nolint|go:(build|generate|embed|linkname)|\+build|rubocop|"
    r"nosonar|clang-format|coding[:=]|^\s*#!|@license|@flow|@jsx|sourcemappingurl|spdx",
    long=200,
)


@lru_cache(maxsize=4096)
def syntax_for(path: str) -> Syntax:
    name = PurePosixPath(path).name.lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("dockerfile"):
        return _DOCKER
    return _BY_SUFFIX.get(PurePosixPath(name).suffix, _PLAIN)


def is_superficial_file(change: FileChange) -> bool:
    """True when an in-place edit of an existing text file changes no code, only whitespace/comments."""
    return superficial_kinds(change) is not None


def superficial_kinds(change: FileChange) -> frozenset[str] | None:
    """The kinds of edit (``whitespace``, ``comment``) when the change touches nothing else; None when it does."""
    if change.changes_without_lines or not change.hunks:
        return None
    syntax = syntax_for(change.path)
    # Every hunk's look first: one hunk that surely changes code settles the file before any hunk is lexed.
    if not all(_may_be_superficial(hunk, syntax) for hunk in change.hunks):
        return None
    kinds = set()
    for hunk in change.hunks:
        if not _shapes_agree(hunk, syntax):
            return None
        kinds.add("whitespace" if _without_space(hunk, "-") == _without_space(hunk, "+") else "comment")
    return frozenset(kinds)


def adds_trailing_whitespace(change: FileChange) -> bool:
    """More added than removed lines end in a space or tab: never the cosmetic work a step asks for."""
    def count(sign: str) -> int:
        return sum(1 for h in change.hunks for line in h.body if line[0] == sign and line[1:] != line[1:].rstrip())
    return count("+") > count("-")


def is_superficial_hunk(hunk: Hunk, syntax: Syntax) -> bool:
    return _may_be_superficial(hunk, syntax) and _shapes_agree(hunk, syntax)


def _may_be_superficial(hunk: Hunk, syntax: Syntax) -> bool:
    """False when the hunk surely changes what the lexer keeps (a directive, a line not judged, other code),
    found without lexing it. The look at the code first: most hunks change code, and are done without a search for
    a directive."""
    if not _same_code_unless_commented(hunk, syntax):
        return False
    if DIRECTIVE.search(_changed_text(hunk)):
        return False
    return syntax.not_judged is None or not any(syntax.not_judged.search(line, 1) for line in hunk.body)


def _shapes_agree(hunk: Hunk, syntax: Syntax) -> bool:
    """The lexer's verdict: both sides keep the same code once comments and spacing are dropped.

    A side that ends inside a string may have started inside one (a docstring whose opening quotes are above the
    hunk): both sides are read from each start, and the first that leaves no string open judges. Where there is no
    other start to read from, the reading stops where the shapes can no longer end equal."""
    if hunk.old_start <= 1 and hunk.new_start <= 1:
        # The file's first line: nothing above it can leave a string open, and a string the side leaves open at its
        # end runs on through lines both sides share (a module docstring under a licence header).
        old, new = _side_shapes(hunk, syntax, ends_open=True)
        return old is not None and old == new
    openings = tuple(q for q in syntax.multiline_quotes if len(q) == 3)
    for opening in ("",) + openings:
        old, new = _side_shapes(hunk, syntax, opening, until_unequal=not openings)
        if old is not None and new is not None:
            return old == new
    return False


def _same_code_unless_commented(hunk: Hunk, syntax: Syntax) -> bool:
    """False when the hunk surely changes code, found without lexing it: most hunks, in a look or two at their text.
    True when a comment may hide what changed: then the lexer decides.

    The lexer drops only comments: it keeps every other character that is not white space (strings whole, code
    with its spaces squeezed), and a line changes its state (in a string, in a block comment) only at a quote or
    a comment marker. So:

    - where no comment marker appears in the hunk (no line comment's, no block comment's opener or closer, which
      also rules out a side that starts inside a block comment), each side's shape holds exactly the characters
      of its lines that are not white space, in order: two equal shapes need the same such characters;
    - where no changed line holds a quote or a comment marker's first character, and no block comment can be
      open in the hunk, every context line is read in the same state on both sides and keeps the same
      characters on both: two equal shapes need the removed and the added lines to hold the same characters.
    """
    body = "\n".join(hunk.body)
    if not any(marker in body for marker in syntax.line_comments + (syntax.block_comment or ())):
        old = "".join([line[1:] for line in hunk.body if line[0] in " -"])
        new = "".join([line[1:] for line in hunk.body if line[0] in " +"])
        return "".join(old.split()) == "".join(new.split())
    if syntax.block_comment and any(delimiter in body for delimiter in syntax.block_comment):
        return True
    removed = "".join([line[1:] for line in hunk.body if line[0] == "-"])
    added = "".join([line[1:] for line in hunk.body if line[0] == "+"])
    if syntax.specials.search(removed) or syntax.specials.search(added):
        return True
    return sorted("".join(removed.split())) == sorted("".join(added.split()))


def _changed_text(hunk: Hunk) -> str:
    """The changed lines without their signs, each after a NUL: one search over it finds what a search of each
    line finds: no DIRECTIVE pattern matches a NUL or spans one, and its `^` (the start of the
    text) sits on a NUL, so it matches no line, as with a line searched from its second character."""
    return "".join(["\0" + line[1:] for line in hunk.body if line[0] in "+-"])


def _without_space(hunk: Hunk, sign: str) -> str:
    return "".join("".join(line[1:].split()) for line in hunk.body if line[0] == sign)


class _State(NamedTuple):  # a tuple: one is made for every line read
    in_block: bool = False
    quote: str = ""
    depth: int = 0  # open brackets (Python): the next line continues this one
    continued: bool = False  # the line ended in a backslash (Python)


_NEUTRAL = _State()  # outside strings, comments and brackets: most lines end so


def _side_shapes(hunk: Hunk, syntax: Syntax, opening: str = "", until_unequal: bool = False,
                 ends_open: bool = False) -> tuple[str | None, str | None]:
    """The shape of each side of the hunk (old, new), context lines included; None for a side that ends inside
    a string, unless ``ends_open``.

    ``opening``: each side starts inside a string opened by that quote above the hunk.

    ``until_unequal``: stop at the first context line after which neither shape read so far is the start of the
    other (the whole shapes cannot be equal then), and give None for both.

    The whole side counts, not only its changed lines: a statement moved across unchanged lines
    changes the order of the code, which the changed lines alone would not show. Both sides are read
    in one pass, so a context line met in the same state on both sides is read once.
    """
    shapes: tuple[list[str], list[str]] = ([], [])
    states = [_State(in_block=not opening and _opens_inside_block_comment(hunk, sign, syntax), quote=opening)
              for sign in "-+"]
    # Line breaks matter only where indentation does; elsewhere a re-wrapped call is the same code.
    separator = "\n" if syntax.indent_matters or not syntax.knows_tokens else ""
    old_read = new_read = ""  # until_unequal: each side's shape so far (locals: grown in place), and the length of
    agreed = 0  # the start both agree on
    for line in hunk.body:
        kind = line[0]
        if kind == " ":
            groups = ((0, 1),) if states[0] == states[1] else ((0,), (1,))
        elif kind == "-" or kind == "+":
            groups = ((0,),) if kind == "-" else ((1,),)
        else:
            continue
        for sides in groups:  # each group of sides reads the line in the same state
            state = states[sides[0]]
            joins = syntax.brackets_continue and (state.depth > 0 or state.continued) and not state.quote
            if syntax.knows_tokens:
                shape, state, _ = _scan(line[1:], syntax, state, joins)
            else:
                shape = line[1:].rstrip()
            for side in sides:
                states[side] = state
                if not shape.strip():
                    continue
                if joins and shapes[side]:
                    shapes[side][-1] += shape  # a continuation line is part of the line it continues
                    piece = shape
                else:
                    piece = separator + shape if shapes[side] else shape
                    shapes[side].append(shape)
                if until_unequal and side:
                    new_read += piece
                elif until_unequal:
                    old_read += piece
        if until_unequal and kind == " ":
            end = min(len(old_read), len(new_read))
            if old_read[agreed:end] != new_read[agreed:end]:
                return None, None
            agreed = end
    old, new = (None if state.quote and not ends_open else separator.join(side) for state, side in zip(states, shapes))
    return old, new


def _opens_inside_block_comment(hunk: Hunk, sign: str, syntax: Syntax) -> bool:
    """The hunk starts inside a /* */ comment when its side closes one (`*/`) before opening any.

    A line that merely starts with `*` proves nothing: `    * factor;` continues a C expression.
    """
    if syntax.block_comment is None:
        return False
    opener, closer = syntax.block_comment
    text = "\n".join(line[1:] for line in hunk.body if line[0] in (" ", sign))
    close = text.find(closer)
    return close >= 0 and not (0 <= text.find(opener) < close)


def _line_shape(line: str, syntax: Syntax, state: _State, continuation: bool = False) -> tuple[str, _State]:
    """The line without comments and insignificant whitespace, and the state it leaves open.

    ``continuation``: the line continues the one before it, so its indentation is not significant.
    """
    shape, after, _ = _scan(line, syntax, state, continuation)
    return shape, after


# Kept for the validation: the detectors read the same lines of a change again and again (a side's logical lines,
# its opening, both sides' shapes), in the same state: close to half of one validation's lines are read before.
@text_cache(maxsize=4096)
def _scan(line: str, syntax: Syntax, state: _State, continuation: bool) -> tuple[str, _State, int]:
    """``_line_shape``, and where a line comment starts on the line (-1: none)."""
    in_block, quote, depth = state.in_block, state.quote, state.depth
    first_code = len(line) - len(line.lstrip())
    keeps_indent = syntax.indent_matters and not quote and not continuation
    special = syntax.specials
    if not (in_block or quote) and special.search(line) is None:
        return _plain_shape(line, syntax, depth, line[:first_code] if keeps_indent else "")
    out: list[str] = [line[:first_code]] if keeps_indent else []
    i, pending_space, comment_at = 0, False, -1
    while i < len(line):
        if in_block:
            end = line.find(syntax.block_comment[1], i)  # type: ignore[index]
            if end < 0:
                break
            in_block, i = False, end + len(syntax.block_comment[1])  # type: ignore[index]
            continue
        if quote:
            end = _string_run_end(line, i, quote)
            if end > i:  # a run of plain string characters, kept whole
                out.append(line[i:end])
                i = end
                continue
            if line.startswith(quote, i):
                out.append(quote)
                i, quote = i + len(quote), ""
            else:
                step = 2 if line[i] == "\\" else 1  # strings keep every character: they are data
                out.append(line[i : i + step])
                i += step
            continue
        found = special.search(line, i)
        end = found.start() if found else len(line)
        if end > i:  # a run of code with no quote or comment in it: one step
            pending_space, depth = _code_run(line[i:end], out, pending_space, depth, syntax.brackets_continue)
            i = end
            continue
        opening = _opening_quote(line, i, syntax)
        if opening:
            out.append(opening)
            i, quote = i + len(opening), opening
            continue
        if _comment_starts(line, i, syntax, first_code):
            comment_at = i
            break
        if syntax.block_comment and line.startswith(syntax.block_comment[0], i):
            in_block, i = True, i + len(syntax.block_comment[0])
            continue
        char = line[i]
        if char.isspace():
            pending_space, i = True, i + 1
            continue
        if pending_space and out and _is_word(out[-1][-1:]) and _is_word(char):
            out.append(" ")
        pending_space = False
        if syntax.brackets_continue and char in "([{)]}":
            depth = depth + 1 if char in "([{" else max(depth - 1, 0)
        out.append(char)
        i += 1
    if quote and quote not in syntax.multiline_quotes:
        quote = ""  # a one-line string closes at the line end
    continued = syntax.brackets_continue and not quote and line.endswith("\\") and "#" not in line
    return "".join(out), _State(in_block, quote, depth, continued), comment_at


def _plain_shape(line: str, syntax: Syntax, depth: int, indent: str) -> tuple[str, _State, int]:
    """``_scan`` of a line read outside strings and comments with no quote or comment marker in it: one run of code
    (``_code_run`` after ``indent``, which ends in no word character), with nothing pending before it."""
    parts = line.split()
    code = (_UNNEEDED_SPACE.sub("", " ".join(parts)) if len(parts) > 1 else parts[0]) if parts else ""
    if not syntax.brackets_continue:
        return indent + code, _NEUTRAL, -1
    for char in _BRACKETS.findall(line):
        depth = depth + 1 if char in "([{" else max(depth - 1, 0)
    continued = line.endswith("\\") and "#" not in line
    return indent + code, _NEUTRAL if not (depth or continued) else _State(False, "", depth, continued), -1


def _string_run_end(line: str, i: int, quote: str) -> int:
    """Where the run of plain characters inside a string that starts at ``i`` ends: a quote or a backslash."""
    end = line.find(quote[0], i)
    end = len(line) if end < 0 else end
    backslash = line.find("\\", i, end)
    return end if backslash < 0 else backslash


_BRACKETS = lazy_compile(r"[()\[\]{}]")
_UNNEEDED_SPACE = lazy_compile(r" (?:(?<!\w )|(?!\w))")  # a space with no word character before or after it


def _code_run(run: str, out: list[str], pending_space: bool, depth: int, brackets: bool) -> tuple[bool, int]:
    """Shape a run of code (no string, no comment) into ``out``, as the character loop would, in bulk.

    ``str.split()`` and the character loop's ``isspace`` agree on what white space is.
    """
    parts = run.split()
    if parts:
        if (pending_space or run[0].isspace()) and out and _is_word(out[-1][-1:]) and _is_word(parts[0][0]):
            out.append(" ")
        # the parts, one space kept only between two word characters (\w is _is_word's alnum-or-underscore)
        out.append(_UNNEEDED_SPACE.sub("", " ".join(parts)) if len(parts) > 1 else parts[0])
    if brackets:
        for char in _BRACKETS.findall(run):
            depth = depth + 1 if char in "([{" else max(depth - 1, 0)
    return run[-1:].isspace(), depth


def _opening_quote(line: str, i: int, syntax: Syntax) -> str:
    for delimiter in syntax.multiline_quotes:  # listed longest first: `\"\"\"` before `"`
        if line.startswith(delimiter, i):
            return delimiter
    return line[i] if line[i] in syntax.quotes else ""


def _comment_starts(line: str, i: int, syntax: Syntax, first_code: int) -> bool:
    marker = next((m for m in syntax.line_comments if line.startswith(m, i)), None)
    if marker is None:
        return False
    if syntax.comment_at_line_start:
        return i == first_code
    if marker == "#" and syntax.hash_at_word_start:
        return i == 0 or line[i - 1].isspace()
    return True


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def line_shapes(lines: list[str] | tuple[str, ...], syntax: Syntax) -> list[str]:
    """Each line without comments and insignificant whitespace (strings kept), read in order from a neutral state."""
    state, shapes = _NEUTRAL, []
    for line in lines:
        shape, state = _line_shape(line, syntax, state)
        shapes.append(shape)
    return shapes


@dataclass(frozen=True)
class LogicalLine:
    """One statement line of code as the language reads it: continuation lines joined, comments dropped."""

    first: int  # index of its first physical line
    last: int  # index of its last physical line
    indent: int  # width of its first line's leading whitespace
    code: str  # the shape: comments dropped, whitespace outside strings collapsed, strings kept
    comment: str  # the text of the comment that ends its last line, without the marker ('' when none)


@text_cache(maxsize=256)
def logical_lines(lines: tuple[str, ...], syntax: Syntax) -> tuple[LogicalLine, ...]:
    """The logical lines of a fragment, read from its first line as if no string or bracket were open there.

    A line that is only a comment is a logical line with empty ``code``; blank lines are left out.
    Cached: every cheat detector reads the same hunk sides.
    """
    return tuple(iter_logical_lines(lines, syntax))


def iter_logical_lines(lines: tuple[str, ...], syntax: Syntax) -> Iterator[LogicalLine]:
    """``logical_lines`` one at a time, uncached: for a reader that stops at the first line it looks for."""
    state = _NEUTRAL
    start = 0
    parts: list[str] = []
    for index, line in enumerate(lines):
        joins = bool(parts) and ((state.depth > 0 or state.continued) if syntax.brackets_continue else False) \
            or bool(parts) and bool(state.quote)
        shape, state, comment_at = _scan(line, syntax, state, joins)
        if not joins:
            start, parts = index, []
        parts.append(shape.strip() if joins else shape.lstrip())
        open_ = state.quote or (syntax.brackets_continue and (state.depth > 0 or state.continued))
        if open_:
            continue
        code = "".join(parts).strip()
        comment = _comment_text(line, comment_at, syntax)
        if code or comment:
            first = lines[start]
            yield LogicalLine(start, index, len(first) - len(first.lstrip()), code, comment)
        parts = []


def _comment_text(line: str, comment_at: int, syntax: Syntax) -> str:
    if comment_at < 0:
        return ""
    marker = next(m for m in syntax.line_comments if line.startswith(m, comment_at))
    return line[comment_at + len(marker):].strip()

"""Deciding whether a hunk changes only whitespace or comments, by the file's language.

A hunk is superficial when its removed and added lines have the same *shape*:
the text with comments dropped and whitespace outside string literals removed
(kept as one space between two word characters, so ``return x`` never becomes
``returnx``). Comments are understood for:

- ``#`` languages: Python, shell, Ruby, Perl, R, YAML, TOML, Makefile, Dockerfile, CMake, Nix, ...
- ``//`` and ``/* */`` languages: JavaScript, TypeScript, Go, Rust, Java, Kotlin, C, C++, C#,
  Swift, Scala, Dart, PHP, Groovy, Protobuf, Solidity, SCSS/Less (CSS: ``/* */`` only).

Where indentation carries meaning (Python, YAML, Makefile) leading whitespace and
line breaks stay part of the shape: re-indenting Python is a real change. For any
other file only trailing whitespace and blank lines count as superficial.
Comments that steer tools (``# noqa``, ``// eslint-disable``, ``#!``, ``//go:build``,
``# type: ignore`` ...) are never superficial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from judge.diff import FileChange, Hunk

__all__ = ["Syntax", "syntax_for", "is_superficial_hunk", "is_superficial_file"]


@dataclass(frozen=True)
class Syntax:
    name: str
    line_comments: tuple[str, ...] = ()
    block_comment: tuple[str, str] | None = None
    quotes: str = "\"'"
    indent_matters: bool = False
    knows_tokens: bool = True  # False: only trailing whitespace and blank lines are understood


_HASH = Syntax("hash-comment", line_comments=("#",))
_HASH_INDENT = Syntax("hash-comment, indentation-sensitive", line_comments=("#",), indent_matters=True)
_SLASH = Syntax("slash-comment", line_comments=("//",), block_comment=("/*", "*/"), quotes="\"'`")
_CSS = Syntax("css", block_comment=("/*", "*/"))
_JSON = Syntax("json")
_PLAIN = Syntax("plain text", quotes="", knows_tokens=False)

_BY_SUFFIX = {
    **dict.fromkeys((".py", ".pyi", ".pyx", ".yaml", ".yml"), _HASH_INDENT),
    **dict.fromkeys(
        (".sh", ".bash", ".zsh", ".fish", ".rb", ".pl", ".pm", ".r", ".toml", ".cmake", ".nix",
         ".ps1", ".jl", ".ex", ".exs", ".cr", ".tf", ".hcl", ".cfg", ".conf", ".properties", ".gitignore"),
        _HASH,
    ),
    **dict.fromkeys(
        (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go", ".rs", ".java", ".kt", ".kts",
         ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".swift", ".scala", ".dart", ".php",
         ".m", ".mm", ".groovy", ".gradle", ".proto", ".sol", ".scss", ".less", ".zig", ".v", ".jsonc"),
        _SLASH,
    ),
    ".css": _CSS,
    ".json": _JSON,
}
_BY_NAME = {
    "makefile": _HASH_INDENT, "gnumakefile": _HASH_INDENT, "dockerfile": _HASH, "cmakelists.txt": _HASH,
    "gemfile": _HASH, "rakefile": _HASH, "jenkinsfile": _SLASH, "build.bazel": _HASH, "build": _HASH,
}

# Comments that tools read: changing them changes behaviour.
_DIRECTIVE = re.compile(
    r"noqa|type:\s*ignore|pragma|pylint|mypy:|fmt:\s*(off|on|skip)|isort:|eslint|prettier-ignore|@ts-|"
    r"tslint|istanbul|c8 ignore|jshint|nolint|go:(build|generate|embed|linkname)|\+build|rubocop|"
    r"NOSONAR|clang-format|coding[:=]|^\s*#!|@license|@flow|@jsx|sourceMappingURL|SPDX",
    re.IGNORECASE,
)


def syntax_for(path: str) -> Syntax:
    name = PurePosixPath(path).name.lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    return _BY_SUFFIX.get(PurePosixPath(name).suffix, _PLAIN)


def is_superficial_file(change: FileChange) -> bool:
    """True when an in-place edit of an existing text file changes no code, only whitespace/comments."""
    if change.changes_without_lines or not change.hunks:
        return False
    syntax = syntax_for(change.path)
    return all(is_superficial_hunk(hunk, syntax) for hunk in change.hunks)


def is_superficial_hunk(hunk: Hunk, syntax: Syntax) -> bool:
    if any(_DIRECTIVE.search(line) for line in hunk.added + hunk.removed):
        return False
    return _shape(hunk.removed, syntax) == _shape(hunk.added, syntax)


def _shape(lines: tuple[str, ...], syntax: Syntax) -> str:
    shapes: list[str] = []
    in_block = False
    for line in lines:
        if not syntax.knows_tokens:
            shape = line.rstrip()
        else:
            shape, in_block = _line_shape(line, syntax, in_block)
        if shape.strip():
            shapes.append(shape)
    # Line breaks matter only where indentation does; elsewhere a re-wrapped call is the same code.
    return "\n".join(shapes) if syntax.indent_matters or not syntax.knows_tokens else "".join(shapes)


def _line_shape(line: str, syntax: Syntax, in_block: bool) -> tuple[str, bool]:
    """The line without comments and insignificant whitespace; tracks open /* */ comments."""
    out: list[str] = []
    if syntax.indent_matters:
        out.append(line[: len(line) - len(line.lstrip())])
    stripped = line.strip()
    if syntax.block_comment and not in_block and (stripped == "*" or stripped.startswith(("* ", "*/"))):
        in_block = True  # a block comment that opened above the hunk
    i, quote, pending_space = 0, "", False
    while i < len(line):
        if in_block:
            end = line.find(syntax.block_comment[1], i)  # type: ignore[index]
            if end < 0:
                break
            in_block, i = False, end + len(syntax.block_comment[1])  # type: ignore[index]
            continue
        char = line[i]
        if quote:
            out.append(line[i : i + 2] if char == "\\" else char)
            i += 2 if char == "\\" else 1
            quote = "" if char == quote else quote
            continue
        if any(line.startswith(marker, i) for marker in syntax.line_comments):
            break
        if syntax.block_comment and line.startswith(syntax.block_comment[0], i):
            in_block, i = True, i + len(syntax.block_comment[0])
            continue
        if char.isspace():
            pending_space, i = True, i + 1
            continue
        if pending_space and out and _is_word(out[-1][-1:]) and _is_word(char):
            out.append(" ")
        pending_space = False
        if char in syntax.quotes:
            quote = char
        out.append(char)
        i += 1
    return "".join(out), in_block


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"

"""Syntax trees of JavaScript and TypeScript fragments, through tree-sitter and its published grammars.

tree-sitter recovers from errors, so a hunk side cut in the middle of a block still yields the
calls and functions it holds (with ERROR nodes around the cut). The grammars are loaded on first
use, once per process: a run that judges no JS/TS never imports them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Iterator

from judge.text_cache import text_cache

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query

__all__ = ["captures", "grammar_for", "parse", "walk"]

_GRAMMARS = {
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
}


@lru_cache(maxsize=4096)
def grammar_for(path: str) -> str | None:
    """``javascript``, ``typescript`` or ``tsx`` for a file tree-sitter can read here; None otherwise."""
    return _GRAMMARS.get(PurePosixPath(path).suffix.lower())


@text_cache(maxsize=64)
def parse(text: str, grammar: str) -> Node:
    """The syntax tree of ``text``; cached, since every cheat detector reads the same hunk sides."""
    return _parser(grammar).parse(text.encode("utf-8", "surrogatepass")).root_node


def captures(node: Node, grammar: str, query: str) -> dict[str, list[Node]]:
    """The nodes below ``node`` that a tree-sitter ``query`` captures, by capture name, in source order: the search
    runs in C, so a detector visits only the nodes it asks for, not every node of a large side."""
    import tree_sitter

    return tree_sitter.QueryCursor(_query(grammar, query)).captures(node)


def walk(node: Node) -> Iterator[Node]:
    """Every node below ``node``, in source order, without recursion (a deep fragment cannot exhaust the stack)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


@lru_cache(maxsize=None)
def _query(grammar: str, query: str) -> Query:
    import tree_sitter

    return tree_sitter.Query(_parser(grammar).language, query)  # type: ignore[arg-type]


@lru_cache(maxsize=None)
def _parser(grammar: str) -> Parser:
    import tree_sitter

    if grammar == "javascript":
        import tree_sitter_javascript

        language = tree_sitter_javascript.language()
    else:
        import tree_sitter_typescript

        language = (tree_sitter_typescript.language_tsx() if grammar == "tsx"
                    else tree_sitter_typescript.language_typescript())
    return tree_sitter.Parser(tree_sitter.Language(language))

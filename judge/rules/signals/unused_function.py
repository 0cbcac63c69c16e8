"""unused_function: the change defines new functions that nothing else in the patch calls or names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from judge import rule_ids as ids
from judge.code.testpaths import is_test_path
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange
from judge.patch.paths import file_suffix
from judge.rules.signals._finding import signal, where
from judge.rules.signals._lines import generated, judged_work
from judge.findings import Finding

__all__ = ["unused_function"]


_DEFINITIONS = {
    "python": lazy_compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\("),
    "js": lazy_compile(r"^\s*(?P<export>export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*(?P<name>[\w$]+)\s*[(<]"
                       r"|^\s*(?P<export2>export\s+)?(?:const|let|var)\s+(?P<name2>[\w$]+)\s*(?::[^=]+)?=\s*(?:async\s*)?"
                       r"(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)"
                       r"|^\s*(?:(?:public|private|protected|static|async|override|readonly)\s+)*(?P<name3>[\w$]+)\s*"
                       r"(?:<[^>]*>)?\([^()]*\)\s*(?::\s*[^{;=]+)?\{\s*$"),
    "go": lazy_compile(r"^func\s+(?:\([^)]*\)\s*)?(?P<name>\w+)\s*[(\[]"),
    "rust": lazy_compile(r"^\s*(?P<export>pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                         r"fn\s+(?P<name>\w+)"),
    "ruby": lazy_compile(r"^\s*def\s+(?:self\.)?(?P<name>\w+[?!]?)"),
}
# A word every match of the language's definition pattern holds: the pattern runs only on the added lines that hold
# one. JavaScript's three shapes: `function name(`, `const name = (...) =>` (or `= function`), `name(...) {`.
_DEFINITION_WORD = {"python": lazy_compile("def"), "js": lazy_compile("function|=>|{"), "go": lazy_compile("func"),
                    "rust": lazy_compile("fn"), "ruby": lazy_compile("def")}
_LANGUAGE = {**dict.fromkeys((".py",), "python"),
             **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), "js"),
             ".go": "go", ".rs": "rust", ".rb": "ruby"}
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "catch", "function", "return", "with", "else", "do", "try",
                            "super", "await", "typeof", "new", "delete", "void", "yield"})
# Names a framework or runtime calls by convention, never by a call the patch would show.
_CONVENTIONAL = frozenset({
    "main", "run", "init", "setup", "teardown", "constructor", "render", "default", "handler", "handle",
    "setUp", "tearDown", "setUpClass", "tearDownClass", "setUpModule", "tearDownModule", "asyncSetUp", "asyncTearDown",
    "setup_method", "teardown_method", "setup_class", "teardown_class", "setup_module", "teardown_module",
    "setup_function", "teardown_function", "toString", "toJSON", "valueOf", "get", "post", "put", "patch", "delete",
    "head", "options", "componentDidMount", "componentDidUpdate", "componentWillUnmount", "shouldComponentUpdate",
    "getDerivedStateFromProps", "getSnapshotBeforeUpdate", "componentDidCatch", "connectedCallback",
    "disconnectedCallback", "attributeChangedCallback", "adoptedCallback", "mounted", "created", "unmounted",
    "beforeMount", "beforeUnmount", "ngOnInit", "ngOnDestroy", "ngOnChanges", "ngAfterViewInit", "load_tests",
})
_CONVENTIONAL_PREFIX = lazy_compile(r"^(?:test|Test|visit|depart|do_|on_|on[A-Z]|handle_|pytest_|_repr_|Benchmark|"
                                    r"Example|Fuzz)")
_DECORATOR_OK = lazy_compile(r"^\s*@(?:staticmethod|classmethod)\s*$")
_TOKEN = lazy_compile(r"[A-Za-z_$][\w$]*[?!]?")


@dataclass(frozen=True)
class _Definition:
    path: str
    line: int
    name: str


def _definitions(change: FileChange) -> Iterator[_Definition]:
    """New definitions in the file's added lines, read from the lines as written: a line that starts a definition
    is code, so no lexer is needed (the rare ``def`` inside a docstring is a signal too many, never a rejection)."""
    language = _LANGUAGE.get(file_suffix(change.path).lower())
    if language is None or change.is_deleted or is_test_path(change.path) or generated(change.path):
        return
    pattern, word = _DEFINITIONS[language], _DEFINITION_WORD[language]
    for hunk in change.hunks:
        body = hunk.body
        text = "\n".join(("",) + body)  # a line end before each line
        if not word.search(text):
            continue  # the first look: no line of the hunk holds the word a definition needs
        counted, new_lines = 0, 0  # the lines of the new side in body[:counted], counted on from there
        for index in _candidates(text, language) if language in _CANDIDATE else range(len(body)):
            raw = body[index]
            found = pattern.match(raw[1:]) if raw[0] == "+" and (
                _may_define_js(raw) if language == "js" else word.search(raw)) else None
            if not found:
                continue
            groups = found.groupdict()
            name = groups["name"] or groups.get("name2") or groups.get("name3")
            exported = groups.get("export") or groups.get("export2")
            if name and not exported and not _by_convention(name, language) and not _decorated(body, index):
                new_lines += sum(1 for line in body[counted:index] if line[0] in " +")
                counted = index
                yield _Definition(change.path, hunk.new_start + new_lines, name)


def _candidates(text: str, language: str) -> Iterator[int]:
    """The body lines (by index) that _definitions reads further, found in one scan of ``text`` (the body with a line
    end before each line): added lines that may hold a definition, as the checks of each line and the start of the
    language's pattern tell."""
    line, counted = -1, 0
    for found in _CANDIDATE[language].finditer(text):
        line += text.count("\n", counted, found.start() + 1)
        counted = found.start() + 1
        yield line


# An added line JavaScript's pattern may match: `function`, `=>`, or a `{` that ends the line after a `)` (the third
# shape's parameters), tried in one pass back over the line (from a `)`, read on only up to the next: the last `)`
# before the `{` is the one to try, and a long line with many is not read again from each); an added line whose
# pattern (`^\s*(?:async\s+)?def\s+`) may match.
_CANDIDATE = {"js": lazy_compile(r"\n\+[^\n]*(?:function|=>|\)[^)\n]*\{[^\S\n]*(?=\n|\Z))"),
              "python": lazy_compile(r"\n\+[^\S\n]*(?:async|def)")}


def _may_define_js(line: str) -> bool:
    """What each of JavaScript's three shapes holds (its pattern is slow on a long line): `function`, `=>`, or a `{`
    that ends the line (str.rstrip and \\s strip the same white space)."""
    return "function" in line or "=>" in line or line.rstrip().endswith("{")


def _by_convention(name: str, language: str) -> bool:
    if name in _NOT_FUNCTIONS or name in _CONVENTIONAL or _CONVENTIONAL_PREFIX.match(name):
        return True
    if name.startswith("__") and name.endswith("__"):
        return True
    return language == "go" and name[:1].isupper()  # Go exports by capital letter


def _decorated(body: tuple[str, ...], index: int) -> bool:
    """A decorator or attribute right above the definition (on the new side) registers it (a route, a fixture, a
    command, a property, Rust's ``#[test]``). Comment lines between them are skipped. Read up from the definition,
    not over a copy of the side above it: a new file defines many functions."""
    for row in range(index - 1, -1, -1):
        if body[row][0] not in " +":
            continue
        code = body[row][1:].strip()
        if code and not (code.startswith(("#", "//", "/*", "*")) and not code.startswith("#[")):
            return code.startswith("#[") or (code.startswith("@") and not _DECORATOR_OK.match(code))
    return False


def _named_twice(text: str, name: str) -> bool:
    """``name`` is two of the tokens of ``text`` or more. A token never spans a line, so only the lines that hold
    ``name`` are split into tokens, not the whole patch."""
    seen, start = 0, 0
    while (at := text.find(name, start)) >= 0:
        first, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end < 0 else end
        seen += _TOKEN.findall(text, first, end).count(name)
        if seen >= 2:
            return True
        start = end
    return False


def unused_function(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    definitions = [definition for change in work.files for definition in _definitions(change)] if work else []
    if not definitions:
        return
    text = "\n".join(line for change in work.files for hunk in change.hunks  # type: ignore[union-attr]
                     for line in hunk.body)
    found: dict[str, list[int]] = {}
    for definition in definitions:
        if not _named_twice(text, definition.name):  # the definition itself is the one mention
            found.setdefault(definition.path, []).append(definition.line)
    if found:
        count = sum(map(len, found.values()))
        yield signal(ids.UNUSED_FUNCTION, f"the change defines {count} new function(s) that nothing else in the patch "
                     f"calls or names, in {where(found)}: check that the step's code is used, not only written.",
                     list(found))

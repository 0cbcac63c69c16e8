"""Test units of a JavaScript/TypeScript hunk side (Jest, Vitest, Mocha, AVA, node:test), through tree-sitter.

A test is a call of ``it``/``test``/``specify`` (and ``xit``, ``fit``, ``it.each(...)``...) with a
title; a group is a call of ``describe``/``context``/``suite``. The side's open brackets are closed
at its end before parsing, so a test cut by the hunk's end is still a call; tree-sitter recovers
from the closers a side that starts inside a block leaves unmatched. Comments and strings are
leaves of the tree: ``// it.skip(`` and ``"it.only("`` are never calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, partial
from operator import itemgetter
from typing import TYPE_CHECKING, Iterable, Iterator

from judge.code._tests_lexer import JS, mask
from judge.code.sides import Side
from judge.code.tests import Check, Mark, TestUnit, UnitDraft, normalised
from judge.code.treesitter import captures, parse, walk
from judge.lazy_pattern import lazy_compile

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["left_open", "units"]

_TESTS = {"it", "test", "specify", "xit", "xtest", "xspecify", "fit"}
_GROUPS = {"describe", "context", "suite", "xdescribe", "xcontext", "fdescribe"}
_REGISTERING = _TESTS | _GROUPS  # a call of one of these registers a test or a group
_SKIPPING = {"skip": "skip", "todo": "skip", "failing": "skip", "fails": "skip", "only": "only"}
_PREFIXED = {"xit": "skip", "xtest": "skip", "xspecify": "skip", "xdescribe": "skip", "xcontext": "skip",
             "fit": "only", "fdescribe": "only"}
_AVA = {"is", "not", "deepEqual", "notDeepEqual", "like", "true", "false", "truthy", "falsy", "throws",
        "throwsAsync", "notThrows", "notThrowsAsync", "regex", "notRegex", "snapshot", "assert", "pass", "fail",
        "equal", "notEqual", "same", "notSame", "ok", "notOk", "match", "notMatch", "strictEqual", "deepStrictEqual",
        "rejects", "resolves", "error",
        # tap and tape
        "type", "strictSame", "strictNotSame", "has", "hasStrict", "notHas", "hasProp", "hasProps", "hasOwnProp",
        "hasOwnProps", "doesNotThrow", "resolveMatch", "matchSnapshot", "equals", "looseEqual", "notEquals",
        "notLooseEqual", "deepLooseEqual", "emits", "expectUncaughtException"}  # not `plan`: it counts assertions
_SELF_SKIP = {("this", "skip"), ("t", "skip"), ("t", "todo"), ("ctx", "skip"), ("context", "skip")}
_FUNCTIONS = {"arrow_function", "function_expression", "function", "generator_function"}
_LITERALS = {"number", "string", "template_string", "true", "false", "null", "undefined", "regex"}
_SAME = {"toBe", "toEqual", "toStrictEqual", "is", "deepEqual", "equal", "strictEqual", "deepStrictEqual", "same",
         "eql", "strictSame", "equals", "looseEqual"}
_TRUTHY = {"toBeTruthy", "toBeDefined", "ok", "true", "truthy", "assert", "isTrue", "isOk"}
_COMPARISONS = {"==", "===", "!=", "!==", "<", ">", "<=", ">="}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_WORD = lazy_compile(r"[A-Za-z_$][\w$]*")
_KEY = lazy_compile(r"[A-Za-z_$][\w$]*\??\s*:(?!:)")
_DECLARED = lazy_compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)")
_PARAMETERS = lazy_compile(r"\bfunction\b[^(]*\(([^()]*)\)|\(([^()]*)\)\s*=>")
_QUERY = """
(call_expression) @call
(variable_declarator name: (identifier) @bound value: [(identifier) (member_expression) (call_expression)])
(assignment_expression left: (identifier) @bound right: [(identifier) (member_expression) (call_expression)])
(try_statement) @try
"""
_CONTEXT = lazy_compile(r"""^(?P<call>it|test|specify)(?:\.\w+)*\(\s*(?P<q>["'`])(?P<title>.*?)(?P=q)""")


@dataclass
class _Unit(UnitDraft):
    end: int = 0  # the byte after its call: the calls before it are inside it
    last: int = 0  # its last row
    callback: Node | None = None
    tops: set[tuple[int, int]] = field(default_factory=set)


_ALIAS_LINE = lazy_compile(r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*"
                           r"([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)"
                           r"(?:\s*\.\s*bind\s*\([^()]*\))?\s*;?\s*(?://.*)?$")  # `.bind(test)` binds the same


_DESTRUCTURED_ALIAS = lazy_compile(r"^\s*(?:const|let|var)\s*\{([^}=]*)\}\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$")


def file_aliases(text: str) -> dict[str, list[str]]:
    """Names a line anywhere in ``text`` binds to a test function (`const t2 = test.skip`): a hunk may register tests
    through a name another hunk of the file binds."""
    found: dict[str, list[str]] = {}
    for line in _declaring(text):
        destructured = _DESTRUCTURED_ALIAS.match(line) if "{" in line and "=" in line else None
        if destructured is not None and destructured[2] in _TESTS | _GROUPS:  # `const {skip: later} = test`
            for key, _, name in (part.strip().partition(":") for part in destructured[1].split(",")):
                if key.strip().isidentifier():
                    found[(name or key).strip()] = [destructured[2], key.strip()]
            continue
        match = _ALIAS_LINE.match(line) if "=" in line else None
        if match is None:
            continue
        path = [part.strip() for part in match[2].split(".")]
        path = found.get(path[0], [path[0]]) + path[1:]
        if path[0] in _TESTS or path[0] in _GROUPS:
            found[match[1]] = path
    return found


def _declaring(text: str) -> list[str]:
    """The only lines of ``text`` that may bind an alias: those that hold `const`, `let` or `var` (a substring search
    per line, cheaper than a pattern that tries the three words at every character)."""
    return [line for line in text.split("\n") if "const" in line or "let" in line or "var" in line]


def units(side: Side, grammar: str, context: str = "", aliases: dict[str, list[str]] | None = None
          ) -> tuple[TestUnit, ...]:
    """``aliases``: the names the file's other hunks bind to test functions (see ``file_aliases``)."""
    if not _may_read(side.text, aliases):
        return ()  # every call would be passed over and nothing bound to a test function: nothing to parse
    source = _Source(_closed(side.lines), len(side.lines))
    root = parse(source.text, grammar)
    named = _CONTEXT.match(context)  # git names the test a hunk starts in when its call is at column 0
    title = named["title"] if named else ""
    fragment = _Unit(title, "fragment", 0, label=f"{named['call']}({_quoted(title)})" if named else "", end=1 << 62)
    found, open_units = [fragment], [fragment]
    found_nodes = captures(root, grammar, _QUERY)
    source.tries = _may_swallow(found_nodes)
    aliases = {**(aliases or {}), **_aliases(found_nodes, fragment, side)}
    data = source.data
    heads = _READ_HEADS.union(aliases)
    for (start, _), node in _read_calls(found_nodes.get("call", []), data, heads):
        while open_units[-1].end <= start:
            open_units.pop()
        unit = _call(node, open_units[-1], side, aliases, source)
        if unit is not open_units[-1]:
            groups = [u.name for u in open_units if u.kind == "group"]
            unit.owner = " > ".join(groups)  # `describe("a") > it("works")` is not `describe("b") > it("works")`
            found.append(unit)
            open_units.append(unit)
    for unit in found[1:]:  # the code it uses: its words outside strings and comments, object keys aside
        unit.words = partial(source.words, unit.line, unit.last)
    return tuple(u.freeze() for u in found if u.kind != "fragment" or u.checks or u.marks)


# The first names of the calls ``_call`` may read something from (the tests, groups and assertions it knows, the
# skips of `this.skip()`): a call whose callee starts with another name, and that holds neither `assert` nor `should`
# (`assert.equal`, `x.should.equal`), reads as nothing.
_READ_HEADS = frozenset(_REGISTERING | {"expect", "t", "this", "ctx", "context"})
# A whole ASCII name: one that goes on (in other letters, or in an escape: `foo\u0074`) may be an alias.
_HEAD = lazy_compile(rb"[A-Za-z_$][\w$]*(?![\w$\x80-\xff\\])")


# A name of _READ_HEADS where the text may hold it as an identifier: not inside a longer run of ASCII name characters
# (an identifier is read as long as it goes, so `mytest(` calls `mytest`), unless that run starts with a digit (a
# number may end where a name starts: `1ntest` is `1n` then `test`). One look-behind per character, not one per
# alternative (``_may_read`` looks for `assert` and `should` anywhere as substrings).
_HEADS = "|".join(sorted(_READ_HEADS, key=len, reverse=True))
_READ_WORD = lazy_compile(rf"(?<![A-Za-z0-9_$])(?=[A-Za-z0-9_$])(?:(?:{_HEADS})(?![A-Za-z0-9_$])"
                          rf"|[0-9][A-Za-z0-9_$]*(?:{_HEADS}))")


def _may_read(text: str, aliases: dict[str, list[str]] | None) -> bool:
    """The first look of ``units``: the side's text may hold a call ``_passed_over`` does not pass over, or a name
    bound to a test function. Without one, every call's first name is another name (`_passed_over`), the side binds
    no name to a test or group function (that takes one of their names), and ``units`` finds nothing."""
    return "assert" in text or "should" in text or _READ_WORD.search(text) is not None \
        or any(alias in text for alias in aliases or ())


def _read_calls(calls: list[Node], data: bytes, heads: frozenset[str]) -> list[tuple[tuple[int, int], Node]]:
    """The calls ``_passed_over`` does not pass over, outer calls first (by start, then by end, last first), each with
    that key: passed over before they are sorted, and their bytes read once."""
    read = []
    for node in calls:
        start, end = node.start_byte, node.end_byte
        if not _passed_over(data, start, end, heads):
            read.append(((start, -end), node))
    read.sort(key=_first)
    return read


_first = itemgetter(0)


def _may_swallow(found: dict[str, list[Node]]) -> bool:
    """The side's tree holds a `try` statement: without one, no assertion's failure is swallowed (``_swallowed`` walks
    up from each assertion for nothing)."""
    return bool(found.get("try"))


def _passed_over(data: bytes, start: int, end: int, heads: frozenset[str]) -> bool:
    """The call at ``data[start:end]`` is none ``_call`` reads: its callee's first name (where the call's text starts)
    is not among ``heads`` and its text holds neither `assert` nor `should`, so no name of its callee's path makes it a
    test, a group, an assertion or a skip. Read from the bytes, without the nodes ``_path`` would walk."""
    head = _HEAD.match(data, start)
    return head is not None and head[0].decode() not in heads and data.find(b"assert", start, end) < 0 \
        and data.find(b"should", start, end) < 0


class _Source:
    """The text a side was parsed as, to read what few units are asked for later (their body, the names they use)
    without keeping the side's lines, nor its tree, for as long as the units live."""

    __slots__ = ("text", "count", "tries", "_data", "_code")

    def __init__(self, text: str, count: int) -> None:
        self.text, self.count = text, count  # the side's lines, then the closers
        self.tries = True  # its tree may hold a `try` statement
        self._data: bytes | None = None
        self._code: tuple[str, ...] | None = None

    @property
    def plain(self) -> str | None:
        """The text, where each of its characters is one byte of ``data`` (ASCII): a node's text is then
        ``plain[node.start_byte:node.end_byte]``, sliced, not decoded. None otherwise."""
        return self.text if self.text.isascii() else None

    @property
    def data(self) -> bytes:
        """The text as the tree was parsed from: a node's text is ``data[node.start_byte:node.end_byte]``."""
        if self._data is None:
            self._data = self.text.encode("utf-8", "surrogatepass")
        return self._data

    def between(self, start: int, end: int) -> str:
        """The text between two byte offsets of the tree, as a node's own text."""
        return self.data[start:end].decode("utf-8", "replace")

    def body(self, start: int, end: int) -> str:
        """A callback's lines, whitespace-collapsed, blank and comment lines left out."""
        return "\n".join(normalised(line) for line in self.between(start, end).splitlines()
                         if line.strip() and not line.lstrip().startswith("//"))

    def words(self, first: int, last: int) -> tuple[frozenset[str], frozenset[str]]:
        """The names rows first..last use (their words outside strings and comments, object keys aside) and bind."""
        if self._code is None:
            self._code = mask(tuple(self.text.split("\n")[:self.count]), JS)
        text = "\n".join(self._code[first:last + 1])
        return frozenset(_WORD.findall(_KEY.sub(" ", text))), frozenset(_locals(text))


def _locals(code: str) -> set[str]:
    """Names a test binds: `const x`, `let {a, b}`, the parameters of its callbacks."""
    bound = set(_DECLARED.findall(code))
    for found in _PARAMETERS.finditer(code):
        bound.update(_WORD.findall(_KEY.sub(" ", found[1] or found[2] or "")))
    return bound


def _closed(lines: tuple[str, ...]) -> str:
    """The side's text with the brackets it leaves open (outside strings and comments) closed on a last line."""
    text = "\n".join(lines)
    brackets = _not_brackets().sub("", text)
    for _ in range(_PAIR_PASSES):  # a pair that closes at once leaves the stack below as it was
        inner = _PAIR.sub("", brackets)
        if len(inner) == len(brackets):
            break
        brackets = inner
    stack: list[str] = []
    for char in brackets:
        if char in _OPEN:
            stack.append(_OPEN[char])
        elif stack and char == stack[-1]:
            stack.pop()
    return (text + "\n" if lines else "") + "".join(reversed(stack)) + "\n"


def left_open(lines: tuple[str, ...]) -> bool:
    """The brackets the first line opens are not all closed by the end of the lines (strings and comments aside): a
    call or block that starts there runs on past them."""
    depth, opened = 0, False
    for char in _not_brackets().sub("", "\n".join(lines)):
        depth += 1 if char in _OPEN else -1
        opened = opened or depth > 0
        if opened and depth <= 0:
            return False
    return opened


@cache
def _not_brackets() -> re.Pattern[str]:
    """What ``_closed`` takes out of a side to keep its brackets: its strings and comments (JS.pattern), and every run
    of other code, in one scan. The same as taking out the strings and comments, then all but brackets: a string or a
    comment starts only at a quote or a slash, which no run of other code holds."""
    return re.compile(JS.pattern.pattern + r"""|[^()\[\]{}"'`/]+|/""")


_PAIR = lazy_compile(r"\(\)|\[\]|\{\}")
_PAIR_PASSES = 8  # as deep as brackets usually nest; what deeper pairs are left the loop reads one by one


def _aliases(found: dict[str, list[Node]], fragment: _Unit, side: Side) -> dict[str, list[str]]:
    """Names bound to a test function: `const t2 = test.skip`, `const it2 = it`, `test = test.skip`. A test function
    reassigned to a skipping one (`test = test.skip`) skips every test registered after it: a mark of the fragment."""
    aliases: dict[str, list[str]] = {}
    bindings = sorted(found.get("bound", []), key=lambda n: n.start_byte)
    for name_node in bindings:
        value = _unbound(name_node.parent.child_by_field_name("value") or name_node.parent.child_by_field_name("right"))
        path = _path(value) if value is not None and value.type in ("identifier", "member_expression") else None
        if not path or "()" in path:
            continue
        path = aliases.get(path[0], [path[0]]) + path[1:]
        name = _text(name_node)
        if path[0] not in _TESTS and path[0] not in _GROUPS:
            continue
        aliases[name] = path
        marks = _marks(value, path, [])
        if name in _TESTS | _GROUPS and marks and name_node.parent.type == "assignment_expression":
            row = name_node.start_point[0]
            kind, key = marks[0][1], marks[0][0]
            text = normalised(_text(name_node.parent))
            fragment.marks.append(Mark(kind, key, text, row, _changed(side, row)))  # type: ignore[arg-type]
    return aliases


def _call(node: Node, owner: _Unit, side: Side, aliases: dict[str, list[str]], source: _Source) -> _Unit:
    """Read one call; the unit the calls inside it belong to (a new test or group, or ``owner``)."""
    path = written = _path(node.child_by_field_name("function"))
    if not path:
        return owner
    if path[0] in aliases and path[0] not in _REGISTERING:
        path = aliases[path[0]] + path[1:]
    head = path[0]
    if head in _REGISTERING:
        unit = _test_call(node, path, side, source)
        if unit is not None:
            return unit
    if _is_check(path):
        top = _chain_top(node)
        where = (top.start_byte, top.end_byte)
        if top == node and path == ["expect"]:
            return owner  # `expect(x)` with no matcher asserts nothing
        if where not in owner.tops:
            owner.tops.add(where)
            owner.checks.append(_check(top, side, source, written if top == node else None))
    elif tuple(path) in _SELF_SKIP and _is_direct(node, owner):
        row = node.start_point[0]
        owner.marks.append(Mark("skip", ".".join(path), normalised(_text(node)), row, _changed(side, row)))
    return owner


def _unbound(value: Node | None) -> Node | None:
    """The function a value names, through `.bind(...)`: `test.skip.bind(test)` is `test.skip`."""
    if value is None or value.type != "call_expression":
        return value
    function = value.child_by_field_name("function")
    if function is None or function.type != "member_expression":
        return None
    prop = function.child_by_field_name("property")
    return function.child_by_field_name("object") if prop is not None and _text(prop) == "bind" else None


def _test_call(node: Node, path: list[str], side: Side, source: _Source) -> _Unit | None:
    args = [c for c in node.child_by_field_name("arguments").named_children if c.type != "comment"]  # type: ignore[union-attr]
    if not args or args[0].type not in ("string", "template_string", "identifier", "binary_expression", "member_expression"):
        return None
    title = _string(args[0])
    head = path[0]
    row = node.start_point[0]
    kind = "test" if head in _TESTS else "group"
    word = head.lstrip("xf") if head in _PREFIXED else head
    unit = _Unit(title, kind, row, _changed(side, row), label=f"{word}({_quoted(title)})", end=node.end_byte,
                 last=node.end_point[0])
    unit.callback = next((a for a in reversed(args) if a.type in _FUNCTIONS), None)
    made = _body_made_elsewhere(args) if unit.callback is None else None
    if unit.callback is None and made is None and not {"todo", "skip"} & set(path[1:]):
        return None  # `test(value)` of some helper, not a test: a test has a body, or is a todo
    body = unit.callback or made
    if body is not None:  # read when the test is paired by its body, if ever
        unit.body = partial(source.body, body.start_byte, body.end_byte)
    for mark in _marks(node, path, args):
        key, kind_of, text = mark
        unit.marks.append(Mark(kind_of, key, text, row, _changed(side, row)))  # type: ignore[arg-type]
    return unit


def _body_made_elsewhere(args: list[Node]) -> Node | None:
    """The body of a test registered under a written title with a function made elsewhere: `test("title",
    checksDefaults(colorizer))`, `it("title", shared.check)` (pino-pretty's colors tests); its assertions are in
    that function, out of view."""
    if len(args) < 2 or args[0].type not in ("string", "template_string"):
        return None
    last = args[-1]
    return last if last.type in ("call_expression", "identifier", "member_expression") else None


def _marks(node: Node, path: list[str], args: list[Node]) -> list[tuple[str, str, str]]:
    """(key, skip or only, text) for each mark the call itself carries: `it.skip`, `xit`, `{ skip: true }`."""
    marks = []
    head = path[0]
    if head in _PREFIXED:
        marks.append((head, _PREFIXED[head], head))
    for word in path[1:]:
        if word in _SKIPPING:
            key = f"{head}.{word}"
            marks.append((key, _SKIPPING[word], key))
    if "skipIf" in path or "runIf" in path:
        inner = node.child_by_field_name("function")
        condition = _first_argument(inner)
        truth = _truth(condition) if condition is not None else None
        if truth is ("skipIf" in path):
            key = f"{head}.{'skipIf' if 'skipIf' in path else 'runIf'}"
            marks.append((key, "skip", f"{key}({_text(condition)})"))  # type: ignore[arg-type]
    for option in (a for a in args if a.type == "object"):
        for pair in (p for p in option.named_children if p.type == "pair"):
            key_node, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            key = _string(key_node) if key_node is not None else ""
            if key in ("skip", "todo", "only") and value is not None and _truth(value) is True:
                marks.append((f"{{ {key} }}", "only" if key == "only" else "skip", normalised(_text(pair))))
    return marks


def _first_argument(call: Node | None) -> Node | None:
    if call is None or call.type != "call_expression":
        return None
    args = call.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_children else None


def _is_check(path: list[str]) -> bool:
    head = path[0]
    if head == "expect" or head.startswith("assert") or "assert" in path or "should" in path:
        return True
    return head == "t" and len(path) == 2 and path[1] in _AVA


def _chain_top(node: Node) -> Node:
    """The outermost call of an assertion chain: `expect(x).not.toBe(1)` for its `expect(x)`."""
    parent = node.parent
    while parent is not None:
        kind = parent.type
        if kind == "member_expression" and parent.child_by_field_name("object") == node or \
                kind == "call_expression" and parent.child_by_field_name("function") == node:
            node, parent = parent, parent.parent
        else:
            break
    return node


def _is_direct(node: Node, owner: _Unit) -> bool:
    """The call is a statement of the test's own body (not under an `if`), or of the fragment's top level."""
    statement = node.parent
    if statement is None or statement.type != "expression_statement" or statement.parent is None:
        return False
    block = statement.parent
    if owner.callback is not None:
        return block == owner.callback.child_by_field_name("body")
    return owner.kind == "fragment" and block.type in ("program", "ERROR")


def _check(top: Node, side: Side, source: _Source, path: list[str] | None = None) -> Check:
    """The assertion whose outermost call (or member) is ``top``; ``path``: its callee's, where the caller read it."""
    first, last = top.start_point[0], top.end_point[0]
    text = normalised(_text(top))
    if not any(side.changed[first:last + 1]):  # only a changed check is compared leaf by leaf
        return Check(text, first, False)
    call = top.type == "call_expression"
    if call and path is None:
        path = _path(top.child_by_field_name("function")) or []
    tokens, shape, slots, names = _tokens(top, source, _passes_path(path) if call else None)
    if call:  # its callee and arguments, read once for what it means and whether it holds
        args = _arguments(top)
        (weak, subject, truth), tautology = _meaning(top, path, args), _tautology(top, path, args)  # type: ignore[arg-type]
    else:
        (weak, subject, truth), tautology = (False, "", None), False
    return Check(text, first, True, tautology, tokens, slots, shape, names,
                 weak, subject, truth, source.tries and _swallowed(top, side))


# What a check pins down (judge.code.tests.Check.weak / truth): a matcher or assertion by its last name.
_WEAK = {"toBeDefined", "toBeTruthy", "toBeFalsy", "toBeInstanceOf", "toBeTypeOf", "toBeGreaterThan",
         "toBeGreaterThanOrEqual", "toBeLessThan", "toBeLessThanOrEqual", "truthy", "falsy", "not", "notDeepEqual",
         "notEqual", "notStrictEqual", "notDeepStrictEqual", "notSame", "notThrows", "notThrowsAsync", "doesNotThrow",
         "doesNotReject", "ok", "isOk", "isDefined", "isNotNull", "exist", "instanceOf", "assert", "pass", "type",
         "notOk", "strictNotSame", "notEquals", "notLooseEqual"}
_NEGATED = _SAME | {"toBeNull", "toBeUndefined", "toBeNaN"}  # `.not` before these: any other value passes
_TRUTH = {"true", "false", "ok", "assert", "truthy", "falsy", "isTrue", "isFalse", "isOk", "toBeTruthy", "toBeFalsy"}
_TRUTH_OF = {"true": True, "ok": True, "assert": True, "truthy": True, "isTrue": True, "isOk": True, "toBeTruthy": True,
             "false": False, "falsy": False, "notOk": False, "isFalse": False, "toBeFalsy": False, "toBeNull": False,
             "toBeUndefined": False, "isNull": False, "isUndefined": False}
_PLAIN_VALUES = {"true": True, "false": False, "null": False, "undefined": False, "0": False, '""': False, "[]": False,
                 "{}": False}
_WEAK_OPERATORS = {"!=", "!==", "<", ">", "<=", ">="}
_STRONG_OPERATORS = {"==", "==="}


def _meaning(top: Node, path: list[str], args: list[Node]) -> tuple[bool, str, bool | None]:
    """(weak, subject, truth) of an assertion call, given its callee's path and its arguments: `expect(x).toBe(5)`
    pins x; `expect(x).toBeDefined()`, `expect(x).not.toBe(-1)`, `t.truthy(x)`, `t.not(x, x + 1)` or `assert.ok(x)`
    don't."""
    if path[:2] == ["expect", "()"]:
        subjects = _arguments(_expect_call(top))
        matcher, negated = path[-1], "not" in path
        weak = matcher in _NEGATED if negated else matcher in _WEAK
        return weak, _squeezed(subjects[0]) if subjects else "", None if negated else _truth_of(matcher, args[:1])
    if not path or not args:
        return False, "", None
    matcher = path[-1]
    if matcher in _TRUTH and len(args) == 1 and args[0].type == "binary_expression":
        operator = args[0].child_by_field_name("operator")
        left = args[0].child_by_field_name("left")
        op = operator.type if operator is not None else ""
        if op in _WEAK_OPERATORS or op in _STRONG_OPERATORS:
            return op in _WEAK_OPERATORS, _squeezed(left) if left is not None else "", None
    return matcher in _WEAK, _squeezed(args[0]), _truth_of(matcher, args[1:2])


def _truth_of(matcher: str, expected: list[Node]) -> bool | None:
    """What truthiness alone says of a check: `t.true(x)`, `toBe(true)` True; `toBeNull()`, `t.is(x, 0)` False."""
    if matcher in _SAME:
        return _PLAIN_VALUES.get(_squeezed(expected[0])) if expected else None
    return _TRUTH_OF.get(matcher)


def _expect_call(top: Node) -> Node | None:
    """The `expect(...)` call at the root of a matcher chain."""
    node: Node | None = top
    while node is not None and node.type in ("call_expression", "member_expression"):
        inner = node.child_by_field_name("function" if node.type == "call_expression" else "object")
        if node.type == "call_expression" and inner is not None and inner.type == "identifier":
            return node
        node = inner
    return None


def _squeezed(node: Node | None) -> str:
    """An expression written one way: no spaces, one kind of quote."""
    return "" if node is None else "".join(_text(node).split()).replace("'", '"').replace("`", '"')


def _swallowed(top: Node, side: Side) -> bool:
    """The assertion sits in the block of a `try` the change writes or edits whose `catch` neither throws nor
    asserts: its failure is swallowed."""
    node, parent = top, top.parent
    while parent is not None and node.type not in _FUNCTIONS:
        if parent.type == "try_statement" and parent.child_by_field_name("body") == node:
            handler = parent.child_by_field_name("handler")
            if handler is None:
                return False  # try/finally: the failure still propagates
            rows = (parent.start_point[0], handler.start_point[0])
            return any(_changed(side, row) for row in rows) and not _reacts(handler)
        node, parent = parent, parent.parent
    return False


def _reacts(handler: Node) -> bool:
    for node in walk(handler):
        if node.type == "throw_statement":
            return True
        if node.type == "call_expression":
            path = _path(node.child_by_field_name("function"))
            if path and (_is_check(path) or path[-1] == "fail"):
                return True
    return False


def _tokens(top: Node, source: _Source, top_passes: bool | None = None
            ) -> tuple[tuple[str, ...], str, frozenset[int], frozenset[str]]:
    """The check leaf by leaf (a string by its content, whatever its quotes), its shape (the same with each literal
    masked), the indexes of the literals passed to its matcher or assertion (not to `expect(...)` itself, not inside
    another call), and the identifiers it uses, in literals too (a template's `${x}`). ``source``: what the tree was
    parsed from, where a node's text is read (cheaper than its node's); ``top_passes``: what
    ``_passes_arguments(top)`` is, where the caller knows. An explicit stack, not recursion: a check nested thousands
    deep (hostile input) must not exhaust Python's. Each entry is what is left to read of one node's children, with
    what they share (on the expected side or not, their parent): a leaf is read where its siblings are, and a node
    with children puts its siblings back under them."""
    out: list[str] = []
    literals: list[int] = []
    slots: set[int] = set()
    names: set[str] = set()
    data, plain = source.data, source.plain
    stack: list[tuple[Iterator[Node], bool, Node | None]] = [(iter((top,)), False, None)]
    while stack:
        level, expected, parent = stack.pop()
        for node in level:
            kind = node.type
            if kind in _LITERALS:
                if expected:
                    slots.add(len(out))
                literals.append(len(out))
                start, end = node.start_byte, node.end_byte
                text = plain[start:end] if plain is not None else data[start:end].decode("utf-8", "replace")
                out.append(text[1:-1] if kind == "string" and len(text) >= 2 else text)
                # the grammar puts identifiers in a literal only in a template's substitutions (or in an error)
                if node.child_count and (kind == "template_string" or node.has_error):
                    names.update(_text(n) for n in walk(node) if n.type in _IDENTIFIERS)
                continue
            children = node.children
            if not children:
                start, end = node.start_byte, node.end_byte
                text = plain[start:end] if plain is not None else data[start:end].decode("utf-8", "replace")
                if kind in _IDENTIFIERS:
                    names.add(text)
                out.append(text)
                continue
            out.append(kind)
            if kind == "arguments":  # the same for each of its children
                if parent is None:
                    passes = _passes_arguments(node.parent)
                elif top_passes is not None and parent is top:
                    passes = top_passes
                else:
                    passes = _passes_arguments(parent)
            elif kind == "binary_expression":
                passes = _passes_expected(node, kind, expected)
            else:
                passes = expected and kind in _EXPECTED_INSIDE
            stack.append((level, expected, parent))
            stack.append((iter(children), passes, node))
            break
    masked = out.copy()
    for index in literals:
        masked[index] = "·"
    return tuple(out), " ".join(masked), frozenset(slots), frozenset(names)


_IDENTIFIERS = ("identifier", "property_identifier")


def _passes_expected(node: Node, kind: str, expected: bool) -> bool:
    """Whether the children of ``node`` (of type ``kind``) are on the expected side of the check."""
    if kind == "arguments":
        return _passes_arguments(node.parent)
    if kind == "binary_expression":
        if not expected:
            return False
        operator = node.child_by_field_name("operator")
        return operator is not None and operator.type in _COMPARISONS
    return expected and kind in _EXPECTED_INSIDE


def _passes_arguments(call: Node | None) -> bool:
    """Whether the arguments of ``call`` (an `arguments` node's parent) are on the expected side: those of an
    assertion or a matcher, not of `expect(...)` itself."""
    return _passes_path(_path(call.child_by_field_name("function")) if call is not None else None)


def _passes_path(path: list[str] | None) -> bool:
    """``_passes_arguments`` of a call whose callee's path is ``path``."""
    return bool(path) and path != ["expect"] and _is_check(path)  # type: ignore[arg-type]


_EXPECTED_INSIDE = frozenset({"array", "object", "pair", "unary_expression", "parenthesized_expression"})


def _tautology(top: Node, path: list[str], args: list[Node]) -> bool:
    """`expect(true).toBe(true)`, `expect(x).toBe(x)`, `assert.ok(true)`, `assert.strictEqual(1, 1)`, `t.pass()`...
    of an assertion call, given its callee's path and its arguments."""
    if path == ["t", "pass"]:
        return True
    if path[-1] in _NEVER_THROWS or path[-2:] == ["not", "toThrow"]:  # `t.notThrows(() => {})`: nothing to throw
        subject = args[:1] if path[0] != "expect" else _arguments(_expect_call(top))[:1]
        return bool(subject) and _does_nothing(subject[0])
    if path[:2] == ["expect", "()"]:
        if "not" in path:
            return False
        subject = _arguments(top.child_by_field_name("function").child_by_field_name("object"))  # type: ignore[union-attr]
        args = subject[:1] + args
    matcher = path[-1]
    if matcher in _SAME and len(args) >= 2:  # `expect(x).toBe(x)`; `expect(make()).toEqual(make())` tests `make`
        calls = any(n.type in ("call_expression", "new_expression", "await_expression") for n in walk(args[0]))
        return not calls and normalised(_text(args[0])) == normalised(_text(args[1]))
    if (matcher in _TRUTHY or path == ["assert"]) and len(args) == 1:
        return _truth(args[0]) is True
    if matcher in ("false", "falsy", "isFalse", "toBeFalsy") and len(args) == 1:
        return _truth(args[0]) is False
    return False


_NEVER_THROWS = {"notThrows", "notThrowsAsync", "doesNotThrow", "doesNotReject"}


def _does_nothing(node: Node) -> bool:
    """A function with an empty body, or one that returns a literal: `() => {}`, `function () {}`, `() => 1`."""
    if node.type not in _FUNCTIONS:
        return False
    body = node.child_by_field_name("body")
    if body is None:
        return False
    if body.type == "statement_block":
        return not any(child.type != "comment" for child in body.named_children)
    return body.type in _LITERALS


def _arguments(call: Node | None) -> list[Node]:
    if call is None or call.type != "call_expression":
        return []
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _truth(node: Node) -> bool | None:
    if node.type == "true":
        return True
    if node.type in ("false", "null", "undefined"):
        return False
    if node.type == "number":
        return _text(node).strip("0.xXn_") != ""
    if node.type in ("string", "template_string") and not any(c.type == "template_substitution" for c in node.children):
        return len(_text(node)) > 2
    if node.type == "unary_expression" and _text(node).startswith("!"):
        inner = _truth(node.child_by_field_name("argument"))  # type: ignore[arg-type]
        return None if inner is None else not inner
    if node.type == "parenthesized_expression" and len(node.named_children) == 1:
        return _truth(node.named_children[0])
    if node.type == "binary_expression":
        return _binary_truth(node)
    return None


def _binary_truth(node: Node) -> bool | None:
    """`x || true` is true and `x && false` false whatever x is; `1 === 1` compares two literals."""
    operator = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if operator is None or left is None or right is None:
        return None
    op = operator.type
    if op == "||":
        sides = (_truth(left), _truth(right))
        return True if True in sides else (False if sides == (False, False) else None)
    if op == "&&":
        sides = (_truth(left), _truth(right))
        return False if False in sides else (True if sides == (True, True) else None)
    if op in ("===", "==", "!==", "!=") and left.type in _COMPARABLE and right.type == left.type:
        same = _literal(left) == _literal(right)
        return same if op in ("===", "==") else not same
    return None


_COMPARABLE = {"number", "string", "true", "false", "null", "undefined"}


def _literal(node: Node) -> object:
    """A literal's value as far as equality goes: numbers by value, strings by their text inside the quotes."""
    text = _text(node)
    if node.type == "number":
        try:
            return float(text.replace("_", ""))
        except ValueError:
            return text
    return text[1:-1] if node.type == "string" else text


def _path(node: Node | None) -> list[str] | None:
    """`it.skip` -> [it, skip]; `test.each(rows)` -> [test, each, ()]; None for any other callee."""
    parts: list[str] = []
    while node is not None:
        kind = node.type
        if kind == "identifier" or kind == "this":
            parts.append(_text(node))
            return parts[::-1]
        if kind == "member_expression":
            prop = node.child_by_field_name("property")
            parts.append(_text(prop) if prop is not None else "")
            node = node.child_by_field_name("object")
        elif kind == "call_expression":
            parts.append("()")
            node = node.child_by_field_name("function")
        else:
            return None
    return None


def _string(node: Node) -> str:
    text = _text(node)
    if node.type in ("string", "template_string") and len(text) >= 2:
        return text[1:-1]
    return text


def _quoted(title: str) -> str:
    shown = title if len(title) <= 60 else title[:57] + "..."
    return '"' + shown.replace('"', '\\"') + '"'


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")  # type: ignore[union-attr]


def _changed(side: Side, row: int) -> bool:
    return row < len(side.changed) and side.changed[row]

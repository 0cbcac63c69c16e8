"""Where the brackets, functions and statements of a JavaScript/TypeScript file are: a small lexer (strings,
template literals, comments and regex literals are not code) that pairs brackets, enough for the cheat
builder to find a function body, a test call or a run of whole statements without a JS parser."""
from __future__ import annotations

import re
from functools import cached_property

_OPEN, _CLOSE = "([{", ")]}"
# After one of these a `/` starts a regex literal, not a division.
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield",
                "await"}
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "with", "function", "return", "do", "else", "try"}
_NAME = r"[A-Za-z_$][\w$]*"
# `const parse = async (...) =>` or `parse: (...) =>` or `parse = function (` : the name before a function value.
_VALUE_NAME = re.compile(rf"(?:(?:const|let|var)\s+)?({_NAME})\s*(?::[^=;{{}}]*)?[:=]\s*(?:async\s*)?"
                         rf"(?:function\b[^(]*)?$")
_DECL_NAME = re.compile(rf"(?:function\s*\*?\s*({_NAME})\s*(?:<[^()]*>)?\s*$)|(?:({_NAME})\s*(?:<[^()]*>)?\s*$)")
# A return type between the parameters and the body: `): Promise<Foo[]> {`.
_RETURN_TYPE = re.compile(r"\)\s*:\s*[\w$.<>\[\], |&'\"?]*$")
STATEMENT_CONTINUES = re.compile(r"^(?:[.?:)\]},+\-*/%&|=<>]|else\b|catch\b|finally\b|case\b|default\b|as\b)")
_OPEN_ENDINGS = set(",([{.+-*/%&|^!~?:=<>")


class Source:
    """One JS/TS file's text, with its code characters, bracket pairs and line offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.code = [False] * len(text)  # True where a character is code (not in a string, comment, regex)
        self.pairs: dict[int, int] = {}  # offset of an opening bracket -> offset of its closing one
        self._scan()
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.line_starts = starts if starts[-1] < len(text) or not text else starts[:-1]

    # ---------------------------------------------------------------- lexing
    def _scan(self) -> None:
        text, i, stack, last = self.text, 0, [], ""  # stack: (offset, char) of open brackets; "`" marks ${
        while i < len(text):
            c = text[i]
            if c in "'\"":
                i = self._skip_string(i, c)
            elif c == "`":
                i = self._skip_template(i + 1, stack)
            elif text.startswith("//", i):
                i = text.find("\n", i) if "\n" in text[i:] else len(text)
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                i = len(text) if end < 0 else end + 2
            elif c == "/" and (last in _REGEX_AFTER or self._word_before(i) in _REGEX_WORDS):
                i = self._skip_regex(i)
            else:
                self.code[i] = True
                if c in _OPEN:
                    stack.append((i, c))
                elif c in _CLOSE and stack:
                    opened, kind = stack.pop()
                    if kind == "`":  # the end of a template's ${...}: back inside the template
                        i = self._skip_template(i + 1, stack)
                        last = "`"
                        continue
                    self.pairs[opened] = i
                if not c.isspace():
                    last = c
                i += 1
                continue
            last = "a"  # a literal ends like an operand: a following `/` divides

    def _word_before(self, i: int) -> str:
        found = re.search(rf"({_NAME})\s*$", self.text[max(0, i - 20):i])
        return found.group(1) if found else ""

    def _skip_string(self, i: int, quote: str) -> int:
        j = i + 1
        while j < len(self.text) and self.text[j] not in (quote, "\n"):
            j += 2 if self.text[j] == "\\" else 1
        return j + 1

    def _skip_template(self, j: int, stack: list) -> int:
        while j < len(self.text):
            if self.text[j] == "\\":
                j += 2
            elif self.text[j] == "`":
                return j + 1
            elif self.text.startswith("${", j):
                self.code[j + 1] = True
                stack.append((j + 1, "`"))
                return j + 2
            else:
                j += 1
        return j

    def _skip_regex(self, i: int) -> int:
        j, in_class = i + 1, False
        while j < len(self.text) and self.text[j] != "\n":
            c = self.text[j]
            if c == "\\":
                j += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                j += 1
                while j < len(self.text) and (self.text[j].isalpha()):
                    j += 1
                return j
            j += 1
        return j

    # ---------------------------------------------------------------- lines
    def line_of(self, offset: int) -> int:
        """1-based line number of offset."""
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def line_span(self, line: int) -> tuple[int, int]:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        return start, end

    def code_chars(self, line: int) -> str:
        """The code of one line, strings and comments left out."""
        start, end = self.line_span(line)
        return "".join(c for c, is_code in zip(self.text[start:end], self.code[start:end]) if is_code).strip()

    @cached_property
    def depths(self) -> list[tuple[int, int, int]]:
        """(depth at the line's start, lowest depth inside it, depth at its end) for every line."""
        out, depth, closes = [], 0, set(self.pairs.values())
        for line in range(1, len(self.line_starts) + 1):
            start, end = self.line_span(line)
            first = low = depth
            for i in range(start, end):
                if not self.code[i]:
                    continue
                if i in self.pairs:
                    depth += 1
                elif i in closes:
                    depth -= 1
                    low = min(low, depth)
            out.append((first, low, depth))
        return out

    # ---------------------------------------------------------------- functions
    def function_name(self, brace: int) -> str | None:
        """The name of the function whose body opens at brace, or None when the block is no named function."""
        end = self._last_code_before(brace)
        if end >= 1 and self.text[end - 1:end + 1] == "=>":
            return self._arrow_name(end - 1)
        found = _RETURN_TYPE.search(self.text[max(0, end - 200):end + 1])
        close = max(0, end - 200) + found.start() if found else end
        if self.text[close:close + 1] != ")" or close not in self.openers:
            return None
        opened = self.openers[close]
        head = self.text[max(0, opened - 200):opened]
        if re.search(r"(?:=|:)\s*(?:async\s*)?function\b[^(]*$", head):
            found = _VALUE_NAME.search(head.rstrip())
            return found.group(1) if found else None
        found = _DECL_NAME.search(head)
        name = found and (found.group(1) or found.group(2))
        if not name or name in _NOT_FUNCTIONS:
            return None
        if found.group(2) and re.search(r"(?:\bnew|[.(,=?:!&|]|\bawait|\breturn)\s*$", head[: found.start()]):
            return None  # a call (`new Foo(...) {` cannot be a body; `x.on(...) {` is no function either)
        return name

    def _arrow_name(self, arrow: int) -> str | None:
        """The name an arrow function is bound to (`const parse = (...) => {`, `parse: async x => {`)."""
        end = self._last_code_before(arrow)
        found = _RETURN_TYPE.search(self.text[max(0, end - 200):end + 1])
        if found and self.text[end] != ")":
            end = max(0, end - 200) + found.start()
        if self.text[end] == ")" and end in self.openers:
            params = self.openers[end]
        else:
            bare = re.search(rf"{_NAME}$", self.text[max(0, end - 60):end + 1])
            if not bare:
                return None
            params = end + 1 - len(bare.group(0))
        found = _VALUE_NAME.search(self.text[max(0, params - 200):params].rstrip())
        return found.group(1) if found else None

    def _last_code_before(self, offset: int) -> int:
        i = offset - 1
        while i >= 0 and (not self.code[i] or self.text[i].isspace()):
            i -= 1
        return i

    @cached_property
    def openers(self) -> dict[int, int]:
        """offset of a closing bracket -> offset of its opening one."""
        return {close: open_ for open_, close in self.pairs.items()}

    # ---------------------------------------------------------------- statements
    def ends_statement(self, line: int) -> bool:
        code = self.code_chars(line)
        return bool(code) and code[-1] not in _OPEN_ENDINGS

    def starts_statement(self, line: int) -> bool:
        code = self.code_chars(line)
        return bool(code) and not STATEMENT_CONTINUES.match(code)

    def whole_statements(self, first: int, last: int) -> bool:
        """Lines first..last are whole statements of one block: brackets balanced, no partial expression
        at either end, and the lines around them end and start statements too."""
        start_depth, _, _ = self.depths[first - 1]
        if any(low < start_depth for _, low, _ in self.depths[first - 1:last]):
            return False
        if self.depths[last - 1][2] != start_depth:
            return False
        if not self.starts_statement(first) or not self.ends_statement(last):
            return False
        before = next((n for n in range(first - 1, 0, -1) if self.code_chars(n)), None)
        after = next((n for n in range(last + 1, len(self.line_starts) + 1) if self.code_chars(n)), None)
        if before is not None and self.code_chars(before)[-1] not in ";{}" and not self.ends_statement(before):
            return False
        return after is None or self.starts_statement(after) or self.code_chars(after).startswith("}")

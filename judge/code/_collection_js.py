"""JavaScript runners' collection settings: ``package.json`` (AVA, Jest, Mocha, tap, test scripts), ``jest.config.*``,
``vitest.config.*``, ``ava.config.*`` and ``.mocharc.*``, read key by key from JSON, JS object literals and YAML."""

from __future__ import annotations

import re
from typing import Iterator

from judge.code._collection_base import Narrowing, _MAX_VALUE, _TEST_FILE
from judge.code._collection_pytest import Settings, _command, _excluded, _includes
from judge.lazy_pattern import lazy_compile
from judge.patch.paths import file_name


_JS_KEY = lazy_compile(r"""^\s*(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z_$][\w$]*))\s*:\s*(.*)$""")
_JS_STRING = lazy_compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`""")
_YAML_KEY = lazy_compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_YAML_ITEM = lazy_compile(r"^\s+-\s+(.*)$")

Where = tuple[str, ...]


def _masked(line: str) -> str:
    """The line's code: string contents blanked out (so their brackets do not count), a // comment cut."""
    masked = _JS_STRING.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], line)
    cut = re.search(r"(?<![:\w])//", masked)
    return masked[:cut.start()] if cut else masked


def _strings(text: str) -> list[str]:
    found = [next((g for g in m.groups() if g is not None), "") for m in _JS_STRING.finditer(text)]
    return [s.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\") for s in found]


def _js_values(lines: list[str]) -> Iterator[tuple[Where, list[str]]]:
    """Each key in view, with the keys it sits in ("?" first when the side starts inside a block whose opening
    is out of view) and the strings of its value; an array is read on to its closing bracket."""
    stack: list[str] = []  # the key of each open bracket ("" for an unnamed one)
    rooted = False
    reading: tuple[Where, list[str], int] | None = None  # an array value being read, and the depth it closes at
    orphans: list[str] = []  # strings of an array whose key is above the side
    for line in lines:
        code = _masked(line[:_MAX_VALUE])
        net = code.count("{") + code.count("[") - code.count("}") - code.count("]")
        found = _JS_KEY.match(line[:len(code)]) if reading is None else None
        if not stack and not rooted and not found and reading is None:
            orphans.extend(_strings(line[:len(code)]))
            if "]" in code and orphans:
                yield ("?", "?[]"), orphans
            if "]" in code or "}" in code or "{" in code:
                orphans = []
        if reading is not None:
            reading[1].extend(_strings(line[:len(code)]))
        elif found:
            key = next(g for g in found.groups()[:3] if g is not None)
            where = (() if rooted else ("?",)) + tuple(k for k in stack if k) + (key,)
            values = _strings(found.group(4))
            if net > 0 and found.group(4).lstrip().startswith("["):
                reading = (where, values, len(stack))
            elif net <= 0:
                yield where, values or [found.group(4).strip().rstrip(",").strip()]
        if net > 0:
            rooted = rooted or (not stack and not found)
            stack.extend([key if found else ""] + [""] * (net - 1))
        for _ in range(-net):
            if stack:
                stack.pop()
            else:
                rooted = False
        if reading is not None and len(stack) <= reading[2]:
            yield reading[0], reading[1]
            reading = None
    if reading is not None:
        yield reading[0], reading[1]


def _yaml_values(lines: list[str]) -> Iterator[tuple[Where, list[str]]]:
    """Top-level keys of a .mocharc.yml, with a scalar value or a list of items."""
    key, values = None, []
    for line in lines + ["end:"]:
        if key and (item := _YAML_ITEM.match(line)):
            values.append(item.group(1).strip().strip("'\""))
            continue
        if key:
            yield (key,), values
            key = None
        if found := _YAML_KEY.match(line):
            key, rest = found.group(1), found.group(2).split(" #", 1)[0].strip()
            values = _strings(rest) or ([rest.strip("[]")] if rest else [])


_JEST_KEYS = frozenset({"testMatch", "testRegex", "testPathIgnorePatterns", "roots", "modulePathIgnorePatterns",
                        "testNamePattern"})
_MOCHA_KEYS = frozenset({"spec", "ignore", "exclude", "grep", "fgrep"})
_AVA_KEYS = frozenset({"files", "match", "exclude"})
_TAP_KEYS = frozenset({"include", "exclude", "files", "grep"})


def _setting(path: str, where: Where) -> str | None:
    """The setting a key path is, by file and enclosing key; None for keys that decide nothing about tests."""
    name, key = file_name(path), where[-1]
    parent = where[-2] if len(where) > 1 else ""
    if name == "package.json":
        if parent in ("ava", "jest", "mocha", "tap") and key in {"ava": _AVA_KEYS, "jest": _JEST_KEYS,
                                                                 "mocha": _MOCHA_KEYS, "tap": _TAP_KEYS}[parent]:
            return f"{parent}.{key}"
        if parent in ("scripts", "?") and re.fullmatch(r"test(?::[\w:-]+)?", key):
            return f"scripts.{key}"
        if parent == "?" and key in _JEST_KEYS:
            return f"jest.{key}"
        if parent == "?" and key in ("files", "?[]"):
            return "?files"  # AVA's or npm's: told apart by what it lists
        return "ava.match" if parent == "?" and key == "match" else None
    tool = name.lstrip(".").split(".")[0]
    if tool in ("vitest", "vite") and parent == "test" and key in ("include", "exclude", "testNamePattern"):
        return f"test.{key}"
    if tool == "jest" and key in _JEST_KEYS:
        return f"jest.{key}"
    if tool == "ava" and key in _AVA_KEYS and parent in ("", "?"):
        return f"ava.{key}"
    if tool == "mocharc" and key in _MOCHA_KEYS and parent in ("", "?"):
        return f"mocha.{key}"
    return None


def _unfolded(lines: list[str]) -> list[str]:
    """The lines with a break after each `{` and `,` and before each `}` outside strings, so that an object written
    on one line (`defineConfig({test: {exclude: ['a.test.ts']}})`) is read key by key, as a multi-line one is."""
    out: list[str] = []
    for line in lines:
        code = _masked(line)
        if code.count("{") + code.count(",") <= 1 and "}" not in code.rstrip().rstrip(",")[:-1]:
            out.append(line)
            continue
        start = 0
        for at, char in enumerate(code):
            if char in "{," or char == "}" and code[start:at].strip():
                cut = at + 1 if char in "{," else at
                out.append(line[start:cut])
                start = cut
        out.append(line[start:])
    return out


def _js_settings(path: str, sides: list[list[str]], yaml: bool) -> Settings:
    settings: Settings = {}
    for lines in sides:
        for where, values in (_yaml_values(lines) if yaml else _js_values(_unfolded(lines))):
            if (setting := _setting(path, where)) is not None:
                settings.setdefault(setting, []).extend(values)
    if "?files" in settings:  # a `files` whose block is out of view: AVA's when it names tests
        files = settings.pop("?files")
        if any(re.search(r"test|spec", v) for v in files if not v.startswith("!")):
            settings["?ava.files"] = files
    return settings


_JS_INCLUDES = ("ava.files", "?ava.files", "jest.testMatch", "test.include", "mocha.spec", "jest.roots", "tap.include",
                "tap.files")
_JS_EXCLUDES = ("jest.testPathIgnorePatterns", "jest.modulePathIgnorePatterns", "test.exclude", "mocha.ignore",
                "mocha.exclude", "ava.exclude", "tap.exclude")
_JS_NAME_FILTERS = ("ava.match", "jest.testNamePattern", "test.testNamePattern", "mocha.grep", "mocha.fgrep",
                    "tap.grep")


def _read_js(path: str, olds: list[list[str]], news: list[list[str]], yaml: bool = False) -> Iterator[Narrowing]:
    old, new = _js_settings(path, olds, yaml), _js_settings(path, news, yaml)
    for key in _JS_INCLUDES:
        if key in new and new[key] != old.get(key):
            yield from _includes(path, key, old.get(key), new[key])
    for key in ("ava.files",):
        if key in new:
            yield from _excluded(path, key, old.get(key, []), [v for v in new[key] if v.startswith("!")])
    for key in _JS_EXCLUDES:
        if key in new:
            yield from _excluded(path, key, old.get(key, []), new[key])
    for key in _JS_NAME_FILTERS:
        for value in new.get(key, []):
            if value not in old.get(key, []):
                yield Narrowing(path, key, "", value, f"runs only tests whose titles match `{value}`", True,
                                f"take `{value}` out of {key} in {path}; fix the test or the code instead")
    if "jest.testRegex" in new and new["jest.testRegex"] != old.get("jest.testRegex"):
        named = any(_TEST_FILE.search(v.replace("\\", "")) for v in new["jest.testRegex"])
        before, after = " ".join(old.get("jest.testRegex", [])), " ".join(new["jest.testRegex"])
        yield Narrowing(path, "jest.testRegex", before, after, "may collect fewer test files", named,
                        f"restore jest.testRegex in {path}")
    for key in sorted(k for k in new if k.startswith("scripts.")):
        for before, after in zip(old.get(key, []), new[key]):
            yield from _command(path, key, before, after)


def _read_yaml(path: str, olds: list[list[str]], news: list[list[str]]) -> Iterator[Narrowing]:
    return _read_js(path, olds, news, yaml=True)

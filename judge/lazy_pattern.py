"""Regular expressions compiled the first time they are used, not when their module is imported.

Python's ``re`` parses and compiles in Python, from a fraction of a millisecond to a few per pattern, and judge
holds a few hundred patterns at module level: one per language, test runner, cheat and phrase, most of which one
run never touches (a Python change never needs the Go test patterns). Compiled at import they were about a third
of `judge validate`'s cold start. ``lazy_compile(pattern, flags)`` stands where ``re.compile(pattern, flags)``
stood; what it returns compiles on the first use of any method or attribute and then answers exactly as the
compiled pattern does.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LazyPattern", "lazy_compile"]


class LazyPattern:
    """A ``re.Pattern`` compiled on first use. ``pattern`` (the source) is there without compiling, so patterns
    may be built from others at import time; every other attribute (``search``, ``flags``, ``groups``...) is the
    compiled pattern's, kept on the instance once looked up so that later uses cost a plain attribute read."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags  # as given: the compiled pattern's ``flags`` also holds re.UNICODE

    def compiled(self) -> re.Pattern[str]:
        found = self.__dict__.get("_compiled")
        if found is None:  # two threads may both compile: same pattern, same result; the cache keeps one
            found = self.__dict__["_compiled"] = re.compile(self.pattern, self._flags)
        return found

    def __getattr__(self, name: str) -> Any:
        # Called only for names the instance does not hold yet. Dunder probes (copy, pickle, hasattr checks of
        # protocols) must not compile or answer for the pattern.
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}{f', {self._flags!r}' if self._flags else ''})"


def lazy_compile(pattern: str, flags: int = 0) -> LazyPattern:
    """``re.compile(pattern, flags)``, compiled when first used."""
    return LazyPattern(pattern, flags)

"""Caches of what the detectors read from one change's text (syntax trees, repaired sides, lexed lines), emptied
before each validation.

Every detector reads the same hunk sides, so one validation parses a side once however many ask. Kept across
validations, they would hold a large change's trees and lines in memory after its verdict, and would answer a
change judged again (an eval run's second pass, a benchmark's) from memory: a speed no new change gets. Emptying
them when a validation starts costs a validation on another thread (judge eval, judge serve) only a second parse.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, TypeVar

__all__ = ["forget", "text_cache"]

F = TypeVar("F", bound=Callable[..., Any])

_CACHES: list[Any] = []


def text_cache(maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)``, emptied by ``forget``."""

    def cached(function: F) -> F:
        wrapper = lru_cache(maxsize=maxsize)(function)
        _CACHES.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return cached


def forget() -> None:
    """Empty every text cache: what one change's text held is not kept for the next."""
    for cache in _CACHES:
        cache.cache_clear()

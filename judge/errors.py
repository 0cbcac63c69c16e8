"""The one exception family judge raises: bad input the caller must fix."""

from __future__ import annotations

__all__ = ["JudgeError", "InputError"]


class JudgeError(Exception):
    """Base class of every error judge raises on purpose."""


class InputError(JudgeError):
    """Input that cannot be read or parsed: the message says what, where and what to do."""

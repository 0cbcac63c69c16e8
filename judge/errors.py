"""The one exception hierarchy judge raises on purpose: JudgeError > InputError, ContractViolation, MalformedPatch."""

from __future__ import annotations

import re
from typing import Mapping

from judge.lazy_pattern import lazy_compile

__all__ = ["JudgeError", "InputError", "WorkspaceRefused", "CheckFailed", "ContractViolation", "MalformedPatch",
           "field_ref", "name_fields", "quote_line"]

# Marks a reference to another input inside a message (`give {base} <commit>`): the API reads it as the
# argument's name, the command line as its flag. A control character, so no real message holds it.
_REF = "\x1f"
_REF_PATTERN = lazy_compile(f"{_REF}([^{_REF}]+){_REF}")


def field_ref(name: str) -> str:
    """A reference to input ``name`` inside an InputError message: ``base`` in the API, ``--base`` on the CLI."""
    return f"{_REF}{name}{_REF}"


def name_fields(text: str, names: Mapping[str, str] | None = None) -> str:
    """``text`` with every ``field_ref`` worded by ``names`` (default: the field's own name)."""
    def word(match: re.Match[str]) -> str:
        try:
            return names[match.group(1)] if names is not None else match.group(1)
        except KeyError:
            return match.group(1)

    return _REF_PATTERN.sub(word, text)


class JudgeError(Exception):
    """Base class of every error judge raises on purpose."""


class InputError(JudgeError):
    """Input that cannot be read or used: what, where and what to do, in one line.

    ``field`` is the input at fault (a Python argument or setting, e.g. ``repo``); the message starts
    with it and names other inputs through ``field_ref``. ``str()`` words them as argument names;
    the command line words them as its flags with ``render``.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        gap = "" if message.startswith(":") else " "
        self._message = f"{field_ref(field)}{gap}{message}" if field else message
        super().__init__(self.render())

    def render(self, names: Mapping[str, str] | None = None) -> str:
        """The message with every input named by ``names`` (default: its own name)."""
        return name_fields(self._message, names)

    def __reduce__(self) -> tuple:
        """Pickled whole (an eval worker process hands its errors to the run): message, field and references."""
        return (_input_error, (self._message, self.field))


class WorkspaceRefused(InputError):
    """The caller's workspace arguments name nothing judge can use (no such directory, work tree, commit or ledger;
    a repository without its base; a ledger inside the repository): the arguments are at fault, not the work in
    the workspace, so every interface refuses them rather than judging. (A repository that opens but cannot be
    read through is plain InputError: the verdict is workspace_unreadable.)"""

    def __reduce__(self) -> tuple:
        return (_input_error, (self._message, self.field, type(self)))


def _input_error(message: str, field: str | None, kind: type[InputError] = InputError) -> InputError:
    error = kind(message)
    error.field = field
    return error


class CheckFailed(JudgeError):
    """A rule or a gate raised: judge's own failure, named (``kind`` "rule" or "gate", ``name`` its id or type);
    the exception it raised is the cause. The pipeline words it as judge_error naming the stage and the check."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(f"{kind} {name}")
        self.kind = kind
        self.name = name


class ContractViolation(JudgeError, ValueError):
    """Input that breaks its JSON contract; ``path`` is a JSON path such as ``$.result.filesWritten[0]``."""

    def __init__(self, kind: str, schema: str, path: str, problem: str) -> None:
        self.kind = kind
        self.schema = schema
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")

    @property
    def message(self) -> str:
        return (f"the {self.kind} breaks its contract at {self.path}: {self.problem}. "
                f"Send a {self.kind} that matches schemas/{self.schema}.")


def quote_line(fragment: str, limit: int = 60) -> str:
    """A patch line as a MalformedPatch message quotes it: repr'd, cut after ``limit`` characters."""
    return repr(fragment if len(fragment) <= limit else fragment[:limit] + "...")


class MalformedPatch(JudgeError, ValueError):
    """The patch is not a unified diff that could be applied and rolled back safely."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        self.problem = problem
        self.line = line
        super().__init__(problem if line is None else f"{problem} (patch line {line})")

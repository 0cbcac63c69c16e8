"""A step and a result read without pydantic when they hold only plain fields — no gates, evidence schema,
policies, template or evidence document — the common case, and all a deterministic run reads of them.

``plain_step`` and ``plain_result`` take exactly what judge.contract.models' Step and ExecuteStepResult take and
give the same field values (tests/contract/test_plain.py holds the two together); for anything else — a breach
of the contract, a field they leave to the models, input that is not a plain dict of plain values — they return
None and the models read the input (and word what is wrong with it). Building the models means loading pydantic,
which is most of the cold start of `judge validate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.patch.globs import MAX_GLOB_CHARS, glob_problem

if TYPE_CHECKING:
    from judge.contract.models import ExecuteStepResult, Step

__all__ = ["MAX_FILES", "MAX_PATCH", "MODES", "PlainResult", "PlainStep", "is_text", "modelled", "plain_result",
           "plain_step"]

MODES: tuple[str, ...] = ("apply", "fix_regression")  # Step.mode's values (judge.contract.models.Mode)

MAX_PATCH = 64 * 1024 * 1024  # characters of a patch (the models' limit too)
MAX_FILES = 10_000  # paths or globs in one list (the models' limit too)
_MAX_ID = 200
_MAX_TEXT = 100_000
_LEFT_TO_THE_MODELS = {"step": ("gates", "evidenceSchema", "policies", "template"), "result": ("evidence",)}


class PlainStep:
    """Step's fields, read from a step with none of gates, evidenceSchema, policies or template."""

    __slots__ = ("id", "description", "mode", "allowed_files", "excluded_paths", "apply_files", "apply_patch",
                 "expects_no_changes", "_data")
    gates = evidence_schema = policies = template = None

    def __init__(self, data: dict, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_data", data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"PlainStep is frozen: cannot set {name}")

    def model(self) -> Step:
        """The Step model of the same input (its unknown keys kept, as the semantic stage's prompt shows them)."""
        from judge.contract.models import Step

        return Step.model_validate(self._data)


class PlainResult:
    """ExecuteStepResult's fields, read from a result without an evidence document."""

    __slots__ = ("mode", "success", "patch", "files_written", "files_touched", "summary", "_data")
    evidence = None

    def __init__(self, data: dict, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_data", data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"PlainResult is frozen: cannot set {name}")

    def model(self) -> ExecuteStepResult:
        from judge.contract.models import ExecuteStepResult

        return ExecuteStepResult.model_validate(self._data)


def modelled(value: Any) -> Any:
    """The pydantic model of a plain step or result; a model as it is."""
    return value.model() if isinstance(value, (PlainStep, PlainResult)) else value


class _NotPlain(Exception):
    """The input is not one the plain reading takes: the models read it."""


def plain_step(data: Any) -> PlainStep | None:
    """The step read without pydantic, or None when the Step model must read it."""
    try:
        _plain_keys(data, "step")
        mode = _optional(data, "mode", _mode)
        apply_files = _optional(data, "applyFiles", _paths)
        if mode == "fix_regression" and apply_files is None:  # the model's own check
            return None
        return PlainStep(
            data, id=_text(data["id"], 1, _MAX_ID), description=_text(data["description"], 1, _MAX_TEXT), mode=mode,
            allowed_files=_optional(data, "allowedFiles", _globs),
            excluded_paths=_optional(data, "excludedPaths", _globs), apply_files=apply_files,
            apply_patch=_optional(data, "applyPatch", _patch),
            expects_no_changes=_optional(data, "expectsNoChanges", _bool))
    except (_NotPlain, KeyError):
        return None


def plain_result(data: Any) -> PlainResult | None:
    """The result read without pydantic, or None when the ExecuteStepResult model must read it."""
    try:
        _plain_keys(data, "result")
        return PlainResult(
            data, mode=data["mode"], success=_bool(data["success"]), patch=_optional(data, "patch", _patch),
            files_written=_optional(data, "filesWritten", _names),
            files_touched=_optional(data, "filesTouched", _names),
            summary=_optional(data, "summary", lambda value: _text(value, 0, _MAX_TEXT)))
    except (_NotPlain, KeyError):
        return None


def _plain_keys(data: Any, kind: str) -> None:
    """A dict of text keys, none of them a field left to the models (unknown keys are kept by them, never read)."""
    if type(data) is not dict or any(data.get(name) is not None for name in _LEFT_TO_THE_MODELS[kind]):
        raise _NotPlain
    for key in data:
        _text(key, 0, None)


def _optional(data: dict, key: str, read: Any) -> Any:
    value = data.get(key)
    return None if value is None else read(value)


def is_text(value: Any, shortest: int = 0, longest: int | None = None) -> bool:
    """Whether a model's str field takes ``value`` unchanged: a str (a subclass would be copied) within the limits,
    with no lone surrogate (refused: it cannot be UTF-8)."""
    if type(value) is not str or len(value) < shortest or (longest is not None and len(value) > longest):
        return False
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
    return True


def _text(value: Any, shortest: int, longest: int | None) -> str:
    if not is_text(value, shortest, longest):
        raise _NotPlain
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise _NotPlain
    return value


def _mode(value: Any) -> str:
    if type(value) is not str or value not in MODES:
        raise _NotPlain
    return value


def _patch(value: Any) -> str:
    return _text(value, 0, MAX_PATCH)


def _items(value: Any) -> tuple:
    if type(value) not in (list, tuple) or len(value) > MAX_FILES:
        raise _NotPlain
    return tuple(value)


def _names(value: Any) -> tuple[str, ...]:
    return tuple(_text(item, 0, None) for item in _items(value))


def _paths(value: Any) -> tuple[str, ...]:
    return tuple(_text(item, 1, None) for item in _items(value))


def _globs(value: Any) -> tuple[str, ...]:
    globs = tuple(_text(item, 1, MAX_GLOB_CHARS) for item in _items(value))
    if any(glob_problem(glob) for glob in globs):
        raise _NotPlain
    return globs

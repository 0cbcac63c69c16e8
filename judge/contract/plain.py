"""A step and a result read without pydantic when they hold only plain fields — no gates, evidence schema,
policies, template or evidence document — the common case, and all a deterministic run reads of them.

``plain_step`` and ``plain_result`` take exactly what judge.contract.models' Step and ExecuteStepResult take and
give the same field values (tests/contract/test_plain.py holds the two together); for anything else — a breach
of the contract, a field they leave to the models, input that is not a plain dict of plain values — they return
None and the models read the input (and word what is wrong with it). Building the models means loading pydantic,
which is most of the cold start of `judge validate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

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


class _Plain:
    """A reading's fields as attributes. Frozen: they are set once, into the instance's dict, by the reading."""

    def __init__(self, data: dict, fields: dict[str, Any]) -> None:
        own = self.__dict__  # not through __setattr__, which refuses
        own.update(fields)
        own["_data"] = data

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name}")


class PlainStep(_Plain):
    """Step's fields, read from a step with none of gates, evidenceSchema, policies or template."""

    id: str
    description: str
    mode: str | None
    allowed_files: tuple[str, ...] | None
    excluded_paths: tuple[str, ...] | None
    apply_files: tuple[str, ...] | None
    apply_patch: str | None
    expects_no_changes: bool | None
    gates = evidence_schema = policies = template = None

    def model(self) -> Step:
        """The Step model of the same input (its unknown keys kept, as the semantic stage's prompt shows them)."""
        from judge.contract.models import Step

        return Step.model_validate(self._data)


class PlainResult(_Plain):
    """ExecuteStepResult's fields, read from a result without an evidence document."""

    mode: Any
    success: bool
    patch: str | None
    files_written: tuple[str, ...] | None
    files_touched: tuple[str, ...] | None
    summary: str | None
    evidence = None

    def model(self) -> ExecuteStepResult:
        from judge.contract.models import ExecuteStepResult

        return ExecuteStepResult.model_validate(self._data)


def modelled(value: Any) -> Any:
    """The pydantic model of a plain step or result; a model as it is."""
    return value.model() if isinstance(value, _Plain) else value


class _NotPlain(Exception):
    """The input is not one the plain reading takes: the models read it."""


def plain_step(data: Any) -> PlainStep | None:
    """The step read without pydantic, or None when the Step model must read it."""
    fields = _read(data, _STEP_KEYS, _STEP_FIELDS)
    if fields is None or fields["id"] is None or fields["description"] is None:  # both required, neither null
        return None
    if fields["mode"] == "fix_regression" and fields["apply_files"] is None:  # the model's own check
        return None
    return PlainStep(data, fields)


def plain_result(data: Any) -> PlainResult | None:
    """The result read without pydantic, or None when the ExecuteStepResult model must read it."""
    fields = _read(data, _RESULT_KEYS, _RESULT_FIELDS)
    if fields is None or "mode" not in data or fields["success"] is None:  # both required; mode may be anything
        return None
    return PlainResult(data, fields)


def _read(data: Any, keys: dict[str, tuple[str, Callable[[Any], Any]]], empty: dict[str, None]) -> dict[str, Any] | None:
    """Every field of ``keys`` (JSON key -> field, reader) as read from ``data``, None where its key is absent or
    null; None for the whole when ``data`` is not a dict, or a value or an unknown key (which the models keep and
    judge never reads) is not one the reading takes. Only the keys given are looked at. ``empty``: every field of
    ``keys``, None."""
    if type(data) is not dict:
        return None
    fields = empty.copy()
    try:
        for key, value in data.items():
            known = keys.get(key)
            if known is None:
                _text(key, 0, None)
            elif value is not None:
                fields[known[0]] = known[1](value)
    except _NotPlain:
        return None
    return fields


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


def _texts(value: Any, shortest: int, longest: int | None) -> tuple[str, ...]:
    """A list (or tuple) of at most MAX_FILES texts, as the tuple the models make of it."""
    if type(value) not in (list, tuple) or len(value) > MAX_FILES:
        raise _NotPlain
    for item in value:
        if not is_text(item, shortest, longest):
            raise _NotPlain
    return tuple(value)


def _names(value: Any) -> tuple[str, ...]:
    return _texts(value, 0, None)


def _paths(value: Any) -> tuple[str, ...]:
    return _texts(value, 1, None)


def _globs(value: Any) -> tuple[str, ...]:
    globs = _texts(value, 1, MAX_GLOB_CHARS)
    if any(glob_problem(glob) for glob in globs):
        raise _NotPlain
    return globs


def _identifier(value: Any) -> str:
    return _text(value, 1, _MAX_ID)


def _description(value: Any) -> str:
    return _text(value, 1, _MAX_TEXT)


def _summary(value: Any) -> str:
    return _text(value, 0, _MAX_TEXT)


def _anything(value: Any) -> Any:
    return value


def _left_to_the_models(value: Any) -> Any:
    raise _NotPlain


# JSON key -> (field, what the model takes of it unchanged). A key not listed is one the models keep as an unknown
# key, which judge never reads.
_STEP_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "id": ("id", _identifier),
    "description": ("description", _description),
    "mode": ("mode", _mode),
    "allowedFiles": ("allowed_files", _globs),
    "excludedPaths": ("excluded_paths", _globs),
    "applyFiles": ("apply_files", _paths),
    "applyPatch": ("apply_patch", _patch),
    "expectsNoChanges": ("expects_no_changes", _bool),
    "gates": ("gates", _left_to_the_models),
    "evidenceSchema": ("evidence_schema", _left_to_the_models),
    "policies": ("policies", _left_to_the_models),
    "template": ("template", _left_to_the_models),
}
_RESULT_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "mode": ("mode", _anything),
    "success": ("success", _bool),
    "patch": ("patch", _patch),
    "filesWritten": ("files_written", _names),
    "filesTouched": ("files_touched", _names),
    "summary": ("summary", _summary),
    "evidence": ("evidence", _left_to_the_models),
}
# Each reading's fields, all None: what it starts from (a copy costs a twentieth of making it anew).
_STEP_FIELDS: dict[str, None] = dict.fromkeys(field for field, _ in _STEP_KEYS.values())
_RESULT_FIELDS: dict[str, None] = dict.fromkeys(field for field, _ in _RESULT_KEYS.values())

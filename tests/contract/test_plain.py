"""judge.contract.plain reads a plain step and result exactly as the models do, and leaves every other input to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from helpers.builders import diff, make_case
from judge.contract.models import ExecuteStepResult, Step
from judge.contract.plain import PlainResult, PlainStep, is_text, modelled, plain_result, plain_step

ROOT = Path(__file__).resolve().parents[2]
STEP_FIELDS = ("id", "description", "mode", "allowed_files", "excluded_paths", "apply_files", "apply_patch",
               "expects_no_changes", "gates", "evidence_schema", "policies", "template")
RESULT_FIELDS = ("mode", "success", "patch", "files_written", "files_touched", "summary", "evidence")


class Text(str):
    pass


STEP = {"id": "s1", "description": "Add validation"}
RESULT = {"mode": "apply", "success": True, "patch": "diff --git a/x b/x\n", "filesWritten": ["x"]}

# Each a step the models may take or refuse; the plain reading must never take one they refuse or read it otherwise.
STEPS = [
    STEP,
    {**STEP, "mode": "apply", "allowedFiles": ["src/**", "!src/x.py"], "excludedPaths": ("vendor/",),
     "expectsNoChanges": False, "applyPatch": "", "gates": None, "policies": None, "template": None,
     "evidenceSchema": None, "allowed_files": ["ignored: not the contract's name"], "extra": {"kept": [1]}},
    {**STEP, "mode": "fix_regression", "applyFiles": ["a.py"], "applyPatch": "diff --git a/a.py b/a.py\n"},
    {**STEP, "mode": "fix_regression"},  # the model's check: applyFiles needed
    {**STEP, "mode": "fix_regression", "applyFiles": []},
    {**STEP, "mode": "Apply"}, {**STEP, "mode": Text("apply")}, {**STEP, "mode": 1}, {**STEP, "mode": None},
    {**STEP, "id": ""}, {**STEP, "id": "x" * 200}, {**STEP, "id": "x" * 201}, {**STEP, "id": "é" * 200},
    {**STEP, "id": "😀" * 200}, {**STEP, "id": "😀" * 201}, {**STEP, "id": "\ud800"}, {**STEP, "id": Text("s")},
    {**STEP, "id": 1}, {"description": "d"}, {"id": "s"}, {**STEP, "description": "d" * 100_000},
    {**STEP, "description": "d" * 100_001}, {**STEP, "description": "x\udc80y"},
    {**STEP, "allowedFiles": []}, {**STEP, "allowedFiles": [""]}, {**STEP, "allowedFiles": ["a" * 4096]},
    {**STEP, "allowedFiles": ["a" * 4097]}, {**STEP, "allowedFiles": ["[[:nope:]]"]}, {**STEP, "allowedFiles": "a"},
    {**STEP, "allowedFiles": {"a"}}, {**STEP, "allowedFiles": ["a"] * 10_000}, {**STEP, "allowedFiles": ["a"] * 10_001},
    {**STEP, "allowedFiles": [1]}, {**STEP, "allowedFiles": [None]}, {**STEP, "excludedPaths": ["\ud800"]},
    {**STEP, "applyFiles": [""]}, {**STEP, "applyFiles": ["a", Text("b")]}, {**STEP, "applyPatch": 1},
    {**STEP, "expectsNoChanges": 1}, {**STEP, "expectsNoChanges": "true"}, {**STEP, "expectsNoChanges": True},
    {**STEP, "gates": []}, {**STEP, "policies": {}}, {**STEP, "template": "t"}, {**STEP, "evidenceSchema": {}},
    {**STEP, 1: "x"}, {**STEP, "\ud800": 1}, {**STEP, "kept": "\ud800"},
    [STEP], "step", None,
]
RESULTS = [
    RESULT,
    {"mode": "apply", "success": False, "summary": "could not", "patch": None, "filesWritten": None},
    {"mode": {"any": ["value"]}, "success": True}, {"mode": None, "success": True}, {"success": True},
    {"mode": "apply"}, {"mode": "apply", "success": 1}, {"mode": "apply", "success": "true"},
    {**RESULT, "filesWritten": [""]}, {**RESULT, "filesWritten": ("a",)}, {**RESULT, "filesWritten": {"a"}},
    {**RESULT, "filesWritten": [1]}, {**RESULT, "filesTouched": ["a"] * 10_001}, {**RESULT, "filesTouched": []},
    {**RESULT, "summary": "s" * 100_000}, {**RESULT, "summary": "s" * 100_001}, {**RESULT, "summary": Text("s")},
    {**RESULT, "patch": "+\ud800"}, {**RESULT, "patch": "é\n"}, {**RESULT, "patch": b"diff"},
    {**RESULT, "evidence": {}}, {**RESULT, "evidence": None}, {**RESULT, "files_written": ["unknown key"]},
    {**RESULT, 2: 1}, [RESULT], None,
]


def _case_inputs() -> list[tuple[object, object]]:
    pairs = []
    for name in ("dev.jsonl", "cheats.jsonl", "gates.jsonl", "injection.jsonl"):
        for line in (ROOT / "evals" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                pairs.append((case["step"], case["result"]))
    return pairs


def _model(model: type, data: object) -> object | None:
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def _agrees(plain: object, model: object, fields: tuple[str, ...]) -> None:
    if plain is None:
        return
    assert model is not None, "the plain reading took what the model refuses"
    for name in fields:
        mine, theirs = getattr(plain, name), getattr(model, name)
        assert mine == theirs and type(mine) is type(theirs), name


@pytest.mark.parametrize("data", STEPS, ids=range(len(STEPS)))
def test_plain_step_reads_as_the_model_or_not_at_all(data: object) -> None:
    _agrees(plain_step(data), _model(Step, data), STEP_FIELDS)


@pytest.mark.parametrize("data", RESULTS, ids=range(len(RESULTS)))
def test_plain_result_reads_as_the_model_or_not_at_all(data: object) -> None:
    plain = plain_result(data)
    _agrees(plain, _model(ExecuteStepResult, data), RESULT_FIELDS)
    if plain is not None:
        assert plain.mode is data["mode"]  # Any: the model keeps the very value, and so does the plain reading


def test_every_eval_case_reads_as_the_model() -> None:
    pairs = _case_inputs()
    read = 0
    for step, result in pairs:
        plain, model = plain_step(step), _model(Step, step)
        _agrees(plain, model, STEP_FIELDS)
        _agrees(plain_result(result), _model(ExecuteStepResult, result), RESULT_FIELDS)
        read += plain is not None
    assert read > len(pairs) // 2  # most steps are plain: the fast reading is the one used


def test_the_plain_reading_takes_the_common_inputs() -> None:
    # The other side: what it takes is what a deterministic run mostly sees, so it cannot silently take nothing.
    step, result = make_case(diff("hidden_extra_file.diff"))
    taken = [plain_step(step), plain_result(result), plain_step(STEPS[1]), plain_step(STEPS[2]),
             plain_result(RESULTS[1]), plain_result(RESULTS[2])]
    assert all(taken)
    refused = [plain_step(data) for data in ({**STEP, "gates": []}, {**STEP, "id": "\ud800"}, {**STEP, 1: "x"})]
    assert refused == [None, None, None]


def test_plain_step_and_result_are_frozen_and_give_their_models() -> None:
    step, result = plain_step(STEPS[1]), plain_result(RESULT)
    assert isinstance(step, PlainStep) and isinstance(result, PlainResult)
    with pytest.raises(AttributeError):
        step.id = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.success = False  # type: ignore[misc]
    model = modelled(step)
    assert isinstance(model, Step) and model.model_extra == {"allowed_files": ["ignored: not the contract's name"],
                                                             "extra": {"kept": [1]}}
    assert modelled(result) == ExecuteStepResult.model_validate(RESULT)
    assert modelled(model) is model  # a model is already one


def test_is_text() -> None:
    assert is_text("") and is_text("é", 1, 1) and is_text("😀", 1, 1)
    assert not any((is_text(Text("a")), is_text(b"a"), is_text(None), is_text("ab", 0, 1), is_text("", 1),
                    is_text("a\ud800")))

"""schemas/ and judge/models.py agree; contract breaches name their JSON path and never echo huge values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

import judge
from builders import diff, make_case
from judge.errors import ContractViolation
from judge.contract.schema import parse_eval_case, parse_result, parse_step
from judge.contract.approvals import Approval
from judge.contract.models import EvalCase, EvidenceFile, ExecuteStepResult, ExecutionEvidence, Step, VerdictContract

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
HUGE = "x" * 1_000_000

STEP = {"id": "step-1", "description": "Add validation"}
RESULT = {"mode": "apply", "success": True}
CASE = {"id": "c1", "step": {}, "result": {}, "expected": {"valid": True}}


def _schema(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _model_accepts(model: type[BaseModel], data: object) -> bool:
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True


def _schema_accepts(name: str, data: object) -> bool:
    return _schema(name).is_valid(data)


# (data, accepted?) per contract. Both the schema and the model must give the expected answer.
STEP_CASES = {
    "minimal": (STEP, True),
    "full-apply": ({**STEP, "mode": "apply", "allowedFiles": ["src/**"], "excludedPaths": ["vendor/"],
                    "applyFiles": ["src/a.py"], "applyPatch": ""}, True),
    "fix-regression-with-apply-files": ({**STEP, "mode": "fix_regression", "applyFiles": ["src/a.py"]}, True),
    "unknown-key-kept": ({**STEP, "orchestratorTag": 7}, True),
    "not-an-object": (["step"], False),
    "missing-id": ({"description": "d"}, False),
    "empty-id": ({**STEP, "id": ""}, False),
    "id-too-long": ({**STEP, "id": "i" * 201}, False),
    "id-not-string": ({**STEP, "id": 1}, False),
    "empty-description": ({**STEP, "description": ""}, False),
    "unknown-mode": ({**STEP, "mode": "refactor"}, False),
    "mode-null": ({**STEP, "mode": None}, True),  # null reads as "not stated"
    "allowed-files-string": ({**STEP, "allowedFiles": "src/**"}, False),
    "allowed-files-number-item": ({**STEP, "allowedFiles": [1]}, False),
    "allowed-files-null": ({**STEP, "allowedFiles": None}, True),
    "fix-apply-files-null": ({**STEP, "mode": "fix_regression", "applyFiles": None}, False),
    "allowed-files-empty-item": ({**STEP, "allowedFiles": [""]}, False),
    "apply-patch-null": ({**STEP, "applyPatch": None}, True),
    "fix-regression-without-apply-files": ({**STEP, "mode": "fix_regression"}, False),
    "fix-regression-apply-files-null": ({**STEP, "mode": "fix_regression", "applyFiles": None}, False),
    # An unknown key the schema ignores must not be read by the model as one of its fields.
    "snake-case-key-is-not-a-field": ({**STEP, "allowed_files": 5}, True),
    "expects-no-changes-true": ({**STEP, "expectsNoChanges": True}, True),
    "expects-no-changes-false": ({**STEP, "expectsNoChanges": False}, True),
    "expects-no-changes-null": ({**STEP, "expectsNoChanges": None}, True),
    "expects-no-changes-string": ({**STEP, "expectsNoChanges": "true"}, False),
    "expects-no-changes-int": ({**STEP, "expectsNoChanges": 1}, False),
}

RESULT_CASES = {
    "minimal": (RESULT, True),
    "full": ({**RESULT, "patch": "p", "filesWritten": ["a"], "filesTouched": ["a", "b"], "summary": "s"}, True),
    "nulls": ({**RESULT, "patch": None, "filesWritten": None, "filesTouched": None, "summary": None}, True),
    "mode-any-json-type": ({**RESULT, "mode": 5}, True),
    "unknown-key-kept": ({**RESULT, "extra": {"a": 1}}, True),
    "not-an-object": ("result", False),
    "missing-mode": ({"success": True}, False),
    "missing-success": ({"mode": "apply"}, False),
    "success-string": ({**RESULT, "success": "true"}, False),
    "success-int": ({**RESULT, "success": 1}, False),
    "patch-number": ({**RESULT, "patch": 5}, False),
    "files-written-string": ({**RESULT, "filesWritten": "a.py"}, False),
    "files-written-number-item": ({**RESULT, "filesWritten": ["a", 3]}, False),
    "files-touched-null-item": ({**RESULT, "filesTouched": [None]}, False),
    "summary-too-long": ({**RESULT, "summary": "s" * 100_001}, False),
    "snake-case-key-is-not-a-field": ({**RESULT, "files_written": "a.py"}, True),
}

VERDICT_CASES = {
    "valid": ({"valid": True, "reason": "ok"}, True),
    "invalid": ({"valid": False, "reason": "undeclared_file: ..."}, True),
    "empty-reason": ({"valid": True, "reason": ""}, False),
    "valid-string": ({"valid": "true", "reason": "ok"}, False),
    "valid-int": ({"valid": 1, "reason": "ok"}, False),
    "reason-null": ({"valid": True, "reason": None}, False),
    "missing-reason": ({"valid": True}, False),
    "extra-key": ({"valid": True, "reason": "ok", "rule": None}, False),
    "not-an-object": ([True, "ok"], False),
}

CASE_CASES = {
    "minimal": (CASE, True),
    "full": ({**CASE, "expected": {"valid": False, "rule": "undeclared_file"}, "tags": ["a"], "notes": "n"}, True),
    "rule-null": ({**CASE, "expected": {"valid": True, "rule": None}}, True),
    "empty-id": ({**CASE, "id": ""}, False),
    "missing-result": ({k: v for k, v in CASE.items() if k != "result"}, False),
    "step-not-object": ({**CASE, "step": []}, False),
    "expected-missing-valid": ({**CASE, "expected": {"rule": "x"}}, False),
    "expected-extra-key": ({**CASE, "expected": {"valid": True, "why": "x"}}, True),  # metadata is ignored
    "rule-bad-pattern": ({**CASE, "expected": {"valid": False, "rule": "Undeclared-File"}}, False),
    "tags-number-item": ({**CASE, "tags": ["a", 1]}, False),
    "tags-null": ({**CASE, "tags": None}, False),
    "notes-null": ({**CASE, "notes": None}, True),
    "extra-top-level-key": ({**CASE, "source": {"repo": "x/y", "commit": "abc"}}, True),  # metadata is ignored
}

EVIDENCE_FILE = {"version": 1, "nodeId": "step-1", "timestamp": "2026-02-07T16:00:00.000Z", "summary": "Deployed"}

EVIDENCE_FILE_CASES = {
    "minimal": (EVIDENCE_FILE, True),
    "full": ({**EVIDENCE_FILE, "type": "analysis", "outcome": {"url": "x"}}, True),
    "offset-timestamp": ({**EVIDENCE_FILE, "timestamp": "2026-02-07T16:00:00+02:00"}, True),
    "version-float-one": ({**EVIDENCE_FILE, "version": 1.0}, True),
    "unknown-key-kept": ({**EVIDENCE_FILE, "extra": 1}, True),
    "version-2": ({**EVIDENCE_FILE, "version": 2}, False),
    "version-true": ({**EVIDENCE_FILE, "version": True}, False),
    "version-string": ({**EVIDENCE_FILE, "version": "1"}, False),
    "missing-node-id": ({k: v for k, v in EVIDENCE_FILE.items() if k != "nodeId"}, False),
    "empty-node-id": ({**EVIDENCE_FILE, "nodeId": ""}, False),
    "date-only": ({**EVIDENCE_FILE, "timestamp": "2026-02-07"}, False),
    "no-zone": ({**EVIDENCE_FILE, "timestamp": "2026-02-07T16:00:00"}, False),
    "blank-summary": ({**EVIDENCE_FILE, "summary": "  "}, False),
    "missing-summary": ({k: v for k, v in EVIDENCE_FILE.items() if k != "summary"}, False),
    "unknown-type": ({**EVIDENCE_FILE, "type": "other"}, False),
    "type-null": ({**EVIDENCE_FILE, "type": None}, True),
    "outcome-null": ({**EVIDENCE_FILE, "outcome": None}, True),
    "outcome-list": ({**EVIDENCE_FILE, "outcome": [1]}, False),
    "not-an-object": ([EVIDENCE_FILE], False),
}

EXECUTION = {
    "version": 1, "stepId": "step-1", "runId": "r1", "command": ["pytest", "-q"], "exitCode": 0,
    "stdout": "ok", "stderr": "", "stdoutBytes": 2, "stderrBytes": 0, "startedAt": "2026-02-07T16:00:00.000Z",
    "finishedAt": "2026-02-07T16:00:01.000Z", "durationSeconds": 1.0, "timedOut": False, "status": "SUCCESS",
    "evidenceHash": "0" * 64, "artifacts": ["artifacts/r1/step-1/stdout.log"],
}

EXECUTION_CASES = {
    "full": (EXECUTION, True),
    "no-evidence": ({**EXECUTION, "exitCode": None, "status": "NO_EVIDENCE", "error": "cannot run"}, True),
    "integer-duration": ({**EXECUTION, "durationSeconds": 1}, True),
    "negative-exit-code": ({**EXECUTION, "exitCode": -9, "status": "FAILURE", "timedOut": True}, True),
    "extra-key": ({**EXECUTION, "extra": 1}, False),
    "snake-case-key": ({**EXECUTION, "step_id": "step-1"}, False),
    "missing-hash": ({k: v for k, v in EXECUTION.items() if k != "evidenceHash"}, False),
    "short-hash": ({**EXECUTION, "evidenceHash": "abc"}, False),
    "upper-hash": ({**EXECUTION, "evidenceHash": "A" * 64}, False),
    "hash-trailing-newline": ({**EXECUTION, "evidenceHash": "0" * 64 + "\n"}, False),
    "empty-command": ({**EXECUTION, "command": []}, False),
    "command-string": ({**EXECUTION, "command": "pytest -q"}, False),
    "exit-code-float": ({**EXECUTION, "exitCode": 0.5}, False),
    "exit-code-bool": ({**EXECUTION, "exitCode": False}, False),
    "unknown-status": ({**EXECUTION, "status": "PASSED"}, False),
    "negative-bytes": ({**EXECUTION, "stdoutBytes": -1}, False),
    "negative-duration": ({**EXECUTION, "durationSeconds": -1}, False),
    "timed-out-string": ({**EXECUTION, "timedOut": "no"}, False),
    "version-2": ({**EXECUTION, "version": 2}, False),
    "signed": ({**EXECUTION, "evidenceMac": "0a" * 32}, True),
    "mac-null": ({**EXECUTION, "evidenceMac": None}, True),
    "mac-upper-hex": ({**EXECUTION, "evidenceMac": "0A" * 32}, False),
    "mac-short": ({**EXECUTION, "evidenceMac": "0a" * 31}, False),
    "mac-trailing-newline": ({**EXECUTION, "evidenceMac": "0a" * 32 + "\n"}, False),
    "mac-number": ({**EXECUTION, "evidenceMac": 1}, False),
    "mac-snake-case": ({**EXECUTION, "evidence_mac": "0a" * 32}, False),
}

APPROVAL = {"version": 1, "stepId": "step-1", "by": "ana", "note": None, "work": None, "at": "2026-02-07T16:00:00.000Z"}

APPROVAL_CASES = {
    "full": (APPROVAL, True),
    "with-note-and-work": ({**APPROVAL, "note": "looked at the diff", "work": "0a" * 32}, True),
    "note-and-work-absent": ({k: v for k, v in APPROVAL.items() if k not in ("note", "work")}, True),
    "version-float-one": ({**APPROVAL, "version": 1.0}, True),
    "version-true": ({**APPROVAL, "version": True}, False),
    "version-2": ({**APPROVAL, "version": 2}, False),
    "missing-version": ({k: v for k, v in APPROVAL.items() if k != "version"}, False),
    "missing-step-id": ({k: v for k, v in APPROVAL.items() if k != "stepId"}, False),
    "empty-step-id": ({**APPROVAL, "stepId": ""}, False),
    "step-id-too-long": ({**APPROVAL, "stepId": "s" * 201}, False),
    "step-id-number": ({**APPROVAL, "stepId": 1}, False),
    "snake-case-key": ({**APPROVAL, "step_id": "step-1"}, False),
    "missing-by": ({k: v for k, v in APPROVAL.items() if k != "by"}, False),
    "empty-by": ({**APPROVAL, "by": ""}, False),
    "blank-by": ({**APPROVAL, "by": " \t"}, False),
    "by-too-long": ({**APPROVAL, "by": "b" * 201}, False),
    "note-too-long": ({**APPROVAL, "note": "n" * 10_001}, False),
    "note-number": ({**APPROVAL, "note": 5}, False),
    "work-upper-hex": ({**APPROVAL, "work": "0A" * 32}, False),
    "work-short": ({**APPROVAL, "work": "0a" * 31}, False),
    "work-trailing-newline": ({**APPROVAL, "work": "0a" * 32 + "\n"}, False),
    "missing-at": ({k: v for k, v in APPROVAL.items() if k != "at"}, False),
    "at-no-zone": ({**APPROVAL, "at": "2026-02-07T16:00:00"}, False),
    "at-trailing-newline": ({**APPROVAL, "at": APPROVAL["at"] + "\n"}, False),
    "at-offset": ({**APPROVAL, "at": "2026-02-07T16:00:00+02:00"}, True),
    "extra-key": ({**APPROVAL, "by_proxy": "x"}, False),
    "not-an-object": ([APPROVAL], False),
}

TABLE = [
    pytest.param(schema, model, data, accepted, id=f"{schema.split('.')[0]}-{name}")
    for schema, model, cases in (
        ("step.schema.json", Step, STEP_CASES),
        ("execute-step.schema.json", ExecuteStepResult, RESULT_CASES),
        ("verdict.schema.json", VerdictContract, VERDICT_CASES),
        ("eval-case.schema.json", EvalCase, CASE_CASES),
        ("evidence-file.schema.json", EvidenceFile, EVIDENCE_FILE_CASES),
        ("execution-evidence.schema.json", ExecutionEvidence, EXECUTION_CASES),
        ("approval.schema.json", Approval, APPROVAL_CASES),
    )
    for name, (data, accepted) in cases.items()
]


@pytest.mark.parametrize(("schema", "model", "data", "accepted"), TABLE)
def test_schema_gives_the_expected_answer(schema, model, data, accepted):
    assert _schema_accepts(schema, data) is accepted


@pytest.mark.parametrize(("schema", "model", "data", "accepted"), TABLE)
def test_model_agrees_with_the_schema(schema, model, data, accepted):
    assert _model_accepts(model, data) is _schema_accepts(schema, data)


def test_snake_case_key_does_not_populate_the_model_field():
    # filesWritten is the contract's key; files_written is an unknown key the schema lets through untouched.
    assert ExecuteStepResult.model_validate({**RESULT, "files_written": ["a.py"]}).files_written is None


@pytest.mark.parametrize("name", ["step.schema.json", "execute-step.schema.json", "verdict.schema.json",
                                  "eval-case.schema.json", "evidence-file.schema.json",
                                  "execution-evidence.schema.json"])
def test_every_schema_is_a_valid_draft_2020_12_schema(name):
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


# --- parse_step / parse_result: JSON paths --------------------------------------------------------


def _violation(parse, data) -> ContractViolation:
    with pytest.raises(ContractViolation) as info:
        parse(data)
    return info.value


def test_result_success_not_boolean_names_its_path():
    error = _violation(parse_result, {**RESULT, "success": "yes"})
    assert error.path == "$.result.success"
    assert "boolean" in error.problem


def test_result_bad_files_written_item_names_its_index():
    assert _violation(parse_result, {**RESULT, "filesWritten": ["a.py", 3]}).path == "$.result.filesWritten[1]"


def test_result_missing_success_names_the_result():
    error = _violation(parse_result, {"mode": "apply"})
    assert error.path.startswith("$.result") and "success" in str(error)


def test_fix_regression_step_without_apply_files_names_apply_files_path():
    error = _violation(parse_step, {**STEP, "mode": "fix_regression"})
    assert error.path == "$.step.applyFiles"


def test_fix_regression_step_without_apply_files_mentions_apply_files():
    assert "applyFiles" in str(_violation(parse_step, {**STEP, "mode": "fix_regression"}))


@pytest.mark.parametrize("data", [["a"], "step", 3, None, True])
def test_step_that_is_not_an_object_names_the_step(data):
    error = _violation(parse_step, data)
    assert error.path == "$.step"
    assert "object" in error.problem


def test_step_unknown_mode_names_its_path():
    assert _violation(parse_step, {**STEP, "mode": "refactor"}).path == "$.step.mode"


def test_eval_case_bad_rule_names_nested_path():
    data = {**CASE, "expected": {"valid": False, "rule": "Bad-Rule"}}
    assert _violation(parse_eval_case, data).path == "$.eval-case.expected.rule"


def test_violation_message_points_at_the_schema_file():
    message = _violation(parse_result, {**RESULT, "success": "yes"}).message
    assert "$.result.success" in message and "schemas/execute-step.schema.json" in message


def test_parse_returns_models_with_aliases_resolved():
    step = parse_step({**STEP, "allowedFiles": ["src/**"]})
    result = parse_result({**RESULT, "filesWritten": ["a.py"]})
    assert (step.allowed_files, result.files_written) == (("src/**",), ("a.py",))


# --- messages never echo a huge value -----------------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "data"),
    [
        (parse_result, {**RESULT, "success": HUGE}),
        (parse_result, {**RESULT, "filesWritten": [HUGE, 3]}),
        (parse_result, {**RESULT, "summary": HUGE}),
        (parse_result, HUGE),
        (parse_step, {**STEP, "mode": HUGE}),
        (parse_step, {**STEP, "id": HUGE}),
        (parse_step, {**STEP, "allowedFiles": {HUGE: 1}}),
        (parse_eval_case, {**CASE, "tags": {HUGE: 1}}),
        (parse_eval_case, {**CASE, "expected": {"valid": True, "rule": HUGE.upper()}}),
    ],
    ids=["bool-as-huge-string", "array-with-huge-item", "huge-summary", "huge-string-result", "huge-enum-value",
         "huge-id", "huge-key-in-wrong-type", "huge-key-in-wrong-tags", "huge-pattern-mismatch"],
)
def test_violation_message_stays_short_for_a_huge_value(parse, data):
    error = _violation(parse, data)
    assert len(str(error)) < 300
    assert len(error.message) < 300


def test_verdict_reason_stays_short_for_a_huge_value():
    step, result = make_case(success=HUGE)
    assert len(judge.validate(step, result).reason) < 300


# --- through judge.validate ----------------------------------------------------------------------


def test_contract_breach_is_an_invalid_verdict_with_rule_schema_invalid():
    step, result = make_case(success="yes")
    verdict = judge.validate(step, result)
    assert (verdict.valid, verdict.rule) == (False, "schema_invalid")
    assert "$.result.success" in verdict.reason


def test_step_breach_reason_contains_the_step_path():
    step, result = make_case(step={"mode": "fix_regression"})
    verdict = judge.validate(step, result)
    assert verdict.rule == "schema_invalid" and "$.step" in verdict.reason


def test_files_written_item_breach_reason_contains_the_indexed_path():
    step, result = make_case(filesWritten=["src/app.py", None])
    verdict = judge.validate(step, result)
    assert verdict.rule == "schema_invalid" and "$.result.filesWritten[1]" in verdict.reason


def test_snake_case_files_written_does_not_count_as_the_contracts_files_written():
    # The schema knows only filesWritten; a result without it has declared nothing.
    step, result = make_case(filesWritten=..., files_written=["src/app.py"])
    verdict = judge.validate(step, result)
    assert (verdict.valid, verdict.rule) == (False, "missing_files_written")


def test_non_object_result_is_schema_invalid_not_a_crash():
    verdict = judge.validate(make_case()[0], "not json object")
    assert (verdict.valid, verdict.rule) == (False, "schema_invalid")


# --- the verdict contract ------------------------------------------------------------------------


def test_verdict_schema_has_exactly_valid_and_reason():
    schema = json.loads((SCHEMAS / "verdict.schema.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]) == {"valid", "reason"}
    assert set(schema["required"]) == {"valid", "reason"}
    assert schema["additionalProperties"] is False


def test_verdict_schema_rejects_an_extra_key():
    assert not _schema_accepts("verdict.schema.json", {"valid": True, "reason": "ok", "rule": "x"})


VERDICT_INPUTS = {
    "valid": make_case(),
    "undeclared-file": make_case(diff("hidden_extra_file.diff")),
    "schema-invalid": make_case(success="yes"),
    "malformed-patch": make_case("--- a/x\n+++ b/x\n"),
    "failure-without-summary": make_case(success=False, patch=None, filesWritten=None, summary="failed"),
    "non-dict-inputs": (None, 42),
}


@pytest.mark.parametrize("name", sorted(VERDICT_INPUTS))
def test_every_verdict_contract_validates_against_the_verdict_schema(name):
    contract = judge.validate(*VERDICT_INPUTS[name]).contract()
    errors = [e.message for e in _schema("verdict.schema.json").iter_errors(contract)]
    assert errors == []
    assert VerdictContract.model_validate(contract).valid is contract["valid"]


def test_valid_case_gives_a_valid_contract():
    assert judge.validate(*VERDICT_INPUTS["valid"]).contract()["valid"] is True


def test_undeclared_file_gives_an_invalid_contract():
    assert judge.validate(*VERDICT_INPUTS["undeclared-file"]).contract()["valid"] is False


# --- version -------------------------------------------------------------------------------------


def test_package_version_equals_pyproject_version():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        project = re.search(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
        version = project.group(1)
    else:
        version = tomllib.loads(text)["project"]["version"]
    assert judge.__version__ == version

"""schemas/ and judge/models.py agree; contract breaches name their JSON path and never echo huge values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

import judge
from helpers.builders import diff, make_case
from judge.errors import ContractViolation
from judge.contract.gates import EvidenceDoc, EvidenceSchemaSpec, Gate, PolicyLayer, StepTemplate
from judge.contract.schema import parse_eval_case, parse_result, parse_step, schema_registry
from judge.contract.approvals import Approval
from judge.contract.models import EvalCase, EvidenceFile, ExecuteStepResult, ExecutionEvidence, Step, VerdictContract

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
HUGE = "x" * 1_000_000

STEP = {"id": "step-1", "description": "Add validation"}
RESULT = {"mode": "apply", "success": True}
CASE = {"id": "c1", "step": {}, "result": {}, "expected": {"valid": True}}


def _schema(name: str) -> Draft202012Validator:
    # The schemas $ref each other (step.schema.json -> gate.schema.json): resolved from schemas/, never fetched.
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=schema_registry())


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

# --- seed 004's contracts: gates, the evidence document, the evidence schema, policies, step templates ----------

GOOD_GATES = {
    "command_exit_0": {"command": "python -m pytest -q"},
    "command_output_contains": {"command": "pytest -q", "contains": "passed"},
    "command_output_regex": {"command": "pytest -q", "pattern": r"\d+ passed"},
    "file_exists": {"path": "docs/guide.md"},
    "file_not_exists": {"path": "build/debug.log"},
    "changed_files_allowlist": {"allowed": ["src/**", "tests/**"]},
    "changed_files_minimum": {"paths": ["tests/**"], "min_count": 2},
    "forbid_paths": {"paths": ["vendor/**", "*.lock"]},
    "diff_max_lines": {"max": 0},
    "diff_min_lines": {"min": 1},
    "json_schema_valid": {"path": "out/report.json", "schema": {"type": "object", "required": ["ok"],
                                                              "properties": {"ok": {"const": True}}}},
    "criteria_checklist_complete": {},
    "patch_applies_cleanly": {"patch": "diff --git a/x b/x\n"},
    "no_uncommitted_changes": {},
    "tests_passed": {},
    "lint_passed": {},
    "human_approval": {},
}
GATE = {"type": "command_exit_0", "parameters": GOOD_GATES["command_exit_0"], "description": "the tests pass"}

GATE_CASES = {
    **{f"good-{kind}": ({"type": kind, "parameters": parameters}, True) for kind, parameters in GOOD_GATES.items()},
    "described": (GATE, True),
    "no-parameters-where-none-needed": ({"type": "human_approval"}, True),
    "optional-parameters-omitted": ({"type": "diff_min_lines"}, True),
    "min-count-default": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"]}}, True),
    "patch-parameter-omitted": ({"type": "patch_applies_cleanly", "parameters": {}}, True),
    "unknown-type": ({**GATE, "type": "command_exit_1"}, False),
    "type-missing": ({"parameters": GATE["parameters"]}, False),
    "type-null": ({**GATE, "type": None}, False),
    "unknown-key": ({**GATE, "timeout": 5}, False),
    "parameters-list": ({**GATE, "parameters": ["pytest"]}, False),
    "parameters-null": ({**GATE, "parameters": None}, False),
    "parameters-missing-for-a-command": ({"type": "command_exit_0"}, False),
    "command-missing": ({**GATE, "parameters": {}}, False),
    "command-empty": ({**GATE, "parameters": {"command": ""}}, False),
    "command-blank": ({**GATE, "parameters": {"command": " \t "}}, False),
    "command-list": ({**GATE, "parameters": {"command": ["pytest"]}}, False),
    "unknown-parameter": ({**GATE, "parameters": {"command": "pytest", "shell": True}}, False),
    "contains-empty": ({"type": "command_output_contains", "parameters": {"command": "x", "contains": ""}}, False),
    "pattern-missing": ({"type": "command_output_regex", "parameters": {"command": "x"}}, False),
    "path-empty": ({"type": "file_exists", "parameters": {"path": ""}}, False),
    "path-number": ({"type": "file_not_exists", "parameters": {"path": 1}}, False),
    "allowed-empty": ({"type": "changed_files_allowlist", "parameters": {"allowed": []}}, False),
    "allowed-string": ({"type": "changed_files_allowlist", "parameters": {"allowed": "src/**"}}, False),
    "allowed-empty-item": ({"type": "changed_files_allowlist", "parameters": {"allowed": [""]}}, False),
    "min-count-zero": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"], "min_count": 0}}, False),
    "min-count-negative": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"], "min_count": -2}}, False),
    "min-count-float": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"], "min_count": 1.5}}, False),
    "min-count-bool": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"], "min_count": True}}, False),
    "paths-missing": ({"type": "forbid_paths", "parameters": {}}, False),
    "max-negative": ({"type": "diff_max_lines", "parameters": {"max": -1}}, False),
    "max-missing": ({"type": "diff_max_lines", "parameters": {}}, False),
    "max-string": ({"type": "diff_max_lines", "parameters": {"max": "200"}}, False),
    "max-integral-float": ({"type": "diff_max_lines", "parameters": {"max": 200.0}}, True),  # JSON's 200.0 is 200
    "min-count-integral-float": ({"type": "changed_files_minimum", "parameters": {"paths": ["a"], "min_count": 2.0}},
                                 True),
    "min-zero-float": ({"type": "diff_min_lines", "parameters": {"min": 0.0}}, False),
    "command-python-whitespace-only": ({**GATE, "parameters": {"command": "\x1c\x1d"}}, False),
    "command-nbsp-only": ({**GATE, "parameters": {"command": "\u00a0"}}, False),
    "min-zero": ({"type": "diff_min_lines", "parameters": {"min": 0}}, False),
    "schema-missing": ({"type": "json_schema_valid", "parameters": {"path": "a.json"}}, False),
    "schema-list": ({"type": "json_schema_valid", "parameters": {"path": "a.json", "schema": []}}, False),
    "patch-empty": ({"type": "patch_applies_cleanly", "parameters": {"patch": ""}}, False),
    "parameter-for-a-gate-without-any": ({"type": "tests_passed", "parameters": {"command": "pytest"}}, False),
    "description-number": ({**GATE, "description": 1}, False),
    "description-null": ({**GATE, "description": None}, False),
    "not-an-object": (["command_exit_0"], False),
}

# The seed's canonical document, its good example (with a key of its own, kept) and its hand-wave: each is a
# well-formed document; whether it proves enough is the gates' question, not the contract's.
EVIDENCE_DOC = {
    "changed_files": ["path/to/file.py"], "diff_summary": "One paragraph summary of what changed and why.",
    "commands_run": ["python -m pytest -q"], "tests_run": ["python -m pytest -q"], "tests_passed": True,
    "lint_run": False, "lint_passed": None, "artifacts_created": ["docs/07_doc_map.md"],
    "criteria_checklist": {"c1": True, "c2": True}, "notes": "Anything that matters for review/debugging.",
}

EVIDENCE_DOC_CASES = {
    "seed-canonical": (EVIDENCE_DOC, True),
    "seed-good-with-its-own-key": ({k: EVIDENCE_DOC[k] for k in ("diff_summary", "commands_run", "tests_run",
                                                                 "tests_passed", "changed_files")}
                                   | {"devlog_line": "Aligned REST API paths."}, True),
    "seed-hand-wave": ({"diff_summary": "Fixed everything.", "tests_passed": True}, True),
    "empty": ({}, True),
    "all-null": ({key: None for key in EVIDENCE_DOC}, True),
    "lint-run-commands": ({**EVIDENCE_DOC, "lint_run": ["ruff check ."], "lint_passed": True}, True),
    "criteria-false": ({**EVIDENCE_DOC, "criteria_checklist": {"c1": False}}, True),
    "tests-passed-string": ({**EVIDENCE_DOC, "tests_passed": "true"}, False),
    "tests-passed-int": ({**EVIDENCE_DOC, "tests_passed": 1}, False),
    "lint-passed-string": ({**EVIDENCE_DOC, "lint_passed": "yes"}, False),
    "lint-run-string": ({**EVIDENCE_DOC, "lint_run": "ruff check ."}, False),
    "lint-run-number-item": ({**EVIDENCE_DOC, "lint_run": [1]}, False),
    "changed-files-string": ({**EVIDENCE_DOC, "changed_files": "a.py"}, False),
    "changed-files-null-item": ({**EVIDENCE_DOC, "changed_files": [None]}, False),
    "commands-run-number-item": ({**EVIDENCE_DOC, "commands_run": [1]}, False),
    "tests-run-object": ({**EVIDENCE_DOC, "tests_run": {"pytest": True}}, False),
    "criteria-string-value": ({**EVIDENCE_DOC, "criteria_checklist": {"c1": "yes"}}, False),
    "criteria-list": ({**EVIDENCE_DOC, "criteria_checklist": ["c1"]}, False),
    "diff-summary-number": ({**EVIDENCE_DOC, "diff_summary": 3}, False),
    "diff-summary-too-long": ({**EVIDENCE_DOC, "diff_summary": "s" * 100_001}, False),
    "notes-list": ({**EVIDENCE_DOC, "notes": ["a"]}, False),
    "artifacts-string": ({**EVIDENCE_DOC, "artifacts_created": "docs/a.md"}, False),
    "not-an-object": ([EVIDENCE_DOC], False),
}

EVIDENCE_SCHEMA = {"required": ["changed_files", "diff_summary", "commands_run", "tests_run", "tests_passed"],
                   "optional": ["notes"], "criteriaChecklist": {"c1": "the endpoint answers 200"}}

EVIDENCE_SCHEMA_CASES = {
    "full": (EVIDENCE_SCHEMA, True),
    "empty": ({}, True),
    "custom-field": ({"required": ["devlog_line"]}, True),
    "empty-criterion-text": ({"criteriaChecklist": {"c1": ""}}, True),
    "snake-case-checklist": ({"criteria_checklist": {"c1": "x"}}, False),
    "unknown-key": ({**EVIDENCE_SCHEMA, "strict": True}, False),
    "required-string": ({"required": "changed_files"}, False),
    "required-null": ({"required": None}, False),
    "required-empty-item": ({"required": [""]}, False),
    "required-number-item": ({"required": [1]}, False),
    "optional-object": ({"optional": {"notes": True}}, False),
    "criterion-bool": ({"criteriaChecklist": {"c1": True}}, False),
    "criterion-empty-id": ({"criteriaChecklist": {"": "text"}}, False),
    "criterion-id-too-long": ({"criteriaChecklist": {"c" * 201: "text"}}, False),
    "checklist-list": ({"criteriaChecklist": ["c1"]}, False),
    "not-an-object": (["changed_files"], False),
}

POLICY_CASES = {
    "empty": ({}, True),
    "seed-defaults": ({"require_tests_evidence": False, "enable_shell_gates": False, "shell_gate_allowlist": []},
                      True),
    "seed-audit": ({"require_tests_evidence": True, "require_diff_summary": True, "enable_shell_gates": True,
                    "shell_gate_allowlist": ["*pytest*", "*npm test*"], "evidence_schema_mode": "strict"}, True),
    "preset-permissive": ({"preset": "permissive"}, True),
    "preset-strict-overridden": ({"preset": "strict", "enable_shell_gates": False}, True),
    "preset-audit": ({"preset": "audit"}, True),
    "all-null": ({"preset": None, "enable_shell_gates": None, "shell_gate_allowlist": None,
                  "require_tests_evidence": None, "require_diff_summary": None, "evidence_schema_mode": None}, True),
    "lenient-mode": ({"evidence_schema_mode": "lenient"}, True),
    "unknown-preset": ({"preset": "lax"}, False),
    "unknown-key": ({"enable_shell_gate": True}, False),
    "camel-case-key": ({"enableShellGates": True}, False),
    "shell-gates-string": ({"enable_shell_gates": "true"}, False),
    "shell-gates-int": ({"enable_shell_gates": 1}, False),
    "allowlist-string": ({"shell_gate_allowlist": "*pytest*"}, False),
    "allowlist-empty-item": ({"shell_gate_allowlist": [""]}, False),
    "allowlist-number-item": ({"shell_gate_allowlist": [1]}, False),
    "unknown-mode": ({"evidence_schema_mode": "loose"}, False),
    "require-tests-string": ({"require_tests_evidence": "yes"}, False),
    "not-an-object": (["strict"], False),
}

TEMPLATE = {"description": "a backend change", "gates": [GATE, {"type": "forbid_paths",
                                                                "parameters": {"paths": ["vendor/**"]}}],
            "evidenceSchema": EVIDENCE_SCHEMA, "policies": {"preset": "strict"}}

TEMPLATE_CASES = {
    "full": (TEMPLATE, True),
    "empty": ({}, True),
    "gates-only": ({"gates": [{"type": "tests_passed"}]}, True),
    "evidence-schema-null": ({**TEMPLATE, "evidenceSchema": None}, True),
    "policies-null": ({**TEMPLATE, "policies": None}, True),
    "unknown-key": ({**TEMPLATE, "name": "backend"}, False),
    "snake-case-evidence-schema": ({"evidence_schema": EVIDENCE_SCHEMA}, False),
    "gates-object": ({"gates": GATE}, False),
    "gates-null": ({"gates": None}, False),
    "gate-unknown-type": ({"gates": [{"type": "no_such_gate"}]}, False),
    "gate-missing-parameters": ({"gates": [{"type": "command_exit_0"}]}, False),
    "gate-negative-count": ({"gates": [{"type": "diff_max_lines", "parameters": {"max": -1}}]}, False),
    "bad-evidence-schema": ({"evidenceSchema": {"required": "x"}}, False),
    "bad-policies": ({"policies": {"preset": "lax"}}, False),
    "description-number": ({"description": 1}, False),
    "not-an-object": ([GATE], False),
}

STEP_CASES.update({
    "with-gates": ({**STEP, "gates": [GATE, {"type": "human_approval"}]}, True),
    "gates-empty": ({**STEP, "gates": []}, True),
    "gates-null": ({**STEP, "gates": None}, True),
    "with-evidence-schema": ({**STEP, "evidenceSchema": EVIDENCE_SCHEMA}, True),
    "with-policies": ({**STEP, "policies": {"preset": "audit", "enable_shell_gates": False}}, True),
    "with-template": ({**STEP, "template": "backend-change.v2"}, True),
    "all-of-issue-12": ({**STEP, "gates": [GATE], "evidenceSchema": EVIDENCE_SCHEMA, "policies": {},
                         "template": "backend"}, True),
    "gates-object": ({**STEP, "gates": GATE}, False),
    "gate-unknown-type": ({**STEP, "gates": [GATE, {"type": "command_exit_1"}]}, False),
    "gate-unknown-parameter": ({**STEP, "gates": [{"type": "file_exists", "parameters": {"file": "a"}}]}, False),
    "gate-zero-minimum": ({**STEP, "gates": [{"type": "diff_min_lines", "parameters": {"min": 0}}]}, False),
    "evidence-schema-snake-case-key": ({**STEP, "evidenceSchema": {"criteria_checklist": {}}}, False),
    "evidence-schema-list": ({**STEP, "evidenceSchema": ["changed_files"]}, False),
    "policies-unknown-key": ({**STEP, "policies": {"shell": True}}, False),
    "policies-bad-preset": ({**STEP, "policies": {"preset": "yolo"}}, False),
    "template-traversal": ({**STEP, "template": "../backend"}, False),
    "template-absolute": ({**STEP, "template": "/etc/passwd"}, False),
    "template-hidden": ({**STEP, "template": ".backend"}, False),
    "template-empty": ({**STEP, "template": ""}, False),
    "template-with-slash": ({**STEP, "template": "a/b"}, False),
    "template-too-long": ({**STEP, "template": "t" * 201}, False),
    "template-number": ({**STEP, "template": 7}, False),
    "template-null": ({**STEP, "template": None}, True),
    "template-trailing-newline": ({**STEP, "template": "backend\n"}, False),
    "snake-case-evidence-schema-is-not-a-field": ({**STEP, "evidence_schema": 5}, True),
})

RESULT_CASES.update({
    "with-evidence": ({**RESULT, "evidence": EVIDENCE_DOC}, True),
    "evidence-null": ({**RESULT, "evidence": None}, True),
    "evidence-empty": ({**RESULT, "evidence": {}}, True),
    "evidence-with-its-own-key": ({**RESULT, "evidence": {"devlog_line": "x"}}, True),
    "evidence-bad-claim": ({**RESULT, "evidence": {"tests_passed": "yes"}}, False),
    "evidence-bad-list": ({**RESULT, "evidence": {"changed_files": "a.py"}}, False),
    "evidence-list": ({**RESULT, "evidence": [EVIDENCE_DOC]}, False),
    "evidence-string": ({**RESULT, "evidence": "tests passed"}, False),
})

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
        ("gate.schema.json", Gate, GATE_CASES),
        ("evidence-doc.schema.json", EvidenceDoc, EVIDENCE_DOC_CASES),
        ("evidence-schema.schema.json", EvidenceSchemaSpec, EVIDENCE_SCHEMA_CASES),
        ("policies.schema.json", PolicyLayer, POLICY_CASES),
        ("step-template.schema.json", StepTemplate, TEMPLATE_CASES),
    )
    for name, (data, accepted) in cases.items()
]

# Model-only checks: what JSON Schema cannot express (a regex or glob that compiles, a path that stays inside the
# repository, a JSON Schema that is valid, a command shlex can split). schemas/ accepts these; the model refuses
# them, and parse_step words the refusal at the gate's path. Kept apart from TABLE, whose rows must agree.
MODEL_ONLY_GATES = {
    "regex-does-not-compile": {"type": "command_output_regex", "parameters": {"command": "x", "pattern": "(a"}},
    "regex-bad-range": {"type": "command_output_regex", "parameters": {"command": "x", "pattern": "[z-a]"}},
    "glob-lone-backslash": {"type": "changed_files_allowlist", "parameters": {"allowed": ["src/\\"]}},
    "forbid-glob-lone-backslash": {"type": "forbid_paths", "parameters": {"paths": ["\\"]}},
    "path-parent": {"type": "file_exists", "parameters": {"path": "../secrets"}},
    "path-absolute": {"type": "file_not_exists", "parameters": {"path": "/etc/passwd"}},
    "path-inner-parent": {"type": "json_schema_valid", "parameters": {"path": "a/../../b.json", "schema": {}}},
    "json-schema-invalid": {"type": "json_schema_valid", "parameters": {"path": "a.json", "schema": {"type": "nope"}}},
    "json-schema-bad-keyword-value": {"type": "json_schema_valid",
                                      "parameters": {"path": "a.json", "schema": {"minLength": -1}}},
    "command-unclosed-quote": {"type": "command_exit_0", "parameters": {"command": "pytest -k 'slow"}},
    "command-dangling-escape": {"type": "command_output_contains", "parameters": {"command": "echo \\",
                                                                                  "contains": "x"}},
}


@pytest.mark.parametrize("gate", MODEL_ONLY_GATES.values(), ids=MODEL_ONLY_GATES.keys())
def test_model_only_gate_checks_are_refused_by_the_model_at_the_gates_path(gate):
    assert _schema_accepts("gate.schema.json", gate)  # the gap this table documents
    assert not _model_accepts(Gate, gate)
    assert not _model_accepts(StepTemplate, {"gates": [gate]})
    error = _violation(parse_step, {**STEP, "gates": [GATE, gate]})
    assert error.path == "$.step.gates[1]" and gate["type"] in error.problem


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
                                  "execution-evidence.schema.json", "gate.schema.json", "evidence-doc.schema.json",
                                  "evidence-schema.schema.json", "policies.schema.json",
                                  "step-template.schema.json", "approval.schema.json"])
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

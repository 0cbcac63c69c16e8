"""Seed 004's gate catalogue as plain names — the gate types, those that run a command or read a file, a template's
name, the evidence document's fields — for code that must not load pydantic to know them (judge.contract.gates
holds the models)."""

from __future__ import annotations

__all__ = ["COMMAND_GATE_TYPES", "EVIDENCE_FIELDS", "FILE_GATE_TYPES", "GATE_TYPES", "TEMPLATE_NAME"]

# Seed 004's catalogue, in its order: the contract's list. The order gates are evaluated in is judge.gates.registry's.
GATE_TYPES: tuple[str, ...] = (
    "command_exit_0", "command_output_contains", "command_output_regex", "file_exists", "file_not_exists",
    "changed_files_allowlist", "changed_files_minimum", "forbid_paths", "diff_max_lines", "diff_min_lines",
    "json_schema_valid", "criteria_checklist_complete", "patch_applies_cleanly", "no_uncommitted_changes",
    "tests_passed", "lint_passed", "human_approval",
)

# The gates that run a command, and those that read a work-tree file named by their `path`.
COMMAND_GATE_TYPES: frozenset[str] = frozenset({"command_exit_0", "command_output_contains", "command_output_regex"})
FILE_GATE_TYPES: frozenset[str] = frozenset({"file_exists", "file_not_exists", "json_schema_valid"})
# A step template's name (schemas/step.schema.json's `template`): looked up as NAME.json, NAME.yaml, NAME.yml.
TEMPLATE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"

# The EvidenceSchema document's fields, seed 004's snake_case names (other tools write them).
EVIDENCE_FIELDS: tuple[str, ...] = (
    "changed_files", "diff_summary", "commands_run", "tests_run", "tests_passed", "lint_run", "lint_passed",
    "artifacts_created", "criteria_checklist", "notes",
)
